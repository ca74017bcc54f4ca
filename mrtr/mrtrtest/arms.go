package mrtrtest

import (
	"fmt"
	"maps"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Value branches and checks that ask again, as walks and the matrix drive
// them.
//
// A value branch takes its arm from data: an argument, a form field of an
// answer, or a continuation field a handler set. A walk through an arm
// says which data takes it (Arms): the arguments and form fields it sends
// instead of the fixtures', and, for a continuation field, which of its
// values the generated fake sets (Fake.Value; the generated fake lists
// them). A check that asks again is steered like a check's outcome: the
// entry AskAgainOutcome in its queue makes the generated fake return
// mrtr.AskAgain(FakeAskAgainMessage).

// AskAgainOutcome, queued for a check (Fake.Outcomes), makes the generated
// fake's check ask again (mrtr.AskAgain) instead of passing.
const AskAgainOutcome uint8 = 0

// FakeAskAgainMessage is why a generated fake's check asks again: the
// question asked again must show it.
const FakeAskAgainMessage = "the fake check refuses this answer; give another"

// Arms is the data a walk or a variant uses so that the value branches on
// its way take the arms it names.
type Arms struct {
	// Args are merged over the fixtures' arguments; a nil value leaves
	// that argument out.
	Args map[string]any
	// Fields, per request key, are merged over the form fields of the
	// fixtures' answer; a nil value leaves that field out.
	Fields map[string]map[string]any
	// Values, per continuation field, is which of its values (from 1, in
	// the order of the generated fake's list) the fake's checks and effects
	// set.
	Values map[string]uint8
}

// ValueKey is the key under which Fake.Outcomes holds the value a fake sets
// in continuation field name.
func ValueKey(name string) string { return "=" + name }

// Value is which value (from 1) the fake sets in continuation field name:
// the one queued under ValueKey(name), or otherwise (the fixture
// workflow's). Unlike a check's outcome it is not used up: every check and
// effect sets the same value, so the field holds it wherever a branch reads
// it.
func (f *Fake) Value(name string, otherwise uint8) uint8 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if q := f.Outcomes[ValueKey(name)]; len(q) > 0 && q[0] > 0 {
		return q[0]
	}
	return otherwise
}

// valueSteer turns Arms.Values into entries of Fake.Outcomes.
func valueSteer(values map[string]uint8) map[string][]uint8 {
	out := map[string][]uint8{}
	for name, v := range values {
		out[ValueKey(name)] = []uint8{v}
	}
	return out
}

// withArgs returns args (a map[string]any, as generated fixtures give
// them) with the arms' arguments merged in.
func (a Arms) withArgs(t testing.TB, args any) any {
	t.Helper()
	if len(a.Args) == 0 {
		return args
	}
	m, ok := args.(map[string]any)
	if !ok && args != nil {
		t.Fatalf("the arms set arguments %v, but the fixtures' Args are a %T, not a map[string]any", a.Args, args)
	}
	out := maps.Clone(m)
	if out == nil {
		out = map[string]any{}
	}
	for k, v := range a.Args {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// withAnswers returns answers with the arms' form fields merged into the
// answers they change.
func (a Arms) withAnswers(t testing.TB, answers map[string]mcp.InputResponse) map[string]mcp.InputResponse {
	t.Helper()
	if len(a.Fields) == 0 {
		return answers
	}
	out := maps.Clone(answers)
	if out == nil {
		out = map[string]mcp.InputResponse{}
	}
	for key, fields := range a.Fields {
		content := map[string]any{}
		if er, ok := out[key].(*mcp.ElicitResult); ok && er != nil {
			maps.Copy(content, er.Content)
		} else if out[key] != nil {
			t.Fatalf("the arms set form fields of %q, whose fixture answer is a %T, not a form", key, out[key])
		}
		for name, v := range fields {
			if v == nil {
				delete(content, name)
			} else {
				content[name] = v
			}
		}
		out[key] = Accept(content)
	}
	return out
}

// On returns the fixtures with variant v as the fixture workflow: its
// arguments, answers, continuation values and outcome; the fixture
// workflow and the other variants become the variants, for the scenarios v
// does not reach. The generated tests run the whole matrix on each
// variant, so every arm of a value branch is the first workflow of a
// matrix once.
func (fx Fixtures) On(v Variant) Fixtures {
	out := fx
	// The other workflows keep their own arguments and answers, not v's,
	// which become the fixtures' they would otherwise inherit.
	whole := func(o Variant) Variant {
		if o.Args == nil {
			o.Args = fx.Args
		}
		answers := maps.Clone(fx.Answers)
		if answers == nil {
			answers = map[string]mcp.InputResponse{}
		}
		maps.Copy(answers, o.Answers)
		o.Answers = answers
		return o
	}
	out.Variants = []Variant{whole(Variant{Name: "the fixtures' own workflow", WantOutcome: fx.WantOutcome, Values: fx.Values})}
	for _, o := range fx.Variants {
		if o.Name != v.Name {
			out.Variants = append(out.Variants, whole(o))
		}
	}
	if v.Args != nil {
		out.Args = v.Args
	}
	out.Answers = maps.Clone(fx.Answers)
	if out.Answers == nil {
		out.Answers = map[string]mcp.InputResponse{}
	}
	maps.Copy(out.Answers, v.Answers)
	out.Values = v.Values
	out.WantOutcome = v.WantOutcome
	return out
}

// String names the arms, for messages.
func (a Arms) String() string {
	return fmt.Sprintf("args %v, fields %v, values %v", a.Args, a.Fields, a.Values)
}
