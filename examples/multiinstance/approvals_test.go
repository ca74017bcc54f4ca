package multiinstance

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
)

// TestApprovalSurvivesKill: an approval that waits survives SIGKILL of every
// instance (docs/approvals.md, "Waiting durably"). Two instances of the
// fleet build share one store; alice calls send_payout for 2,500 EUR on
// instance A as a client with no elicitation at all (plain 2026-07-28
// JSON-RPC): a result with the approval link. Both instances are SIGKILLed
// and started again on their ports; bob approves on instance B's JSON API;
// both are SIGKILLed and started again once more (the decision waits in the
// store, no instance waiting for it); alice calls again on A and the payout
// is sent, its effect run exactly once by the effect log; the same call
// after that asks for a new approval and runs nothing.
func TestApprovalSurvivesKill(t *testing.T) {
	bin := buildServer(t)
	t.Run("sqlite", func(t *testing.T) {
		proveApprovalSurvivesKill(t, bin, "sqlite:"+filepath.Join(t.TempDir(), "fleet.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		proveApprovalSurvivesKill(t, bin, freshPostgres(t))
	})
	t.Run("redis", func(t *testing.T) {
		proveApprovalSurvivesKill(t, bin, freshRedis(t))
	})
}

// approvalLinkRE finds the approval link in a result's text: its path is
// /approvals/<id>?t=<token>.
var approvalLinkRE = regexp.MustCompile(`https?://([^/\s"]+)(/approvals/([A-Za-z0-9_-]+))\?t=([A-Za-z0-9_%.-]+)`)

func proveApprovalSurvivesKill(t *testing.T, bin, storeURL string) {
	began := time.Now()
	logPath := filepath.Join(t.TempDir(), "effects.log")
	f := newFleet(t, bin, storeURL)
	f.args = []string{"-effect-log", logPath}
	keys, err := seal.GenerateKeySpec(1)
	if err != nil {
		t.Fatal(err)
	}
	f.slots[0] = f.start("web-0", "127.0.0.1:0", keys, 0)
	f.slots[1] = f.start("web-1", "127.0.0.1:0", keys, 0)
	// Both instances killed at once, then started again on their ports.
	killAndRestart := func() {
		t.Helper()
		for _, p := range f.slots[:2] {
			if err := p.cmd.Process.Kill(); err != nil {
				t.Fatalf("killing %s: %v", p.name, err)
			}
		}
		for i, p := range f.slots[:2] {
			<-p.exited
			p.closeClient()
			f.kills++
			f.slots[i] = f.start(p.name, p.addr, keys, 0)
		}
	}
	payee := "pay_kill" + strings.ToLower(letters(6))
	a := func() *proc { return f.slots[0] }
	b := func() *proc { return f.slots[1] }

	msg := plainPayout(t, a(), "alice", payee, 2500)
	if !strings.Contains(msg, "Waiting for approval") || !strings.Contains(msg, "other than alice") {
		t.Fatalf("alice's first call on %s: %q", a().name, msg)
	}
	m := approvalLinkRE.FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("no approval link in %q", msg)
	}
	linkHost, linkPath, id, token := m[1], m[2], m[3], m[4]
	if linkHost != a().addr {
		t.Errorf("the link of %s points to %s", a().addr, linkHost)
	}
	token, err = url.QueryUnescape(token)
	if err != nil {
		t.Fatal(err)
	}

	killAndRestart()
	// The approval is still there, on either instance: the same call
	// finds it, on B as on A.
	if got := plainPayout(t, b(), "alice", payee, 2500); !strings.Contains(got, linkPath) {
		t.Fatalf("after the kill, alice's call on %s does not find approval %s: %q", b().name, id, got)
	}
	if code, out := apiDecideOn(t, b(), id, token, "alice", "approve"); code != http.StatusForbidden || apiErr(out) != "requester" {
		t.Fatalf("alice approving her own payout on %s: %d %v", b().name, code, out)
	}
	if code, out := apiDecideOn(t, b(), id, token, "bob", "approve"); code != http.StatusOK || out["state"] != "approved" {
		t.Fatalf("bob approving on %s: %d %v", b().name, code, out)
	}
	if n := payoutRuns(t, logPath, payee); n != 0 {
		t.Fatalf("%d payout runs before alice called again", n)
	}

	killAndRestart()
	got := plainPayout(t, a(), "alice", payee, 2500)
	if !strings.HasPrefix(got, "Sent 2,500.00 EUR to "+payee+"; payout po_") {
		t.Fatalf("alice's call on %s after the approval: %q", a().name, got)
	}
	if code, out := apiDecideOn(t, a(), id, token, "bob", "decline"); code != http.StatusConflict {
		t.Errorf("a decision on the used approval: %d %v", code, out)
	}
	again := plainPayout(t, b(), "alice", payee, 2500)
	if m2 := approvalLinkRE.FindStringSubmatch(again); m2 == nil || m2[3] == id {
		t.Errorf("the same call after the payout: %q; want a new approval", again)
	}
	if n := payoutRuns(t, logPath, payee); n != 1 {
		t.Errorf("%d payout runs, want exactly 1", n)
	}
	t.Logf("approval across SIGKILL (%s): %d kills, approved on %s, sent on %s, one run; wall %s",
		strings.SplitN(storeURL, ":", 2)[0], f.kills, b().name, a().name, time.Since(began).Round(time.Millisecond))
}

// plainPayout calls send_payout on p as user the way a client with no
// elicitation capability does on 2026-07-28 (one stateless request), and
// returns the result's text; a JSON-RPC error or an isError result fails
// the test.
func plainPayout(t *testing.T, p *proc, user, payee string, amount float64) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": "send_payout", "arguments": map[string]any{"payee": payee, "amount": amount},
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		},
	}})
	req, _ := http.NewRequest(http.MethodPost, "http://"+p.addr+"/mcp", bytes.NewReader(body))
	for k, v := range map[string]string{
		"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "send_payout",
		"Authorization": "Bearer demo-" + user,
	} {
		req.Header.Set(k, v)
	}
	raw, status := do(t, req)
	var reply struct {
		Error  *struct{ Message string }
		Result struct {
			IsError bool `json:"isError"`
			Content []struct{ Type, Text string }
		}
	}
	if err := json.Unmarshal(raw, &reply); err != nil || status != http.StatusOK || reply.Error != nil || reply.Result.IsError {
		t.Fatalf("send_payout on %s: %d %s", p.name, status, raw)
	}
	var text []string
	for _, c := range reply.Result.Content {
		if c.Type == "text" {
			text = append(text, c.Text)
		}
	}
	return strings.Join(text, "\n")
}

// apiDecideOn posts a decision to p's approval API as user (demo bearer
// token) and returns the status and the decoded answer.
func apiDecideOn(t *testing.T, p *proc, id, token, user, decision string) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"token": token, "decision": decision, "reason": "checked by " + user})
	req, _ := http.NewRequest(http.MethodPost, "http://"+p.addr+"/approvals/api/"+id, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer demo-"+user)
	raw, status := do(t, req)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("approval API on %s: %d %s", p.name, status, raw)
	}
	return status, out
}

func do(t *testing.T, req *http.Request) ([]byte, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	return raw, resp.StatusCode
}

func apiErr(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// payoutRuns counts the runs of send_payout's effect for payee in the
// effect log (its "start" lines, on any instance).
func payoutRuns(t *testing.T, path, payee string) int {
	t.Helper()
	evs, err := domain.ReadEffectLog(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range evs {
		if ev.Event == "start" && ev.Tool == "send_payout" && ev.ID == payee {
			n++
		}
	}
	if n > 1 {
		t.Logf("payout runs:%s", describeRuns(evs))
	}
	return n
}
