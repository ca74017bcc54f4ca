package mrtrtest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/problem"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// The scenarios of the matrix, one function each, in the order of the
// table in matrix.go (the business key in businesskey.go; what comes from
// outside the workflow, a cancel, another caller, a failing dependency,
// the HTTP transport, in outside.go).

const noState = "it never issues a requestState"

// restartError is what a client must get for a requestState it may not use.
const restartError = "the restart error (JSON-RPC -32602, " + seal.PublicMessage + ")"

// completeInput drives the fixture workflow and every variant to its end.
func (m *matrix[F]) completeInput(t tb) {
	for _, r := range m.routes() {
		steps, err := m.drive(m.newHarness(t), &r, nil, nil)
		if err != nil {
			m.fatal(t, &r, err)
		}
		m.wantEnd(t, &r, len(steps), steps[len(steps)-1].reply, m.fx.Principal)
	}
}

// missingInput runs at every state that asks (every gate too): a
// continuation sent there without answers is asked the same again.
func (m *matrix[F]) missingInput(t tb) {
	if !m.asks(t, "nothing can be missing") {
		return
	}
	for _, s := range m.g.interactiveStates() {
		t.sub("at "+s.Name, func(t tb) {
			m := m.at("at " + s.Name)
			asksHere := func(steps []step) bool { return asksState(m.d, steps[len(steps)-1].reply, s.Name) }
			r, h, steps := m.find(t, fmt.Sprintf("a workflow that asks at %s", s.Name), m.candidates(s.Name), nil,
				asksHere, func(_ *route, steps []step) bool { return asksHere(steps) })
			asked := steps[len(steps)-1].reply
			again, err := h.Call(context.Background(), r.args, asked.RequestState, mcp.InputResponseMap{})
			if err != nil || !again.NeedsInput() || !slices.Equal(keys(again.InputRequests), keys(asked.InputRequests)) {
				m.fatal(t, r, &roundError{round: len(steps) + 1, did: did(again, err, h.Principal),
					want: fmt.Sprintf("the same questions %v asked again (the round sent no answers)", keys(asked.InputRequests))})
			}
		})
	}
}

// asksState reports whether reply asks the questions of state name.
func asksState(d *mrtrimpl.Descriptor, reply *mrtr.Reply, name string) bool {
	for key := range reply.InputRequests {
		if !slices.Contains(requestOwners(d, key), name) {
			return false
		}
	}
	return len(reply.InputRequests) > 0
}

// invalidResponse sends, per request key of Fixtures.Invalid, the invalid
// answer where the fixtures' valid one would go: the question must come
// again, saying what to correct.
func (m *matrix[F]) invalidResponse(t tb) {
	if !m.asks(t, "no answer can be invalid") {
		return
	}
	if len(m.fx.Invalid) == 0 && !m.onlyGates() {
		t.Fatalf("%s: %s asks (%s), but Fixtures.Invalid is empty: give, per request key, an answer validation must refuse (or say why none can be in Fixtures.NotApplicable)",
			m.where(), m.d.Name, strings.Join(stateNames(m.g.interactiveStates()), ", "))
	}
	typed := m.typedGates()
	if len(m.fx.Invalid) == 0 && len(typed) == 0 {
		notApplicable(t, "the only questions of %s are confirmation gates, answered yes or no", m.d.Name)
		return
	}
	for _, key := range slices.Sorted(maps.Keys(m.fx.Invalid)) {
		t.sub(key, func(t tb) { m.at("for "+key).invalidAnswer(t, key, m.fx.Invalid[key]) })
	}
	// A typed confirmation refuses a text that is not the one shown: asked
	// again saying so, up to its attempts, then it declines.
	for _, q := range typed {
		if _, given := m.fx.Invalid[q.Key]; given {
			continue
		}
		t.sub(q.Key+" (typed)", func(t tb) {
			m := m.at("for " + q.Key)
			m.invalidAnswer(t, q.Key, Accept(map[string]any{q.GateField: mismatchedText}))
			m.typedExhausted(t, q)
		})
	}
}

// mismatchedText is what the matrix types at a typed confirmation: never
// the text asked for (program texts are not empty; this one has a space
// inside, and is not trimmed away).
const mismatchedText = "not the text \u2009shown"

