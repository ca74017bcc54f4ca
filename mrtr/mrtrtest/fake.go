package mrtrtest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ErrFakeDown is what a Fake's checks and effects return while it is broken.
var ErrFakeDown = errors.New("fake dependency is down")

// Fake is the shared half of a generated fake handler (the generated
// fake<Tool> embeds it and adds the tool's typed methods): it counts
// side effects, fails every check and effect while broken, and hands out
// check outcomes from per-check queues. It is safe for concurrent use, as
// the matrix's duplicate final rounds need.
type Fake struct {
	// Outcomes queue, per check name, the outcomes (1-based, in spec
	// order) its next calls return; a check with an empty queue returns
	// the default its caller passes.
	Outcomes map[string][]uint8

	mu      sync.Mutex
	broken  bool
	effects int
	// refused and failing hold, per custom validator, the values it is
	// told to refuse (mrtr.Invalid) or to fail on as a dependency.
	refused, failing map[string][]any
	// outputs counts, per terminal state, its output method's calls.
	outputs map[string]int
}

// ErrFakeValidatorDown is what a Fake's failing custom validator returns: a
// dependency failure whose text (it names an internal host) must reach
// the log only, never the client.
var ErrFakeValidatorDown = errors.New("fake validator backend at 10.0.0.7:5432 is down")

// FakeInvalidMessage is what a Fake's refusing custom validator says about
// the value (its mrtr.Invalid message), which the user must be shown.
const FakeInvalidMessage = "the fake validator refuses this value"

// Validate is what custom validator validator does with value: accept,
// unless told to refuse it (RefuseValidator) or to fail on it
// (FailValidator); stop when ctx is done.
func (f *Fake) Validate(ctx context.Context, validator string, value any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case matches(f.failing[validator], value):
		return ErrFakeValidatorDown
	case matches(f.refused[validator], value):
		return mrtr.Invalid("%s", FakeInvalidMessage)
	}
	return ctx.Err()
}

// matches reports whether value is one of vs, or an item of a list in vs
// (a validator of list items is told about the list).
func matches(vs []any, value any) bool {
	for _, v := range vs {
		if items, ok := v.([]any); ok {
			if slices.ContainsFunc(items, func(x any) bool { return sameValue(x, value) }) {
				return true
			}
		} else if sameValue(v, value) {
			return true
		}
	}
	return false
}

// sameValue compares a value as a test wrote it (1.0, int64(3), "x") with
// the typed value a validator gets (an enum value is validated as its
// string, an integer as int64).
func sameValue(a, b any) bool { return fmt.Sprintf("%T:%v", a, a) == fmt.Sprintf("%T:%v", b, b) }

// RefuseValidator makes custom validator name refuse value (for a list,
// each of its items) with mrtr.Invalid(FakeInvalidMessage) until restore is
// called. Other values are still accepted, so a validator used by several
// fields refuses only the field under test.
func (f *Fake) RefuseValidator(name string, value any) (restore func()) {
	return f.setValidator(&f.refused, name, value)
}

// FailValidator makes custom validator name fail on value (for a list,
// each of its items) with ErrFakeValidatorDown until restore is called.
func (f *Fake) FailValidator(name string, value any) (restore func()) {
	return f.setValidator(&f.failing, name, value)
}

//nolint:gocritic // ptrToRefParam: the map is made on first use, so the field itself is passed
func (f *Fake) setValidator(m *map[string][]any, name string, value any) func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if *m == nil {
		*m = map[string][]any{}
	}
	(*m)[name] = append((*m)[name], value)
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		l := (*m)[name]
		if i := slices.IndexFunc(l, func(x any) bool { return sameValue(x, value) }); i >= 0 {
			(*m)[name] = slices.Delete(slices.Clone(l), i, i+1)
		}
	}
}

// Use completes u, a use of custom validator name, with this fake's knobs
// and texts (for CheckValidator).
func (f *Fake) Use(name string, u ValidatorUse) ValidatorUse {
	u.Validator = name
	u.Refuse = func(value any) func() { return f.RefuseValidator(name, value) }
	u.Fail = func(value any) func() { return f.FailValidator(name, value) }
	u.Message = FakeInvalidMessage
	u.Secret = ErrFakeValidatorDown.Error()
	return u
}

// Step is what a check without outcomes does: fail while broken, stop
// when ctx is done.
func (f *Fake) Step(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.broken {
		return ErrFakeDown
	}
	return ctx.Err()
}

// Check is what a check with outcomes does: Step, then the next queued
// outcome of check, or otherwise.
func (f *Fake) Check(ctx context.Context, check string, otherwise uint8) (uint8, error) {
	if err := f.Step(ctx); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	q := f.Outcomes[check]
	if len(q) == 0 {
		return otherwise, nil
	}
	f.Outcomes[check] = q[1:]
	return q[0], nil
}

// Steer replaces every queue with outcomes (nil empties them): it is the
// fake's Fixtures.Steer, with which the matrix steers each workflow onto
// the route its scenario needs.
func (f *Fake) Steer(outcomes map[string][]uint8) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Outcomes = maps.Clone(outcomes)
}

// Effect is what an effect does: Step, then count one side effect.
func (f *Fake) Effect(ctx context.Context) error {
	if err := f.Step(ctx); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.effects++
	return nil
}

// Effects is how many side effects were performed (Fixtures.Effects).
func (f *Fake) Effects() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.effects
}

// Break makes every check and effect fail until restore is called
// (Fixtures.Break).
func (f *Fake) Break() (restore func()) {
	f.setBroken(true)
	return func() { f.setBroken(false) }
}

func (f *Fake) setBroken(b bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.broken = b
}

// FlowRefusal is the queue of Outcomes that steers a validator with
// context (reads:) named validator: each call takes the next entry, and
// AskAgainOutcome makes it refuse the value with
// mrtr.Invalid(FakeInvalidMessage) whatever the value; any other entry,
// or an empty queue, decides as Validate does.
func FlowRefusal(validator string) string { return "validator " + validator }

// ValidateInFlow is what a validator with context does with value: what
// its queue (FlowRefusal) says, else what Validate does.
func (f *Fake) ValidateInFlow(ctx context.Context, validator string, value any) error {
	f.mu.Lock()
	key := FlowRefusal(validator)
	var refuse bool
	if q := f.Outcomes[key]; len(q) > 0 {
		refuse = q[0] == AskAgainOutcome
		f.Outcomes[key] = q[1:]
	}
	f.mu.Unlock()
	if refuse {
		return mrtr.Invalid("%s", FakeInvalidMessage)
	}
	return f.Validate(ctx, validator, value)
}

// Output counts a call of the output method of terminal state state and
// returns 0 or 1 by the parity of those calls: a generated fake fills the
// output with one of two valid variants, so a round that ran the method
// again instead of replaying its recorded result replies otherwise.
func (f *Fake) Output(state string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.outputs == nil {
		f.outputs = map[string]int{}
	}
	n := f.outputs[state]
	f.outputs[state]++
	return n % 2
}
