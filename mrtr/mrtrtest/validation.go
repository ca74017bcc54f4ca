package mrtrtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/failure"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/problem"
)

// A Decoder validates one input (a tool's arguments, or the content of a
// form answer) and returns the problems it found. Generated validation
// tests pass a program's argument decoding (ArgumentDecoder) and its
// generated answer decoders.
type Decoder func(input map[string]any) mrtrimpl.Problems

// ArgumentDecoder validates arguments the way every round does: through
// the program's NewFlow.
func ArgumentDecoder[F any](p mrtr.Program[F]) Decoder {
	return func(input map[string]any) mrtrimpl.Problems {
		raw, err := json.Marshal(input)
		if err != nil {
			return mrtrimpl.Problems{"arguments do not marshal: " + err.Error()}
		}
		_, err = p.NewFlow(context.Background(), &mrtr.Call{}, raw)
		if ae, ok := errors.AsType[*failure.ArgumentError](err); ok {
			return ae.Problems
		}
		if err != nil {
			return mrtrimpl.Problems{"NewFlow failed without an argument error: " + err.Error()}
		}
		return nil
	}
}

// Broken checks that decode reports the problem want (worded by package
// problem, as the generated validators word it) for the valid input with
// field set to value (nil: left out), and so that the constraint want names
// is enforced.
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
	if !slices.Contains(problems, want) {
		t.Errorf("%s = %#v: problems %q, want %q among them", field, value, problems, want)
	}
}

// AnswerDecoder adapts a generated answer decoder (decode<Key>: the
// answer, its problems, and an error when a custom validator could not
// check a value) to a Decoder. Generated validation tests run with a fake
// whose validators accept, so an error is reported as a problem that no
// Broken case expects.
func AnswerDecoder[A any](decode func(context.Context, map[string]any) (A, mrtrimpl.Problems, error)) Decoder {
	return func(input map[string]any) mrtrimpl.Problems {
		_, problems, err := decode(context.Background(), input)
		if err != nil {
			return append(problems, "the decoder failed: "+err.Error())
		}
		return problems
	}
}

// ValidatorUse is one use of a custom validator by a program: the value
// it checks, and how to make it refuse or fail. Fake.Use fills in the
// knobs and texts of a generated fake.
type ValidatorUse struct {
	// Validator is the validator's name in the spec.
	Validator string
	// Request is the key of the form the value is a field of; "" for an
	// argument.
	Request string
	// Field is the argument or form field, and Value a valid value of it
	// (for a list, a valid list) that the fixture workflow sends instead.
	Field string
	Value any
	// Broken is a value of the field that breaks a built-in constraint
	// (maxLength, an enum, maxItems...), nil when it has none: the
	// validator must not even be called for it.
	Broken any
	// Refuse makes the validator refuse value (for a list, its items) with
	// mrtr.Invalid and Message; Fail makes it fail on value as a dependency
	// with an error whose text is Secret. Each returns its restore.
	// CheckValidator arms them just before the round that sends the value,
	// so earlier rounds (and other fields the validator checks) pass.
	Refuse, Fail func(value any) (restore func())
	Message      string
	Secret       string
}