// typedGates are the typed confirmations of the program.
func (m *matrix[F]) typedGates() []mrtrimpl.RequestInfo {
	var out []mrtrimpl.RequestInfo
	for _, s := range m.g.interactiveStates() {
		for _, q := range s.Requests {
			if q.Typed {
				out = append(out, q)
			}
		}
	}
	return out
}

// typedExhausted types a wrong text at typed confirmation q as many times
// as it takes texts: each but the last is asked again, the last leaves the
// gate as declining does (the question is not asked again).
func (m *matrix[F]) typedExhausted(t tb, q mrtrimpl.RequestInfo) {
	owner := requestOwner(m.d, q.Key)
	var at step
	round := 0
	r, h, _ := m.find(t, fmt.Sprintf("a workflow that asks for %q (state %s)", q.Key, owner.Name), m.candidates(owner.Name),
		func(i int, s step) bool {
			if _, ok := s.responses[q.Key]; ok {
				at, round = s, i+1
				return true
			}
			return false
		}, nil,
		func(*route, []step) bool { return at.state != "" })
	state := at.state
	for attempt := 1; attempt <= owner.MaxAttempts; attempt++ {
		responses := maps.Clone(at.responses)
		responses[q.Key] = Accept(map[string]any{q.GateField: mismatchedText})
		reply, err := h.Call(context.Background(), r.args, state, responses)
		if err != nil {
			m.fatal(t, r, &roundError{round: round, want: fmt.Sprintf("mismatch %d of %d at %q taken", attempt, owner.MaxAttempts, q.Key), did: did(reply, err, h.Principal)})
		}
		_, again := reply.InputRequests[q.Key]
		if attempt < owner.MaxAttempts && !again {
			m.fatal(t, r, &roundError{round: round, want: fmt.Sprintf("%q asked again after mismatch %d of %d", q.Key, attempt, owner.MaxAttempts), did: did(reply, err, h.Principal)})
		}
		if attempt == owner.MaxAttempts && again {
			m.fatal(t, r, &roundError{round: round, want: fmt.Sprintf("the gate left as declined after %d mismatches", owner.MaxAttempts), did: fmt.Sprintf("it asked for %q again", q.Key)})
		}
		if !reply.NeedsInput() {
			return
		}
		state, at.responses = reply.RequestState, mcp.InputResponseMap{}
		round++
	}
}

func (m *matrix[F]) invalidAnswer(t tb, key string, bad mcp.InputResponse) {
	owner := requestOwner(m.d, key)
	if owner == nil {
		t.Fatalf("%s: Fixtures.Invalid has an answer to %q, which %s never asks", m.where(), key, m.d.Name)
	}
	var at step
	round := 0
	r, h, _ := m.find(t, fmt.Sprintf("a workflow that asks for %q (state %s)", key, owner.Name), m.candidates(owner.Name),
		func(i int, s step) bool {
			if _, ok := s.responses[key]; ok {
				at, round = s, i+1
				return true
			}
			return false
		}, nil,
		func(*route, []step) bool { return at.state != "" })
	responses := maps.Clone(at.responses)
	responses[key] = bad
	reply, err := h.Call(context.Background(), r.args, at.state, responses)
	want := fmt.Sprintf("%q asked again, saying what to correct (it was sent %s)", key, responseText(bad))
	if err != nil || !reply.NeedsInput() || reply.InputRequests[key] == nil {
		m.fatal(t, r, &roundError{round: round, want: want, did: did(reply, err, h.Principal)})
	}
	if ep, ok := reply.InputRequests[key].(*mcp.ElicitParams); ok && !strings.Contains(ep.Message, problem.CorrectPrefix) {
		m.fatal(t, r, &roundError{round: round, want: want, did: fmt.Sprintf("it asked again with %q, which says nothing to correct", ep.Message)})
	}
}

// onlyGates reports whether every question the program asks is a
// confirmation gate.
func (m *matrix[F]) onlyGates() bool {
	for _, s := range m.g.interactiveStates() {
		for _, q := range s.Requests {
			if q.GateField == "" {
				return false
			}
		}
	}
	return true
}

