package mrtrtest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// cancellation: a cancelled first call, and a cancelled continuation,
// return the context's error and perform no side effect; the cancelled
// continuation can then be sent again.
func (m *matrix[F]) cancellation(t tb) {
	if m.fx.Steer != nil {
		m.fx.Steer(m.fixture.steer) // the fixture workflow: the fake's own choice, with the fixture's values
	}
	h := m.newHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	const want = "context.Canceled and no side effect (the request's context was cancelled)"
	before := m.count()
	reply, err := h.Call(ctx, m.fixture.args, "", nil)
	if !errors.Is(err, context.Canceled) {
		m.fatal(t, nil, &roundError{round: 1, want: want, did: did(reply, err, h.Principal)})
	}
	if n := m.count() - before; n != 0 {
		m.fatal(t, nil, &roundError{round: 1, want: want, did: fmt.Sprintf("it performed %d side effects", n)})
	}
	if len(m.g.interactiveStates()) == 0 {
		notApplicable(t, "a cancelled continuation: %s asks for nothing on any path, so %s", m.d.Name, noState)
		return
	}
	r, h, first, responses := m.firstAsk(t)
	before = m.count()
	reply, err = h.Call(ctx, r.args, first.RequestState, responses)
	if !errors.Is(err, context.Canceled) {
		m.fatal(t, r, &roundError{round: 2, want: want, did: did(reply, err, h.Principal)})
	}
	if n := m.count() - before; n != 0 {
		m.fatal(t, r, &roundError{round: 2, want: want, did: fmt.Sprintf("it performed %d side effects", n)})
	}
	// Nothing of the cancelled attempt sticks: sent again, the round runs.
	again, err := h.Call(context.Background(), r.args, first.RequestState, responses)
	if err != nil || !again.NeedsInput() && again.Final.Outcome == mrtr.OutcomeError {
		m.fatal(t, r, &roundError{round: 2, want: "the round sent again after its cancelled attempt to run", did: did(again, err, h.Principal)})
	}
}

// unauthorized calls as Fixtures.Unauthorized, first and on a
// continuation: Authorize runs on every round.
func (m *matrix[F]) unauthorized(t tb) {
	if m.fx.Unauthorized == "" {
		t.Fatalf("%s: the fixtures have no principal Authorize refuses (Fixtures.Unauthorized; if the handler refuses no one, say so in Fixtures.NotApplicable)", m.where())
	}
	if m.fx.Steer != nil {
		m.fx.Steer(m.fixture.steer) // the fixture workflow: the fake's own choice, with the fixture's values
	}
	want := fmt.Sprintf("outcome unauthorized: %s calls (Fixtures.Unauthorized)", caller(m.fx.Unauthorized))
	h := m.newHarness(t)
	h.Principal = m.fx.Unauthorized
	reply, err := h.Call(context.Background(), m.fixture.args, "", nil)
	if err != nil || reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeUnauthorized {
		m.fatal(t, nil, &roundError{round: 1, want: want, did: did(reply, err, h.Principal)})
	}
	if len(m.g.interactiveStates()) == 0 {
		notApplicable(t, "an unauthorized continuation: %s asks for nothing on any path, so %s", m.d.Name, noState)
		return
	}
	r, h, first, responses := m.firstAsk(t)
	h.Principal = m.fx.Unauthorized
	reply, err = h.Call(context.Background(), r.args, first.RequestState, responses)
	if err != nil || reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeUnauthorized {
		m.fatal(t, r, &roundError{round: 2, want: want + " on the continuation of " + caller(m.fx.Principal) + "'s workflow", did: did(reply, err, h.Principal)})
	}
}

// dependencyFailure breaks the handler's dependencies (Fixtures.Break):
// some workflow must then end with outcome error and a message.
func (m *matrix[F]) dependencyFailure(t tb) {
	steps := m.g.stepStates()
	if len(steps) == 0 {
		notApplicable(t, "%s has no check or effect, so no handler dependency can fail", m.d.Name)
		return
	}
	if m.fx.Break == nil {
		t.Fatalf("%s: %s has checks or effects (%s), but the fixtures have no way to break a dependency (Fixtures.Break)", m.where(), m.d.Name, strings.Join(stateNames(steps), ", "))
	}
	var via []string
	if p, ok := m.g.shortest(m.g.initial(), func(name string) bool {
		k := stateNamed(m.d, name).Kind
		return k == vocab.StateCheck || k == vocab.StateEffect
	}); ok && len(p) > 0 {
		via = []string{p[len(p)-1].to}
	}
	restore := m.fx.Break()
	defer restore()
	need := fmt.Sprintf("a workflow that reaches a check or effect (%s) and ends with outcome error and a message", strings.Join(stateNames(steps), ", "))
	failed := func(_ *route, steps []step) bool {
		end := steps[len(steps)-1].reply
		return !end.NeedsInput() && end.Final.Outcome == mrtr.OutcomeError && end.Final.Text != ""
	}
	r, _, _, tried := m.search(t, m.candidates(via...), nil, nil, failed)
	if r != nil {
		return
	}
	for _, a := range tried {
		if !a.endedAsItShould() {
			m.notReached(t, need, tried)
		}
	}
	// Every workflow ended as it does without Break: the switch did not
	// hold, and the fixtures are what to change.
	t.Fatalf("%s: with Fixtures.Break armed, every workflow ended as it does without it (tried %s): the switch did not hold. "+
		"Break must make a dependency that the handler's checks or effects call fail until restore is called (a database or client the handler holds, not a copy)",
		m.where(), triedText(tried))
}

// overHTTP walks the fixture workflow over streamable HTTP.
func (m *matrix[F]) overHTTP(t tb) {
	if m.fx.Steer != nil {
		m.fx.Steer(m.fixture.steer) // the fixture workflow: the fake's own choice, with the fixture's values
	}
	if err := m.runHTTP(t, m.newHarness(t), &m.fixture); err != nil {
		m.fatal(t, nil, err)
	}
}
