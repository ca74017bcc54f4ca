package mrtr

import (
	"slices"
	"sync"

	"github.com/mrtrgen/mrtrgen/internal/machine"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Capabilities every way through a workflow needs: a client without one of
// them is refused at the first round, before anything is asked and before
// any handler method runs. Without this, a workflow whose every way on asks
// the model (sampling) would ask a client without sampling its first
// questions, run its checks, maybe an effect, and refuse only when it
// reached the sampling request: work and answers for nothing.

// pathNeeds caches everyPathNeeds per descriptor (descriptors are
// generated package variables: a program's pointer never changes).
var pathNeeds sync.Map // *mrtrimpl.Descriptor -> []vocab.Capability

// needsOnEveryPath returns everyPathNeeds(d), computed once per descriptor.
func needsOnEveryPath(d *mrtrimpl.Descriptor) []vocab.Capability {
	if v, ok := pathNeeds.Load(d); ok {
		return v.([]vocab.Capability)
	}
	v, _ := pathNeeds.LoadOrStore(d, everyPathNeeds(d))
	return v.([]vocab.Capability)
}

// everyPathNeeds returns, sorted, the client capabilities without which no
// walk of d's declared transitions from its initial state reaches a
// terminal state that ends in success or failed: each walk there passes a
// state that a client without the capability is refused at (-32021, see
// askReply). A capability only some walks need is not in it: those
// clients keep being served until they reach such a state, as before.
//
// The ends not counted are the user's refusals (a terminal of outcome
// cancelled, and the implicit end of a declined or cancelled ask or gate,
// which is no transition) and the handlers' refusals (mrtr.Reject, a
// failure), which are no transitions either: a workflow that only such an
// end can finish for a client cannot do its job for it.
//
// A program without any walk to such a terminal needs nothing up front.
func everyPathNeeds(d *mrtrimpl.Descriptor) []vocab.Capability {
	g := d.Graph()
	if g.Initial() < 0 {
		return nil
	}
	ends := machine.NewSet(g.Len())
	for i := range d.States {
		if s := &d.States[i]; s.Kind == vocab.StateTerminal && s.End != vocab.OutcomeCancelled {
			ends.Add(i)
		}
	}
	reaches := func(blocked func(int) bool) bool {
		if blocked(g.Initial()) {
			return false
		}
		found := false
		g.Spread([]int{g.Initial()}, func(e machine.Edge) bool { return !blocked(e.To) }).Each(func(i int) bool {
			found = ends.Has(i)
			return !found
		})
		return found
	}
	if !reaches(func(int) bool { return false }) {
		return nil
	}
	var needs []vocab.Capability
	for _, c := range requestedCapabilities(d) {
		if !reaches(func(i int) bool { return stateNeeds(&d.States[i], c) }) {
			needs = append(needs, c)
		}
	}
	slices.Sort(needs)
	return needs
}

// stateNeeds reports whether a client without capability c is refused at
// state s (askReply): a request of s that is not optional needs c, or
// every request of s does (none of them could be sent). An approval gate
// needs nothing: a client that cannot be asked is told where the approval
// waits (roundapproval.go).
func stateNeeds(s *mrtrimpl.StateInfo, c vocab.Capability) bool {
	if len(s.Requests) == 0 || s.Approval {
		return false
	}
	all := true
	for _, q := range s.Requests {
		needs := q.Kind.Capability() == c
		if needs && !q.Optional {
			return true
		}
		all = all && needs
	}
	return all
}

// requestedCapabilities lists each capability a request of d needs, once.
func requestedCapabilities(d *mrtrimpl.Descriptor) []vocab.Capability {
	var caps []vocab.Capability
	for _, s := range d.States {
		for _, q := range s.Requests {
			if c := q.Kind.Capability(); !slices.Contains(caps, c) {
				caps = append(caps, c)
			}
		}
	}
	return caps
}