// expired continues a workflow once its requestState outlived its TTL.
func (m *matrix[F]) expired(t tb) {
	if !m.asks(t, noState) {
		return
	}
	r, h, first, responses := m.firstAsk(t)
	h.Clock.Advance(m.d.TTL + seal.DefaultSkew + 1e9)
	reply, err := h.Call(context.Background(), r.args, first.RequestState, responses)
	if !IsInvalidState(err) {
		m.fatal(t, r, &roundError{round: 2, want: fmt.Sprintf("%s: the requestState expired (TTL %s)", restartError, m.d.TTL),
			did: did(reply, err, h.Principal)})
	}
}

// tampered continues a workflow with its requestState altered three ways.
func (m *matrix[F]) tampered(t tb) {
	if !m.asks(t, noState) {
		return
	}
	r, h, first, responses := m.firstAsk(t)
	token := first.RequestState
	for _, bad := range []struct{ how, token string }{
		{"one character changed", Tamper(token)},
		{"text appended", token + "-TAMPERED"},
		{"the last character cut", token[:len(token)-1]},
	} {
		reply, err := h.Call(context.Background(), r.args, bad.token, responses)
		if !IsInvalidState(err) {
			m.fatal(t, r, &roundError{round: 2, want: fmt.Sprintf("%s for a requestState with %s", restartError, bad.how),
				did: did(reply, err, h.Principal)})
		}
	}
}

// otherCaller continues the principal's workflow as Fixtures.Other.
func (m *matrix[F]) otherCaller(t tb) {
	if !m.asks(t, noState) {
		return
	}
	if m.fx.Other == "" {
		t.Fatalf("%s: %s issues requestStates, but the fixtures have no second authorized principal (Fixtures.Other)", m.where(), m.d.Name)
	}
	r, h, first, responses := m.firstAsk(t)
	h.Principal = m.fx.Other
	reply, err := h.Call(context.Background(), r.args, first.RequestState, responses)
	if !IsInvalidState(err) {
		m.fatal(t, r, &roundError{round: 2, did: did(reply, err, m.fx.Other),
			want: fmt.Sprintf("%s: the requestState was issued to %s, and %s sent it", restartError, caller(m.fx.Principal), caller(m.fx.Other)),
			hint: authorizeHint(reply, "Fixtures.Other", m.fx.Other, r.args)})
	}
}

// otherArguments continues the workflow with other arguments.
func (m *matrix[F]) otherArguments(t tb) {
	if !m.asks(t, noState) {
		return
	}
	if !hasArguments(m.d) {
		notApplicable(t, "%s takes no arguments", m.d.Name)
		return
	}
	if m.fx.OtherArgs == nil {
		t.Fatalf("%s: %s takes arguments, but the fixtures have no second set of them (Fixtures.OtherArgs)", m.where(), m.d.Name)
	}
	r, h, first, responses := m.firstAsk(t)
	other := m.fx.OtherArgs
	if sameJSON(other, r.args) {
		other = m.fx.Args // the workflow found runs on a variant's arguments
	}
	if sameJSON(other, r.args) {
		t.Fatalf("%s: Fixtures.OtherArgs are the arguments of %s", m.where(), r.name)
	}
	reply, err := h.Call(context.Background(), other, first.RequestState, responses)
	if !IsInvalidState(err) {
		hint := authorizeHint(reply, "Fixtures.Principal", h.Principal, other)
		if reply != nil && !reply.NeedsInput() && reply.Final.Outcome == mrtr.OutcomeInvalidArguments {
			hint = "Fixtures.OtherArgs must be valid arguments, or validation refuses them before the requestState is checked"
		}
		m.fatal(t, r, &roundError{round: 2, did: did(reply, err, h.Principal), hint: hint,
			want: fmt.Sprintf("%s: the requestState is bound to %s and was sent with %s", restartError, jsonText(r.args), jsonText(other))})
	}
}

