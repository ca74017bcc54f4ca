package mrtr_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/evolve/after"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/evolve/before"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/evolve/evolvetest"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// evolveBuild serves one build of the evolve spec over HTTP on an engine
// that shares codec and store with the other build.
func evolveBuild(t *testing.T, name string, register func(*mcp.Server, *mrtr.Engine), codec *seal.Codec, st store.Store) *evolvetest.Build {
	t.Helper()
	log := &evolvetest.RejectionLog{}
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "evolve", Codec: codec, Store: st, Logger: slog.New(log), Instance: name})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "evolve-" + name, Version: name}, nil)
	register(s, e)
	ts := httptest.NewServer(mrtr.Handler(s, nil))
	t.Cleanup(ts.Close)
	cs, err := evolvetest.Connect(context.Background(), ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &evolvetest.Build{Name: name, Session: cs, Rejections: log.Reasons}
}

// Every change of docs/evolution.md, in both directions where the change
// allows it: a workflow started on the build before a deploy finishes on
// the build after it (and the reverse) when the change is compatible, and
// is refused with the documented log reason when it is not. One store and
// one key ring, as a fleet in a rolling deploy has.
func TestEvolution(t *testing.T) {
	clock := mrtrtest.NewClock()
	codec := mrtrtest.NewCodec(t, clock)
	st := store.NewMemory(store.Options{Now: clock.Now})
	b := evolveBuild(t, evolvetest.Before, before.Register, codec, st)
	a := evolveBuild(t, evolvetest.After, after.Register, codec, st)
	for _, c := range evolvetest.Cases {
		for _, d := range c.Directions(b, a) {
			t.Run(c.Name+"/"+d[0].Name+" to "+d[1].Name, func(t *testing.T) {
				if err := evolvetest.Play(context.Background(), c, d[0], d[1]); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// The continuations recorded on the build before (its generated suites'
// testdata, mrtrtest.RecordContinuations) opened with the build after, as
// the recorded-continuations test of a repository opens them once its spec
// changed: the changes that strand waiting workflows are named with their
// reasons, and every other recording opens.
func TestRecordedContinuationsAcrossTheChange(t *testing.T) {
	dir := func(tool string) string {
		return filepath.Join("internal", "evolve", "before", "testdata", "continuations", tool)
	}
	var got []mrtrtest.Stranded
	for _, open := range []func() []mrtrtest.Stranded{
		func() []mrtrtest.Stranded {
			return mrtrtest.OpenRecorded(t, after.NewArgumentRetypedProgram(after.ArgumentRetypedImpl{}), dir("argument_retyped"))
		},
		func() []mrtrtest.Stranded {
			return mrtrtest.OpenRecorded(t, after.NewConstraintNarrowedProgram(after.ConstraintNarrowedImpl{}), dir("constraint_narrowed"))
		},
		func() []mrtrtest.Stranded {
			return mrtrtest.OpenRecorded(t, after.NewEnumRemovedProgram(after.EnumRemovedImpl{}), dir("enum_removed"))
		},
		func() []mrtrtest.Stranded {
			return mrtrtest.OpenRecorded(t, after.NewEnumValuesProgram(after.EnumValuesImpl{}), dir("enum_values"))
		},
		func() []mrtrtest.Stranded {
			return mrtrtest.OpenRecorded(t, after.NewFieldRemovedProgram(after.FieldRemovedImpl{}), dir("field_removed"))
		},
		func() []mrtrtest.Stranded {
			return mrtrtest.OpenRecorded(t, after.NewGateChangedProgram(after.GateChangedImpl{}), dir("gate_changed"))
		},
		func() []mrtrtest.Stranded {
			return mrtrtest.OpenRecorded(t, after.NewMessagesChangedProgram(after.MessagesChangedImpl{}), dir("messages_changed"))
		},
		func() []mrtrtest.Stranded {
			return mrtrtest.OpenRecorded(t, after.NewOptionalArgumentProgram(after.OptionalArgumentImpl{}), dir("optional_argument"))
		},
		func() []mrtrtest.Stranded {
			return mrtrtest.OpenRecorded(t, after.NewOptionalFieldsProgram(after.OptionalFieldsImpl{}), dir("optional_fields"))
		},
		func() []mrtrtest.Stranded {
			return mrtrtest.OpenRecorded(t, after.NewPendingEnumAppendedProgram(after.PendingEnumAppendedImpl{}), dir("pending_enum_appended"))
		},
		func() []mrtrtest.Stranded {
			return mrtrtest.OpenRecorded(t, after.NewPendingEnumNarrowedProgram(after.PendingEnumNarrowedImpl{}), dir("pending_enum_narrowed"))
		},
		func() []mrtrtest.Stranded {
			return mrtrtest.OpenRecorded(t, after.NewStateKindChangedProgram(after.StateKindChangedImpl{}), dir("state_kind_changed"))
		},
		func() []mrtrtest.Stranded {
			return mrtrtest.OpenRecorded(t, after.NewStateRenamedProgram(after.StateRenamedImpl{}), dir("state_renamed"))
		},
		func() []mrtrtest.Stranded {
			return mrtrtest.OpenRecorded(t, after.NewStatesAddedProgram(after.StatesAddedImpl{}), dir("states_added"))
		},
		func() []mrtrtest.Stranded {
			return mrtrtest.OpenRecorded(t, after.NewStorageChangedProgram(after.StorageChangedImpl{}), dir("storage_changed"))
		},
		func() []mrtrtest.Stranded {
			return mrtrtest.OpenRecorded(t, after.NewTypeChangedProgram(after.TypeChangedImpl{}), dir("type_changed"))
		},
	} {
		got = append(got, open()...)
	}
	var lines []string
	for _, s := range got {
		lines = append(lines, filepath.Base(filepath.Dir(s.File))+"/"+filepath.Base(s.File)+" "+s.Reason)
	}
	// The generated fake sets no continuation field, so the recordings of
	// type_changed and enum_removed hold no value the change touched: they
	// open (a token that carries nothing the change touched still opens).
	// The gate's own recording (waiting at the gate, not past it) opens
	// too: its question is asked again.
	want := []string{
		"argument_retyped/askFirst.json binding",
		"argument_retyped/askSecond.json binding",
		"constraint_narrowed/askSecond.json constraint_narrowed",
		"gate_changed/askReason.json gate_changed",
		"state_kind_changed/check.json state_changed",
		"state_renamed/askCode.json state_removed",
		"storage_changed/askFirst.json storage_changed",
		"storage_changed/askSecond.json storage_changed",
	}
	if !slices.Equal(lines, want) {
		t.Fatalf("stranded:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// The recordings of the build before were minted by a build that pinned
// every question by all it sends (the full question digest). Answered on
// this build of the same spec, their answers still count: a form ask and a
// gate each take the answer and move on, none is asked again.
func TestPreviousBuildPinsStillCount(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("internal", "evolve", "before", "testdata", "continuations")
	next := func(t *testing.T, rec mrtrtest.Recorded, reply *mrtr.Reply, err error, want string) {
		t.Helper()
		if err != nil || !reply.NeedsInput() || reply.InputRequests[want] == nil || len(reply.InputRequests) != 1 {
			t.Fatalf("%s/%s answered: %+v, %v; want it to ask %s next", rec.Tool, rec.State, reply, err, want)
		}
	}
	t.Run("a form ask", func(t *testing.T) {
		rec := readRecording(t, filepath.Join(dir, "enum_values", "askSize.json"))
		h := mrtrtest.New(t, before.NewEnumValuesProgram(before.EnumValuesImpl{}))
		h.Principal = rec.Principal
		reply, err := h.Call(ctx, rec.Arguments, rec.RequestState, mcp.InputResponseMap{"size": mrtrtest.Accept(map[string]any{"pick": "m"})})
		next(t, rec, reply, err, "note")
	})
	t.Run("a gate", func(t *testing.T) {
		rec := readRecording(t, filepath.Join(dir, "gate_changed", "confirmDelete.json"))
		h := mrtrtest.New(t, before.NewGateChangedProgram(before.GateChangedImpl{}))
		h.Principal = rec.Principal
		reply, err := h.Call(ctx, rec.Arguments, rec.RequestState, mcp.InputResponseMap{"confirm": mrtrtest.Accept(map[string]any{"confirm": true})})
		next(t, rec, reply, err, "reason")
	})
}

func readRecording(t *testing.T, path string) mrtrtest.Recorded {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec mrtrtest.Recorded
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rec
}

// docs/evolution.md's table of incompatible changes and the runtime agree:
// every rule has a case of mrtr/internal/evolve that the runtime refuses
// with the documented log reason (TestEvolution, TestCrossBuild), and
// every such case is in the table.
func TestEvolutionDocMatchesRuntime(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "evolution.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(b), "## Incompatible changes")
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|.*\\| `([a-z_]+)`[^|]*\\|$")
	var doc []string
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		doc = append(doc, m[1]+" "+m[2])
	}
	var cases []string
	for _, c := range evolvetest.Cases {
		if c.Rule != "" {
			cases = append(cases, c.Rule+" "+c.Reason)
		}
	}
	if len(doc) < 8 {
		t.Fatalf("found %d rules in docs/evolution.md; the table pattern no longer matches", len(doc))
	}
	if !slices.Equal(doc, cases) {
		t.Fatalf("docs/evolution.md's rules and reasons:\n%s\nthe cases the runtime is tested with:\n%s", strings.Join(doc, "\n"), strings.Join(cases, "\n"))
	}
}
