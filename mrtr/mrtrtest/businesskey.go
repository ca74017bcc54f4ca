package mrtrtest

import (
	"errors"
	"fmt"
	"slices"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// businessKey runs, for every effect whose operation id is a business key
// (it does not name the workflow), two workflows through it on one store:
// the second may end earlier (a real check may notice that the thing was
// done, or an answer the first took may be refused now that its option is
// gone), but when it reaches the effect it is refused, and it performs no
// side effects but those of the workflow's own effects before that one.
func (m *matrix[F]) businessKey(t tb) {
	var shared []*mrtrimpl.StateInfo
	for _, s := range m.g.effectStates() {
		if s.BusinessKey {
			shared = append(shared, s)
		}
	}
	if len(shared) == 0 {
		notApplicable(t, "no effect of %s has a business operation id", m.d.Name)
		return
	}
	for _, e := range shared {
		t.sub("at "+e.Name, func(t tb) { m.at("at "+e.Name).secondWorkflow(t, e) })
	}
}

// secondWorkflow drives a workflow through effect e, then, Fixtures.Reset
// called, a second one with the same arguments and answers on the same
// store.
func (m *matrix[F]) secondWorkflow(t tb, e *mrtrimpl.StateInfo) {
	var path []string
	r, h, _ := m.find(t, fmt.Sprintf("a workflow that passes effect %s and ends as it should", e.Name),
		m.candidates(e.Name), nil, nil,
		func(r *route, steps []step) bool {
			path = nil
			for _, s := range steps {
				path = append(path, s.reply.Path...)
			}
			// It must end as it should, or the effect's outcome may
			// not have been recorded.
			end := steps[len(steps)-1].reply
			return slices.Contains(path, e.Name) && !end.NeedsInput() && end.Final.Outcome == r.want
		})
	ownBefore := 0
	for _, name := range path[:slices.Index(path, e.Name)] {
		if s := stateNamed(m.d, name); s != nil && s.Kind == vocab.StateEffect {
			ownBefore++
		}
	}
	m.reset()
	before := m.count()
	second, err := m.drive(h, r, nil, nil)
	refused, _ := errors.AsType[*roundError](err)
	if refused != nil && (refused.refused == nil || m.fx.Reset != nil) {
		refused = nil
	}
	if err != nil && refused == nil {
		m.fatal(t, r, fmt.Errorf("the second workflow: %w", err))
	}
	reached := false
	for i, s := range second {
		if !slices.Contains(s.reply.Path, e.Name) {
			continue
		}
		// The round that reaches the effect must be refused there, and
		// end the workflow.
		reached = true
		if s.reply.NeedsInput() || s.reply.Final.Outcome != mrtr.OutcomeRejected {
			m.fatal(t, r, &roundError{round: i + 1, did: did(s.reply, nil, h.Principal),
				want: fmt.Sprintf("a second workflow that reached effect %s (operation id %s) to be refused there, not go on", e.Name, e.OperationID),
				hint: fmt.Sprintf("The engine refuses an operation id it recorded: the second workflow's id must be the first's (a template field that differs between two workflows, such as a value a check sets, gives it another), "+
					"and the store must keep the first's effect record (mrtrtest.WithStore)%s", resetNote(m.fx.Reset != nil))})
		}
		break
	}
	if got := m.count() - before; got > ownBefore {
		m.fatal(t, r, &roundError{round: len(second), did: fmt.Sprintf("the second workflow performed %d", got),
			want: fmt.Sprintf("at most %d side effects (its own before %s) in the second workflow", ownBefore, e.Name)})
	}
	switch {
	case refused != nil:
		t.Logf("the second workflow was asked again in round %d for %s: an answer the first workflow took is refused now (the first's effects changed what the handler offers), "+
			"so it ended before effect %s and there was nothing to refuse. To have it reach %s and be refused there, give Fixtures.Reset: the matrix calls it between the two workflows to put back what the first changed",
			refused.round, questions(refused.refused), e.Name, e.Name)
	case !reached:
		t.Logf("the second workflow ended before effect %s (%s): its handler noticed the first had done it; nothing to refuse", e.Name, did(second[len(second)-1].reply, nil, h.Principal))
	default:
		t.Logf("the second workflow was refused at effect %s", e.Name)
	}
}

// resetNote is what a failure of the second workflow adds about
// Fixtures.Reset, when it was called between the workflows.
func resetNote(called bool) string {
	if !called {
		return ""
	}
	return "; Fixtures.Reset ran between the two workflows: it must not reset the engine's store"
}
