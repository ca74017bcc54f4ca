package lint

import "github.com/mrtrgen/mrtrgen/spec"

// Graph questions the rules ask about one workflow's state machine.

// successors maps each state to the names of the states it can go to.
func successors(t *spec.Tool) map[string][]string {
	out := make(map[string][]string, len(t.States))
	for _, s := range t.States {
		for _, e := range s.Edges() {
			out[s.Name] = append(out[s.Name], e.To)
		}
	}
	return out
}

// reachableFrom returns the states reachable from start (start included),
// never entering a state for which stop returns true (other than start).
func reachableFrom(t *spec.Tool, start string, stop func(*spec.State) bool) map[string]bool {
	next := successors(t)
	seen := map[string]bool{}
	queue := []string{start}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		s := t.State(name)
		if s == nil || seen[name] {
			continue
		}
		if name != start && stop != nil && stop(s) {
			continue
		}
		seen[name] = true
		queue = append(queue, next[name]...)
	}
	return seen
}

// reachable returns the states reachable from the initial state.
func reachable(t *spec.Tool) map[string]bool { return reachableFrom(t, t.Initial, nil) }

// pathAvoiding reports whether target can be reached from the initial state
// through states none of which satisfies avoid (the target itself may).
func pathAvoiding(t *spec.Tool, target string, avoid func(*spec.State) bool) bool {
	if t.Initial == target {
		return true
	}
	if s := t.State(t.Initial); s == nil || avoid(s) {
		return false
	}
	return pathBetweenAvoiding(t, t.Initial, target, avoid)
}

// pathBetweenAvoiding reports whether target can be reached from the
// successors of from through states that do not satisfy avoid.
func pathBetweenAvoiding(t *spec.Tool, from, target string, avoid func(*spec.State) bool) bool {
	next := successors(t)
	seen := map[string]bool{}
	queue := append([]string(nil), next[from]...)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if name == target {
			return true
		}
		s := t.State(name)
		if s == nil || seen[name] || avoid(s) {
			continue
		}
		seen[name] = true
		queue = append(queue, next[name]...)
	}
	return false
}

// canEnd returns the states from which some terminal state is reachable.
func canEnd(t *spec.Tool) map[string]bool {
	prev := map[string][]string{}
	for _, s := range t.States {
		for _, e := range s.Edges() {
			prev[e.To] = append(prev[e.To], s.Name)
		}
	}
	ok := map[string]bool{}
	var queue []string
	for _, s := range t.States {
		if s.Kind == spec.StateTerminal {
			queue = append(queue, s.Name)
		}
	}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if ok[name] {
			continue
		}
		ok[name] = true
		queue = append(queue, prev[name]...)
	}
	return ok
}

// after returns the states reachable from s's successors (not s itself,
// unless a cycle leads back to it).
func after(t *spec.Tool, s *spec.State) map[string]bool {
	out := map[string]bool{}
	for _, e := range s.Edges() {
		for name := range reachableFrom(t, e.To, nil) {
			out[name] = true
		}
	}
	return out
}

func isKind(kinds ...spec.StateKind) func(*spec.State) bool {
	return func(s *spec.State) bool {
		for _, k := range kinds {
			if s.Kind == k {
				return true
			}
		}
		return false
	}
}
