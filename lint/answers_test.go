package lint

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// refNotGiven simulates the generated state machine for one answer: the
// pairs (state, answered) a workflow can be in on entering a state, where
// entering the ask forgets its answer and leaving it by next gives it. It
// returns the states that can be entered without the answer, as seen by a
// template of that state (so the ask itself always lacks it).
func refNotGiven(t *spec.Tool, owner string) map[string]bool {
	type pair struct {
		state    string
		answered bool
	}
	seen := map[pair]bool{}
	var walk func(pair)
	walk = func(p pair) {
		s := t.State(p.state)
		if s == nil || seen[p] {
			return
		}
		seen[p] = true
		if p.state == owner {
			p.answered = false
		}
		for _, e := range s.Edges() {
			walk(pair{e.To, p.answered || (p.state == owner && e.On == "next" && s.Kind == vocab.StateAsk)})
		}
	}
	walk(pair{t.Initial, false})
	out := map[string]bool{}
	for p := range seen {
		if !p.answered || p.state == owner {
			out[p.state] = true
		}
	}
	return out
}

// The answer analysis agrees with a simulation of the state machine on
// random workflows, and its witness walks are real walks that end where
// the answer is missing.
func TestAnswersAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := range 300 {
		tool := randomTool(r, 1+r.IntN(25))
		for _, s := range tool.States {
			if s.Kind == vocab.StateAsk {
				s.Requests = []*spec.InputRequest{{Key: "k" + s.Name, Kind: vocab.Elicit}}
			}
		}
		c := &checker{graphs: map[*spec.Tool]*graph{}}
		flow := c.answers(tool)
		for _, owner := range tool.States {
			if owner.Kind != vocab.StateAsk {
				continue
			}
			key := "k" + owner.Name
			want := refNotGiven(tool, owner.Name)
			for i, s := range tool.States {
				if flow.given[i] == nil {
					if want[s.Name] {
						t.Fatalf("iter %d: %s is reachable without %s but the analysis never reached it", iter, s.Name, key)
					}
					continue
				}
				missing := !flow.at(i).Has(flow.keys[key])
				if missing != want[s.Name] {
					t.Fatalf("iter %d: answer %s missing at %s = %v, simulation says %v", iter, key, s.Name, missing, want[s.Name])
				}
				if missing && s.Name != owner.Name {
					w := flow.witness(i, key)
					if !strings.HasSuffix(w, s.Name) || !strings.HasPrefix(w, tool.Initial) {
						t.Fatalf("iter %d: witness %q for %s at %s", iter, w, key, s.Name)
					}
				}
			}
		}
	}
}

// Findings name a walk that shows the problem.
func TestFindingsNameTheWalk(t *testing.T) {
	for path, walks := range map[string][]string{
		"testdata/rules/irreversible-without-confirmation.mrtr.yaml": {"lookup>confirmWipe>(cancel)recheck>wipe", "lookup>confirmErase>(decline)recheck>erase"},
		"testdata/rules/answer-not-given.mrtr.yaml":                  {"inspect>(hotfix)askRollout>confirmDeploy", "inspect>(current)done", "lookup>(linked)move"},
	} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, ds := loadAndLint(path, data)
		text := ds.Error()
		for _, w := range walks {
			if !strings.Contains(text, "walk "+w) {
				t.Errorf("%s: no finding names the walk %s:\n%s", path, w, text)
			}
		}
	}
}

// A template reading a field only one state's own form of a question adds
// is warned about, naming the state that asks the question without it;
// inside a section on that field it is not.
func TestExtensionFieldInTemplate(t *testing.T) {
	data, err := os.ReadFile("../generator/testdata/golden/branchforms/tickets.mrtr.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const end = "message: Ticket {ticketId} is closed ({closing.closeReason})."
	if !strings.Contains(string(data), end) {
		t.Fatal("the golden spec's end message changed")
	}
	for _, tc := range []struct {
		message, want string
	}{
		{"message: Ticket {ticketId} is closed ({closing.closeReason}, {closing.ticket}).", `form field closing.ticket is added by a state's own form (extend), and "askCustomer" asks question closing without it`},
		{"message: Ticket {ticketId} is closed ({closing.closeReason}{?closing.ticket}, {closing.ticket}{/closing.ticket}).", ""},
	} {
		_, ds := loadAndLint("t.mrtr.yaml", []byte(strings.Replace(string(data), end, tc.message, 1)))
		var got []string
		for _, d := range ds {
			if d.Rule == "optional-value-in-template" {
				got = append(got, d.Pos.String()+" "+d.Message)
			}
		}
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%s: unexpected %v", tc.message, got)
		case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want) || !strings.HasPrefix(got[0], "t.mrtr.yaml:63:")):
			t.Errorf("%s: got %v, want one finding at line 63 saying %s", tc.message, got, tc.want)
		}
	}
}
