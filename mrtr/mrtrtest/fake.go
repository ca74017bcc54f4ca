package mrtrtest

import (
	"context"
	"errors"
	"maps"
	"sync"
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
