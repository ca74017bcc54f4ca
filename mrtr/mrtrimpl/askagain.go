package mrtrimpl

import (
	"errors"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/failure"
	"github.com/mrtrgen/mrtrgen/mrtr/problem"
)

// AskingAgain reports whether a check's error asks again, and with which
// message for the user.
func (Export) AskingAgain(err error) (message string, ok bool) {
	var a *failure.AskAgainError
	if errors.As(err, &a) {
		return a.Message, true
	}
	return "", false
}

// AttemptsLeft is why a check asked again (mrtr.AskAgain's message) with
// how many answers the user may still give before the check's askAgain
// runs out (left, at least 1): "… (2 attempts left)", as a typed
// confirmation says.
func (Export) AttemptsLeft(why string, left int) string {
	return why + " " + problem.AttemptsLeft(left)
}

// explained returns request p with why it is asked again (a check's
// mrtr.AskAgain message) added to its question: a form's message or a
// sampling prompt. An empty why, or a request with no text (roots), is
// returned as is. Generated code adds it only to the request a round
// sends; Program.Questions, whose digests pin the answers of the next
// round, renders the questions without it.
func explained(p Pending, why string) Pending {
	if why == "" {
		return p
	}
	switch params := p.Params.(type) {
	case *mcp.ElicitParams:
		c := *params
		c.Message = problem.Again(c.Message, why)
		p.Params = &c
	//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; a sampling request asked again says why too
	case *mcp.CreateMessageParams:
		c := *params
		c.Messages = slices.Clone(params.Messages)
		for i, m := range c.Messages {
			if t, ok := m.Content.(*mcp.TextContent); ok {
				mc := *m
				mc.Content = &mcp.TextContent{Text: problem.Again(t.Text, why)}
				c.Messages[i] = &mc
				break
			}
		}
		p.Params = &c
	}
	return p
}

// Again is request with why it is asked again added to its question (see
// explained): what generated code gives Take at an ask a check may send the
// workflow back to.
func (Export) Again(request func(Problems) Pending, why string) func(Problems) Pending {
	return func(problems Problems) Pending { return explained(request(problems), why) }
}

// errNoArm is what a value branch fails the round with when its value
// takes none of its arms: a value lint could not rule out (its finding
// silenced), or a continuation field no handler set.
var errNoArm = errors.New("mrtr: value branch has no arm for the value")

// NoArm is the error of branch state for value name = v.
func (Export) NoArm(state, name string, v any) error {
	return fmt.Errorf("%w: state %s, %s = %v", errNoArm, state, name, v)
}

// BranchNotSet is the error of branch state routing on continuation enum
// name that no handler set (a check before the branch must set it).
func (Export) BranchNotSet(state, name string) error {
	return fmt.Errorf("%w: state %s, continuation field %s is not set (a check or effect before the branch must set it)", errNoArm, state, name)
}

// AgainWith is Again for a form asked again after a check refused its
// answer: the question says why, and the form is prefilled with the
// refused answer (given, the form's content as the check saw it, with the
// sensitive fields already left out by the generated code) so the user
// changes what was wrong instead of filling the whole form again. Only the
// request a round sends is prefilled; a nil given (nothing was refused in
// this round) leaves request as Again does.
func (Export) AgainWith(request func(Problems) Pending, why string, given map[string]any) func(Problems) Pending {
	return func(problems Problems) Pending {
		p := explained(request(problems), why)
		if why == "" || len(given) == 0 || len(problems) > 0 {
			return p
		}
		return withPrefill(p, given, nil)
	}
}
