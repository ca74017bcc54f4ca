// Hand-written tests of the generated code of this case, run next to it
// by TestGoldenCompile: the transient log is computed by RenderCiLog on
// each render of the question (the first ask, a re-ask in the same round,
// and the resumed round that pins the answer to the question it was
// sent, so a log that changed is shown again instead of answered), it is
// never in the continuation, and its error fails the round.
package builds

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// logHandler serves retry_build with a 1,500-character log, like a real
// CI log tail, of the run as it is at version; renders counts the calls.
type logHandler struct {
	version int
	renders int
	broken  error // RenderCiLog fails with it when set
}

func (h *logHandler) Authorize(context.Context, *RetryBuildFlow) error { return nil }

func (h *logHandler) FindFailedRun(_ context.Context, f *RetryBuildFlow) error {
	f.Continuation.RunID = "4711"
	return nil
}

func (h *logHandler) JobExists(_ context.Context, f *RetryBuildFlow) error {
	if f.Job.Name != "unit" {
		return mrtr.AskAgain("run %s has no job %q", f.Continuation.RunID, f.Job.Name)
	}
	return nil
}

func (h *logHandler) RenderCiLog(_ context.Context, f *RetryBuildFlow) (string, error) {
	if h.broken != nil {
		return "", h.broken
	}
	h.renders++
	head := fmt.Sprintf("log v%d: %s run %s FAILED ", h.version, f.Args.Pipeline, f.Continuation.RunID)
	return head + strings.Repeat("x", 1500-len(head)), nil
}

func TestTransientRenderedEachTime(t *testing.T) {
	h := &logHandler{version: 1}
	d := DriveRetryBuild(t, mrtrtest.New(t, NewRetryBuildProgram(h)), RetryBuildArgs{Pipeline: "ci"})
	d.WantQuestion("job", "log v1: ci run 4711 FAILED")
	if h.renders != 1 {
		t.Fatalf("round 1 rendered the log %d times, want 1", h.renders)
	}
	if token := d.Reply().RequestState; len(token) >= 1500 {
		t.Errorf("requestState is %d bytes: the 1,500-character log must not travel in it", len(token))
	}

	// Round 2: the engine renders the log for the question the answer is
	// pinned to (2: unchanged, so the answer counts); the check refuses
	// the job and the ask runs again in the same round, rendering it again
	// (3) under the check's message.
	d.Answer(RetryBuildJobAnswer{Name: "lint"})
	d.WantQuestion("job", `has no job "lint"`)
	d.WantQuestion("job", "log v1: ci run 4711 FAILED")
	if h.renders != 3 {
		t.Fatalf("after the re-ask the log was rendered %d times, want 3", h.renders)
	}

	// The log changes before the answer comes back: the question the user
	// answered is not the one that would be sent now (4), so the answer does
	// not count and the question is sent again with the new log, rendered
	// once for both (still 4).
	h.version = 2
	d.Answer(RetryBuildJobAnswer{Name: "unit"})
	d.WantQuestion("job", "log v2: ci run 4711 FAILED")
	if h.renders != 4 {
		t.Fatalf("a changed log: rendered %d times, want 4", h.renders)
	}

	// Answered against the current log (5), the job is retried.
	d.Answer(RetryBuildJobAnswer{Name: "unit"})
	d.WantEnd(vocab.OutcomeSuccess, "Retrying unit of run 4711.")
	if h.renders != 5 {
		t.Fatalf("rendered %d times in all, want 5", h.renders)
	}
}

func TestTransientNotInContinuation(t *testing.T) {
	p := NewRetryBuildProgram(&logHandler{})
	f := &RetryBuildFlow{Args: RetryBuildArgs{Pipeline: "ci"}, Continuation: RetryBuildContinuation{RunID: "4711"}}
	without := p.AppendContinuation(nil, f)
	f.Transient.CiLog = "MARKER-" + strings.Repeat("y", 1400)
	with := p.AppendContinuation(nil, f)
	if !bytes.Equal(with, without) || bytes.Contains(with, []byte("MARKER")) {
		t.Fatalf("the continuation carries the transient value: %d bytes with it, %d without", len(with), len(without))
	}
	back := &RetryBuildFlow{}
	if err := p.LoadContinuation(back, with); err != nil {
		t.Fatal(err)
	}
	if back.Transient.CiLog != "" || back.Continuation.RunID != "4711" {
		t.Fatalf("loaded %+v, want the run id and no log", back)
	}
}

func TestTransientErrorFailsRound(t *testing.T) {
	h := &logHandler{broken: errors.New("CI API down")}
	d := DriveRetryBuild(t, mrtrtest.New(t, NewRetryBuildProgram(h)), RetryBuildArgs{Pipeline: "ci"})
	d.WantEnd(vocab.OutcomeError, "")
	if h.renders != 0 {
		t.Fatalf("rendered %d times", h.renders)
	}
}
