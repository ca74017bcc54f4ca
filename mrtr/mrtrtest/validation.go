package mrtrtest

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// A Decoder validates one input (a tool's arguments, or the content of a
// form answer) and returns the problems it found. Generated validation
// tests pass a program's argument decoding (ArgumentDecoder) and its
// generated answer decoders.
type Decoder func(input map[string]any) mrtr.Problems

// ArgumentDecoder validates arguments the way every round does: through
// the program's NewFlow.
func ArgumentDecoder[F any](p mrtr.Program[F]) Decoder {
	return func(input map[string]any) mrtr.Problems {
		raw, err := json.Marshal(input)
		if err != nil {
			return mrtr.Problems{"arguments do not marshal: " + err.Error()}
		}
		_, err = p.NewFlow(context.Background(), &mrtr.Call{}, raw)
		if ae, ok := errors.AsType[*mrtr.ArgumentError](err); ok {
			return ae.Problems
		}
		if err != nil {
			return mrtr.Problems{"NewFlow failed without an argument error: " + err.Error()}
		}
		return nil
	}
}

// Broken checks that decode reports a problem starting with want for the
// valid input with field set to value (nil: left out), and so that the
// constraint want names is enforced.
func Broken(t testing.TB, decode Decoder, valid map[string]any, field string, value any, want string) {
	t.Helper()
	// The valid input alone must pass, or a validator that refuses
	// everything would pass every case.
	if problems := decode(maps.Clone(valid)); len(problems) > 0 {
		t.Errorf("the valid input %v has problems %q", valid, problems)
		return
	}
	input := maps.Clone(valid)
	if input == nil {
		input = map[string]any{}
	}
	if value == nil {
		delete(input, field)
	} else {
		input[field] = value
	}
	problems := decode(input)
	if !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, want) }) {
		t.Errorf("%s = %#v: problems %q, want one starting %q", field, value, problems, want)
	}
}
