package mrtrimpl

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// errOutput is the error of a terminal state whose handler method filled
// its output in a way the spec does not allow: a required field left
// unset, a value outside its constraints, or a field of another state
// (errors.Is). The round fails as a dependency failure, logged with the
// tool, the state and every problem, instead of sending a half-empty
// structured result.
var errOutput = errors.New("a structured result breaks the spec")

// outputError names the state, the handler method and what is wrong with
// the output it filled.
type outputError struct {
	State    string // the terminal state
	Method   string // the Go name of the handler method that fills it
	Problems []string
}

func (e *outputError) Error() string {
	return fmt.Sprintf("state %s: the output %s filled breaks the spec: %s", e.State, e.Method, strings.Join(e.Problems, "; "))
}

func (e *outputError) Unwrap() error { return errOutput }

// OutputNotSet is the problem of a required output field left unset.
func (Export) OutputNotSet(field, goField string) string {
	return fmt.Sprintf("output field %s is required but not set (set out.%s)", field, goField)
}

// OutputNotDeclared is the problem of an output field the state does not
// declare (it belongs to another terminal state of the tool).
func (Export) OutputNotDeclared(field, goField string) string {
	return fmt.Sprintf("output field %s is set (out.%s), but this state does not declare it", field, goField)
}

// StructuredOutput returns out as the JSON object of a structured result,
// or an *outputError when problems (what the generated check of the
// state's output found) is not empty.
func (Export) StructuredOutput(state, method string, problems Problems, out any) (json.RawMessage, error) {
	if len(problems) > 0 {
		return nil, &outputError{State: state, Method: method, Problems: problems}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("state %s: encoding the output %s filled: %w", state, method, err)
	}
	return b, nil
}