// CheckValidator runs the contract of one custom validator use against p
// with the fixture workflow:
//   - refusing (mrtr.Invalid), the user is told its message: an answer is
//     asked for again saying what to correct, an argument is refused;
//   - failing (any other error), the round ends as a dependency error
//     (outcome error) performing no side effect, the error's text is in
//     the log and in nothing the client receives;
//   - failing, a value that breaks a built-in constraint of the same field
//     is refused as such: the validator was not called.
func CheckValidator[F any](t *testing.T, p mrtr.Program[F], fx Fixtures, u ValidatorUse) {
	t.Helper()
	name := u.Validator + " of " + u.Field
	if u.Request != "" {
		name = u.Validator + " of " + u.Request + "." + u.Field
	}
	t.Run(name, func(t *testing.T) {
		t.Run("invalid", func(t *testing.T) {
			reply, _, err := roundWith(t, p, &fx, u, u.Value, func() func() { return u.Refuse(u.Value) })
			wantRefused(t, u, reply, err, u.Message, "ValidatorUse.Refuse")
		})
		t.Run("dependency failure", func(t *testing.T) {
			count := func() int {
				if fx.Effects == nil {
					return 0
				}
				return fx.Effects()
			}
			before := 0
			reply, logs, err := roundWith(t, p, &fx, u, u.Value, func() func() {
				before = count()
				return u.Fail(u.Value)
			})
			if err != nil {
				t.Fatalf("a validator that failed as a dependency: error %v, want an error result (outcome error)", err)
			}
			if reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeError || reply.Final.Text == "" {
				t.Fatal(outageMissed(u, reply))
			}
			if got := count() - before; got != 0 {
				t.Fatalf("the round whose validator failed performed %d side effects", got)
			}
			seen, _ := json.Marshal(reply)
			if strings.Contains(string(seen), u.Secret) {
				t.Fatalf("the client was sent the validator's error text %q: %s", u.Secret, seen)
			}
			if !strings.Contains(logs, u.Secret) {
				t.Fatalf("the validator's error %q is not in the log:\n%s", u.Secret, logs)
			}
		})
		if u.Broken != nil {
			t.Run("built-in constraint first", func(t *testing.T) {
				reply, _, err := roundWith(t, p, &fx, u, u.Broken, func() func() { return u.Fail(u.Broken) })
				wantRefused(t, u, reply, err, "", "")
			})
		}
	})
}

// roundWith runs the fixture workflow with the field set to value and
// returns the reply (or error) of the round that sends it, and the
// engine's log; arm is called just before that round, and what it
// returns right after it.
func roundWith[F any](t *testing.T, p mrtr.Program[F], fx *Fixtures, u ValidatorUse, value any, arm func() (restore func())) (*mrtr.Reply, string, error) {
	t.Helper()
	var logs LogBuffer
	m := newMatrix(p, fx, []Option{WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))})
	if u.Request == "" {
		args, err := withValue(fx.Args, u.Field, value)
		if err != nil {
			t.Fatal(err)
		}
		h := m.newHarness(t)
		restore := arm()
		defer restore()
		reply, err := h.Call(context.Background(), args, "", nil)
		return reply, logs.String(), err
	}
	owner := requestOwner(m.d, u.Request)
	if owner == nil {
		t.Fatalf("%s never asks for %q", m.d.Name, u.Request)
	}
	// A route to the question, as the matrix finds one: the fixture
	// workflow, a variant, or the handler steered onto a branch that asks.
	var at step
	m.name = "validator " + u.Validator
	r, h, _ := m.find(testT{t}, fmt.Sprintf("a workflow that asks for %q (state %s)", u.Request, owner.Name), m.candidates(owner.Name),
		func(_ int, s step) bool {
			if _, ok := s.responses[u.Request]; ok {
				at = s
				return true
			}
			return false
		}, nil,
		func(*route, []step) bool { return at.state != "" })
	answer, ok := at.responses[u.Request].(*mcp.ElicitResult)
	if !ok || answer.Action != "accept" {
		t.Fatalf("the fixtures' answer to %q is not an accepted form: %s", u.Request, responseText(at.responses[u.Request]))
	}
	content := maps.Clone(answer.Content)
	if content == nil {
		content = map[string]any{}
	}
	content[u.Field] = value
	responses := maps.Clone(at.responses)
	responses[u.Request] = Accept(content)
	restore := arm()
	defer restore()
	reply, err := h.Call(context.Background(), r.args, at.state, responses)
	return reply, logs.String(), err
}

