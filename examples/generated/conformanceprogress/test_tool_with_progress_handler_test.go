package conformanceprogress

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Without a transport (the harness), the reporter sends nothing and the
// call ends as it would.
func TestTestToolWithProgressHandler(t *testing.T) {
	h := mrtrtest.New(t, NewTestToolWithProgressProgram(&TestToolWithProgressImpl{Pause: time.Millisecond}))
	DriveTestToolWithProgress(t, h, TestToolWithProgressArgs{}).WantEnd(vocab.OutcomeSuccess, "Reported progress 0, 50 and 100 of 100.")
}

func TestTestToolWithProgressHandlerMatrix(t *testing.T) {
	mrtrtest.RunMatrix(t, NewTestToolWithProgressProgram(&TestToolWithProgressImpl{Pause: time.Millisecond}), mrtrtest.Fixtures{
		Args: TestToolWithProgressArgs{}, Principal: "alice", Other: "bob",
		NotApplicable: map[string]string{
			mrtrtest.ScenarioUnauthorized: "the conformance fixture allows every caller",
			mrtrtest.ScenarioDependency:   "the fixture depends on nothing but its clock",
		},
	})
}

// keeper is the fixture with a handler that keeps its reporter, to use it
// after its request was answered.
type keeper struct {
	TestToolWithProgressImpl
	kept chan *mrtr.Progress
}

func (k *keeper) ReportProgress(ctx context.Context, f *TestToolWithProgressFlow, p *mrtr.Progress) error {
	err := k.TestToolWithProgressImpl.ReportProgress(ctx, f, p)
	k.kept <- p
	return err
}

// serve starts the fixture behind mrtr.Handler, as the example server does.
func serve(t *testing.T, h TestToolWithProgressHandler) string {
	t.Helper()
	clock := mrtrtest.NewClock()
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "progress-test", Codec: mrtrtest.NewCodec(t, clock), Store: store.NewMemory(store.Options{Now: clock.Now})})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "progress-test", Version: "test"}, nil)
	RegisterAll(s, e, h)
	ts := httptest.NewServer(mrtr.Handler(s, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// notes collects the progress notifications one client session receives.
type notes struct {
	mu  sync.Mutex
	got []*mcp.ProgressNotificationParams
}

func (n *notes) add(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, req.Params)
}

func (n *notes) all() []*mcp.ProgressNotificationParams {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]*mcp.ProgressNotificationParams(nil), n.got...)
}

func connect(t *testing.T, url string, n *notes) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "test"}, &mcp.ClientOptions{ProgressNotificationHandler: n.add})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Over streamable HTTP, each of several concurrent calls gets its own
// three notifications (0, 50, 100 of 100) on its own token, and nothing
// of the others'; a call without a token gets none. A reporter kept after
// its request was answered sends nothing more (ErrProgressDone): progress
// never crosses into another request.
func TestProgressStaysWithItsRequest(t *testing.T) {
	const calls = 4
	k := &keeper{TestToolWithProgressImpl: TestToolWithProgressImpl{Pause: 20 * time.Millisecond}, kept: make(chan *mrtr.Progress, calls+1)}
	url := serve(t, k)
	sessions := make([]*notes, calls+1)
	var wg sync.WaitGroup
	errs := make([]error, calls+1)
	for i := range calls + 1 {
		sessions[i] = &notes{}
		cs := connect(t, url, sessions[i])
		wg.Go(func() {
			params := &mcp.CallToolParams{Name: "test_tool_with_progress", Arguments: map[string]any{}}
			if i < calls { // the last call sends no token
				params.SetProgressToken(fmt.Sprintf("token-%d", i))
			}
			res, err := cs.CallTool(context.Background(), params)
			if err == nil && (res.IsError || res.NeedsInput()) {
				err = fmt.Errorf("result %+v", res)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	for i := range calls {
		// The client hands each notification to its handler on its own
		// goroutine: the last one may be handled just after CallTool
		// returned.
		got := sessions[i].all()
		for deadline := time.Now().Add(5 * time.Second); len(got) < 3 && time.Now().Before(deadline); got = sessions[i].all() {
			time.Sleep(5 * time.Millisecond)
		}
		if len(got) != 3 {
			t.Fatalf("call %d got %d progress notifications, want 3: %v", i, len(got), got)
		}
		for j, want := range []float64{0, 50, 100} {
			if got[j].ProgressToken != fmt.Sprintf("token-%d", i) || got[j].Progress != want || got[j].Total != 100 {
				t.Fatalf("call %d, notification %d: %+v, want %v/100 on token-%d", i, j, got[j], want, i)
			}
		}
	}
	if got := sessions[calls].all(); len(got) != 0 {
		t.Fatalf("the call without a progressToken got %v", got)
	}
	// Every call is answered: its kept reporter sends nothing more.
	for range calls + 1 {
		p := <-k.kept
		if err := p.Report(context.Background(), 101, 100, "late"); !errors.Is(err, mrtr.ErrProgressDone) {
			t.Fatalf("a reporter used after its request was answered: %v, want ErrProgressDone", err)
		}
	}
	time.Sleep(50 * time.Millisecond)
	for i := range calls + 1 {
		if n := len(sessions[i].all()); n != 3 && !(i == calls && n == 0) {
			t.Fatalf("session %d received a late notification (%d in all)", i, n)
		}
	}
}
