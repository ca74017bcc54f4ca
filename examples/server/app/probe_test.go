package app

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domainopen"
	"github.com/mrtrgen/mrtrgen/examples/server/backends/allstores"
)

// TestProbedEffects: with DataURL the business data lives apart from the
// mrtr records, and with EffectLog and EffectDelay every effect run is
// logged from the handler's side (start, end, the engine's Attempt) and
// slowed down; a replayed round runs nothing and logs nothing.
func TestProbedEffects(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	dataURL := "sqlite:" + filepath.Join(dir, "data.db")
	logPath := filepath.Join(dir, "effects.log")
	const delay = 150 * time.Millisecond
	a, err := New(ctx, Config{Backends: &allstores.Set, StoreURL: "memory:", DataURL: dataURL, Ring: testRing(t), Audience: "app-test",
		Instance: "probed-1", Logger: quiet(), Lease: 5 * time.Second, EffectLog: logPath, EffectDelay: delay})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	cs := connect(t, "http://"+ln.Addr().String()+MCPPath, nil, "")

	args := map[string]any{"ticketId": "12346"}
	r1, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "close_support_ticket", Arguments: args})
	if err != nil || !r1.NeedsInput() {
		t.Fatalf("round 1: %+v, %v", r1, err)
	}
	final := &mcp.CallToolParams{Name: "close_support_ticket", Arguments: args, InputResponses: reason, RequestState: r1.RequestState}
	began := time.Now()
	r2, err := cs.CallTool(ctx, final)
	if err != nil || text(t, r2) != "Closed ticket 12346 (resolved)." {
		t.Fatalf("round 2: %+v, %v", r2, err)
	}
	if took := time.Since(began); took < delay {
		t.Errorf("the final round took %v; the effect alone should take %v", took, delay)
	}
	if again, err := cs.CallTool(ctx, final); err != nil || text(t, again) != text(t, r2) {
		t.Fatalf("replayed round 2: %+v, %v", again, err)
	}

	evs, err := domain.ReadEffectLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Event != "start" || evs[1].Event != "end" {
		t.Fatalf("effect log %+v; want one start and one end", evs)
	}
	for _, ev := range evs {
		if ev.Tool != "close_support_ticket" || ev.ID != "12346" || ev.Instance != "probed-1" || ev.Workflow == "" ||
			ev.Operation == "" || ev.Takeover || ev.Error != "" {
			t.Errorf("effect log line %+v", ev)
		}
	}
	if d := evs[1].At.Sub(evs[0].At); d < delay {
		t.Errorf("the effect ran %v after its start line; want at least the delay %v", d, delay)
	}

	// The change is in the data store named by DataURL, and only there.
	data, err := domainopen.Open(ctx, dataURL)
	if err != nil {
		t.Fatal(err)
	}
	defer data.Close()
	if n, err := domain.Effects(ctx, data, "close_support_ticket", "12346"); err != nil || n != 1 {
		t.Fatalf("effect counter in %s: %d, %v; want 1", dataURL, n, err)
	}
}