// outageMissed says why a round sent with the validator's outage switch
// armed (ValidatorUse.Fail) did not end as a dependency failure: the value
// was refused instead, the switch did not hold (the round went on), or the
// round ended otherwise.
func outageMissed(u ValidatorUse, reply *mrtr.Reply) string {
	const want = "a validator that failed as a dependency must end the round with outcome error and a message"
	refused := reply.NeedsInput() && u.Request != "" && strings.Contains(messageOf(reply.InputRequests[u.Request]), problem.CorrectPrefix) ||
		!reply.NeedsInput() && reply.Final.Outcome == mrtr.OutcomeInvalidArguments
	switch {
	case refused:
		return fmt.Sprintf("%s; with its outage switch armed (ValidatorUse.Fail) for %s, the value was refused instead: %s. "+
			"Validator %s returned mrtr.Invalid: a backend that failed must be returned as an error, not shown to the user as a value to correct "+
			"(unless Fail arms a refusal where it should arm an outage)",
			want, jsonText(u.Value), did(reply, nil, ""), u.Validator)
	case reply.NeedsInput() || reply.Final.Outcome == mrtr.OutcomeSuccess || reply.Final.Outcome == mrtr.OutcomeCancelled:
		return fmt.Sprintf("%s; with its outage switch armed (ValidatorUse.Fail) for %s, the round went on as if validator %s accepted it: %s. "+
			"The switch did not hold: the validator was not called with that value, or Fail does not make it fail. Fix Fail, or Value (what the validator is given, with its type: int64(13), not 13)",
			want, jsonText(u.Value), u.Validator, did(reply, nil, ""))
	}
	return fmt.Sprintf("%s; with its outage switch armed (ValidatorUse.Fail), %s", want, did(reply, nil, ""))
}

// switchHeld says, for a value that went through although switch (a
// ValidatorUse knob) was armed to refuse it, that the switch did not hold
// ("" when no switch was armed to refuse it).
func switchHeld(u ValidatorUse, knob string) string {
	if knob == "" {
		return ""
	}
	return fmt.Sprintf(": with %s armed for %s, the round went on as if validator %s accepted it. The switch did not hold: the validator was not called with that value, or %s does not make it return mrtr.Invalid. Fix it, or Value (what the validator is given, with its type)",
		knob, jsonText(u.Value), u.Validator, knob)
}

// wantRefused checks that the value was refused for the user to correct:
// an argument with an error naming the field (and message, when set), an
// answer asked for again saying what to correct. knob is the switch armed
// to refuse it ("" when a built-in constraint must).
func wantRefused(t *testing.T, u ValidatorUse, reply *mrtr.Reply, err error, message, knob string) {
	t.Helper()
	if u.Request == "" {
		// An invalid argument ends the call with an invalid-arguments
		// result, not a dependency failure.
		text := ""
		switch {
		case err != nil:
			t.Fatalf("argument %s: error %v, want an invalid-arguments result", u.Field, err)
		case reply != nil && !reply.NeedsInput() && reply.Final.Outcome == mrtr.OutcomeInvalidArguments:
			text = reply.Final.Text
		default:
			t.Fatalf("argument %s was not refused: %s%s", u.Field, did(reply, nil, ""), switchHeld(u, knob))
		}
		if !strings.Contains(text, u.Field) || !strings.Contains(text, message) {
			t.Fatalf("argument %s refused with %q, want it to name the field and say %q", u.Field, text, message)
		}
		return
	}
	if err != nil {
		t.Fatalf("answer %s.%s: error %v, want the question asked again", u.Request, u.Field, err)
	}
	if !reply.NeedsInput() || reply.InputRequests[u.Request] == nil {
		t.Fatalf("answer %s.%s: %s, want %q asked again%s", u.Request, u.Field, did(reply, nil, ""), u.Request, switchHeld(u, knob))
	}
	ep, ok := reply.InputRequests[u.Request].(*mcp.ElicitParams)
	if !ok || !strings.Contains(ep.Message, problem.CorrectPrefix) || !strings.Contains(ep.Message, u.Field) || !strings.Contains(ep.Message, message) {
		t.Fatalf("asked again with %q, want it to say what to correct in %s (%q)", messageOf(reply.InputRequests[u.Request]), u.Field, message)
	}
}

// withValue returns args (a JSON object) with key set to value.
func withValue(args any, key string, value any) (map[string]any, error) {
	raw, err := marshalArgs(args)
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("the fixture arguments are not a JSON object: %w", err)
	}
	m[key] = value
	return m, nil
}
