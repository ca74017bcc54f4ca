package mrtrtest

import (
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
)

// A handler that keeps asking: unlock loops back to its question until a
// check accepts the code, and the fixtures send a code it never accepts.
// Every path that drives rounds stops at the round limit, and says so
// with the question the last round asked. Rounds are counted (the check
// runs once in every round after the first), not timed.

var wrongCode = Accept(map[string]any{"digits": "0000"})

const lastQuestion = `it asked for "code" ("Enter the code of door front."), as round `

func keepAskingFixtures() Fixtures {
	return Fixtures{
		Args:         map[string]any{"door": "front"},
		Answers:      map[string]mcp.InputResponse{"code": wrongCode},
		Invalid:      map[string]mcp.InputResponse{"code": Accept(map[string]any{"digits": "x"})},
		Other:        "bob",
		Unauthorized: "mallory",
		OtherArgs:    map[string]any{"door": "back"},
		NotApplicable: map[string]string{
			ScenarioUnauthorized: "the test handler refuses no one",
			ScenarioDependency:   "the test handler has no dependency",
		},
	}
}

// failureOf is the failure of scenario name among failures ("" if none).
func failureOf(failures []string, name string) string {
	for _, f := range failures {
		if strings.HasPrefix(f, name+": ") || strings.HasPrefix(f, name+"/") {
			return f
		}
	}
	return ""
}

func TestMatrixStopsAHandlerThatKeepsAsking(t *testing.T) {
	for _, limit := range []int{0, 5} {
		h := &testprog.UnlockImpl{}
		rec := newRecorder(t)
		var opts []Option
		if limit > 0 {
			opts = append(opts, WithMaxRounds(limit))
		}
		rec.run(rec, func(t tb) { runMatrix(t, testprog.NewUnlockProgram(h), keepAskingFixtures(), opts) })
		failures := rec.failures()
		n := limit
		if n == 0 {
			n = DefaultMaxRounds
		}
		want := map[string]string{
			ScenarioCompleteInput:  `scenario "complete input", round %d: want the workflow to end within %d rounds (the limit of mrtrtest.WithMaxRounds, or Harness.MaxRounds); ` + lastQuestion,
			ScenarioDuplicateFinal: `| round %d: want the workflow to end within %d rounds (the limit`,
			ScenarioHTTP:           `scenario "over HTTP", round %d: want the workflow to end within %d rounds over HTTP (the limit of mrtrtest.WithMaxRounds, or Harness.MaxRounds); ` + lastQuestion,
		}
		for name, format := range want {
			text := strings.ReplaceAll(strings.ReplaceAll(format, "round %d", "round "+strconv.Itoa(n)), "%d rounds", strconv.Itoa(n)+" rounds")
			if f := failureOf(failures, name); !strings.Contains(f, text) || !strings.Contains(f, "The handler keeps asking") {
				t.Errorf("limit %d, %s: failure\n%s\nwant it to contain\n%s", n, name, f, text)
			}
		}
		if len(failures) != len(want) {
			t.Errorf("limit %d: %d failures, want %d:\n%s", n, len(failures), len(want), strings.Join(failures, "\n"))
		}
		// Three workflows reach the limit (complete input, the search for
		// a final round, over HTTP); the other scenarios stop early.
		if got, most := int(h.Checks.Load()), 3*(n-1)+4; got > most {
			t.Errorf("limit %d: the matrix ran %d rounds after a first, want at most %d", n, got, most)
		}
	}
}

// A test that answers until the workflow ends stops at the limit.
func TestDriverStopsAtTheRoundLimit(t *testing.T) {
	for _, limit := range []int{0, 4} {
		unlock := &testprog.UnlockImpl{}
		h := New(t, testprog.NewUnlockProgram(unlock))
		h.MaxRounds = limit
		n := limit
		if n == 0 {
			n = DefaultMaxRounds
		}
		rec := newRecorder(t)
		rec.run(rec, func(t tb) {
			d := Drive(t, h, map[string]any{"door": "front"})
			for i := 0; d.Reply().NeedsInput(); i++ {
				if i > 2*n {
					t.Fatalf("the driver sent %d rounds and goes on", i+1)
				}
				d.Answer(Respond("code", wrongCode))
			}
		})
		want := "unlock, round " + strconv.Itoa(n) + ": want the workflow to end within " + strconv.Itoa(n) + " rounds (the limit of mrtrtest.WithMaxRounds, or Harness.MaxRounds); " +
			lastQuestion + strconv.Itoa(n-1) + " did. The handler keeps asking"
		if f := rec.failures(); len(f) != 1 || !strings.HasPrefix(f[0], want) {
			t.Errorf("failures %q, want one starting %q", f, want)
		}
		if got := int(unlock.Checks.Load()); got != n-1 {
			t.Errorf("%d rounds after the first, want %d", got, n-1)
		}
	}
}

// Over HTTP the same limit holds.
func TestHTTPStopsAtTheRoundLimit(t *testing.T) {
	unlock := &testprog.UnlockImpl{}
	h := New(t, testprog.NewUnlockProgram(unlock), WithMaxRounds(3))
	m := newMatrix(testprog.NewUnlockProgram(unlock), &Fixtures{}, nil)
	err := m.runHTTP(t, h, &route{name: "the fixture workflow", args: map[string]any{"door": "front"},
		answers: map[string]mcp.InputResponse{"code": wrongCode}, want: mrtr.OutcomeSuccess})
	want := "round 3: want the workflow to end within 3 rounds over HTTP (the limit of mrtrtest.WithMaxRounds, or Harness.MaxRounds); " + lastQuestion + "2 did"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want one starting %q", err, want)
	}
	if got := unlock.Checks.Load(); got != 2 {
		t.Fatalf("%d rounds after the first, want 2", got)
	}
}