func sameJSON(a, b any) bool {
	x, err1 := marshalArgs(a)
	y, err2 := marshalArgs(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// duplicateFinal races copies of the round that runs each effect (of the
// final round, for a program without effects): they reply alike, and
// together perform no more side effects than the round does once.
func (m *matrix[F]) duplicateFinal(t tb) {
	if !m.asks(t, "every call is a first call, and a retried first call is a new workflow") {
		return
	}
	effects := m.g.effectStates()
	if len(effects) == 0 {
		t.sub("final round", func(t tb) { m.at("at the final round").duplicateLast(t) })
		return
	}
	for _, e := range effects {
		t.sub("at "+e.Name, func(t tb) { m.at("at "+e.Name).duplicateEffect(t, e) })
	}
}

// duplicateLast races the final round of a workflow of two rounds or more.
func (m *matrix[F]) duplicateLast(t tb) {
	var via []string
	if asker := m.g.interactiveStates(); len(asker) > 0 {
		via = []string{asker[0].Name}
	}
	r, _, steps := m.find(t, "a workflow of two rounds or more", m.candidates(via...), nil, nil,
		func(_ *route, steps []step) bool { return len(steps) >= 2 && !steps[len(steps)-1].reply.NeedsInput() })
	m.race(t, r, len(steps)-1, steps[len(steps)-1].reply.Path)
}

// duplicateEffect races the round that runs effect e, when it can run in
// a round after the first.
func (m *matrix[F]) duplicateEffect(t tb, e *mrtrimpl.StateInfo) {
	asker := m.g.askerBefore(e.Name)
	if asker == "" {
		notApplicable(t, "effect %s runs only in a first round (no state that asks comes before it): a retried first call is a new workflow (%q covers a repeated operation id)", e.Name, ScenarioBusinessKey)
		return
	}
	k := -1
	r, _, steps := m.find(t, fmt.Sprintf("a workflow that runs effect %s in a round after the first (after %s)", e.Name, asker),
		m.candidates(asker, e.Name), nil, nil,
		func(_ *route, steps []step) bool {
			for i, s := range steps[1:] {
				if slices.Contains(s.reply.Path, e.Name) {
					k = i + 1
					return true
				}
			}
			return false
		})
	m.race(t, r, k, steps[k].reply.Path)
}

// race drives r on a new harness up to round k+1 (0-based k ≥ 1), sends
// that round several times at once, then once more late. path is what the
// round ran when r was first driven.
func (m *matrix[F]) race(t tb, r *route, k int, path []string) {
	t.Helper()
	h := m.newHarness(t)
	steps, err := m.drive(h, r, func(i int, _ step) bool { return i == k }, nil)
	if err != nil {
		m.fatal(t, r, err)
	}
	round := k + 1
	if len(steps) != k {
		m.fatal(t, r, &roundError{round: len(steps), want: fmt.Sprintf("the workflow to reach round %d again", round),
			did: did(steps[len(steps)-1].reply, nil, h.Principal) + ", the second time it was driven"})
	}
	prev := steps[k-1].reply
	responses, err := respondOn(h, m.d, r, prev, r.leaveAt(k-1))
	if err != nil {
		m.fatal(t, r, &roundError{round: k, want: "questions the fixtures can answer", did: err.Error()})
	}
	before := m.count()
	n := m.fx.Duplicates
	replies, errs := make([]*mrtr.Reply, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { replies[i], errs[i] = h.Call(context.Background(), r.args, prev.RequestState, responses) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			m.fatal(t, r, &roundError{round: round, want: fmt.Sprintf("each of %d racing copies of the round to get its reply", n),
				did: fmt.Sprintf("copy %d: %s", i+1, callFailed(errs[i]))})
		}
		if diff := replyDiff(replies[0], replies[i]); diff != "" {
			m.fatal(t, r, &roundError{round: round, want: fmt.Sprintf("%d racing copies of the round to get the same reply", n),
				did: fmt.Sprintf("copies 1 and %d differ: %s", i+1, diff)})
		}
	}
	if !replies[0].NeedsInput() {
		m.wantEnd(t, r, round, replies[0], h.Principal)
	}
	perRound := 0
	for _, name := range path {
		if s := stateNamed(m.d, name); s != nil && s.Kind == vocab.StateEffect {
			perRound++
		}
	}
	if got := m.count() - before; got > perRound {
		m.fatal(t, r, &roundError{round: round, did: fmt.Sprintf("%d racing copies performed %d", n, got),
			want: fmt.Sprintf("at most %d side effects, as the round performs once (%s)", perRound, strings.Join(path, PathSeparator))})
	}
	// And a late retry replays too.
	again, err := h.Call(context.Background(), r.args, prev.RequestState, responses)
	if err != nil {
		m.fatal(t, r, &roundError{round: round, want: "a late retry of the round to replay its reply", did: callFailed(err)})
	}
	if diff := replyDiff(replies[0], again); diff != "" {
		m.fatal(t, r, &roundError{round: round, want: "a late retry of the round to replay its reply", did: "it replied otherwise: " + diff})
	}
}
