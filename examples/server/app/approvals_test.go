package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
)

// Approvals of send_payout (docs/approvals.md) end to end over HTTP.

var approvalLinkRE = regexp.MustCompile(`https?://[^\s"]+/approvals/([A-Za-z0-9_-]+)\?t=[A-Za-z0-9_%.-]+`)

// approvalLink finds the approval page's link in s, and its record id.
func approvalLink(t *testing.T, s string) (link, id string) {
	t.Helper()
	m := approvalLinkRE.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no approval link in %q", s)
	}
	return m[0], m[1]
}

// apiDecide posts a decision to the approval API as user, and returns the
// status and the decoded answer.
func apiDecide(t *testing.T, link, user, decision string) (int, map[string]any) {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimPrefix(u.Path, "/approvals/")
	body, _ := json.Marshal(map[string]string{"token": u.Query().Get("t"), "decision": decision, "reason": "checked by " + user})
	req, _ := http.NewRequest(http.MethodPost, u.Scheme+"://"+u.Host+"/approvals/api/"+id, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+DemoToken(user))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("API answer %s: %s", resp.Status, raw)
	}
	return resp.StatusCode, out
}

// plainClient connects a client that declares no elicitation at all (as
// claude.ai's connectors), signed in as user.
func plainClient(t *testing.T, endpoint, user string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "no-elicitation", Version: "test"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{DemoToken(user), http.DefaultTransport}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func payout(t *testing.T, cs *mcp.ClientSession, payee string, amount float64) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "send_payout", Arguments: map[string]any{"payee": payee, "amount": amount}})
	if err != nil {
		t.Fatalf("send_payout: %v", err)
	}
	return res, text(t, res)
}

func payoutsSent(t *testing.T, s *server, payee string) int64 {
	t.Helper()
	n, err := s.Data.Incr(context.Background(), domain.EffectKey("send_payout", payee), 0)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPayoutApprovalWithoutElicitation: a client that cannot be asked
// anything gets a result naming who must approve and the link (not
// -32021); calling again with the same arguments finds the same approval;
// alice cannot approve her own payout; bob approves it on the JSON API,
// and alice's next call sends the payout, once; the call after that is a
// new payout, needing a new approval.
func TestPayoutApprovalWithoutElicitation(t *testing.T) {
	s := start(t, "memory:", testRing(t), "approvals-1")
	alice := plainClient(t, s.URL, "alice")

	res, msg := payout(t, alice, "pay_acme", 2500)
	if res.IsError || !strings.Contains(msg, "Waiting for approval") || !strings.Contains(msg, "other than alice") ||
		!strings.Contains(msg, "call send_payout again with the same arguments") {
		t.Fatalf("first call: isError %v %q", res.IsError, msg)
	}
	link, id := approvalLink(t, msg)
	if !strings.HasPrefix(link, s.base+ApprovalsPath+"/") {
		t.Fatalf("link %s is not on the server's approval page", link)
	}
	_, again := payout(t, alice, "pay_acme", 2500)
	if _, id2 := approvalLink(t, again); id2 != id {
		t.Fatalf("the same call found another approval: %s, then %s", id, id2)
	}
	// Another amount is another action: another approval.
	_, other := payout(t, alice, "pay_acme", 2600)
	if _, id3 := approvalLink(t, other); id3 == id {
		t.Fatal("another amount found the first approval")
	}

	if code, out := apiDecide(t, link, "alice", "approve"); code != http.StatusForbidden || errCode(out) != "requester" {
		t.Fatalf("alice approving her own payout: %d %v", code, out)
	}
	// A tampered link decides nothing.
	if code, out := apiDecide(t, strings.Replace(link, "t=", "t=A", 1), "bob", "approve"); code != http.StatusBadRequest || errCode(out) != "bad_link" {
		t.Fatalf("tampered link: %d %v", code, out)
	}
	if payoutsSent(t, s, "pay_acme") != 0 {
		t.Fatal("a payout was sent before its approval")
	}
	if code, out := apiDecide(t, link, "bob", "approve"); code != http.StatusOK || out["state"] != "approved" {
		t.Fatalf("bob approving: %d %v", code, out)
	}
	if code, out := apiDecide(t, link, "bob", "approve"); code != http.StatusConflict {
		t.Fatalf("bob's replayed decision: %d %v", code, out)
	}
	res, msg = payout(t, alice, "pay_acme", 2500)
	if res.IsError || !strings.HasPrefix(msg, "Sent 2,500.00 EUR to pay_acme; payout po_") {
		t.Fatalf("after the approval: isError %v %q", res.IsError, msg)
	}
	if n := payoutsSent(t, s, "pay_acme"); n != 1 {
		t.Fatalf("%d payouts sent", n)
	}
	// The approval was used: the same call again is a new payout.
	_, msg = payout(t, alice, "pay_acme", 2500)
	if _, id4 := approvalLink(t, msg); id4 == id {
		t.Fatal("a used approval let a second payout through")
	}
	if n := payoutsSent(t, s, "pay_acme"); n != 1 {
		t.Fatalf("%d payouts sent after the used approval", n)
	}
	audit, err := s.Approvals.Audit(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range audit {
		kinds = append(kinds, fmt.Sprintf("%s/%s/%s", e.Kind, e.Actor, e.Channel))
	}
	want := "requested/alice/ refused/alice/api approved/bob/api refused/bob/api consumed//"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("audit:\n got %s\nwant %s", got, want)
	}
}

func errCode(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// TestPayoutDeclinedOverURLMode: a client that can open URLs is sent to
// the approval page; bob declines there (by the API), and the payout ends
// declined, nothing sent.
func TestPayoutDeclinedOverURLMode(t *testing.T) {
	s := start(t, "memory:", testRing(t), "approvals-2")
	var offered []string
	c := mcp.NewClient(&mcp.Implementation{Name: "url-client", Version: "test"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Mode != "url" {
				return nil, fmt.Errorf("asked a %q elicitation", req.Params.Mode)
			}
			offered = append(offered, req.Params.URL)
			if len(offered) == 1 {
				if code, out := apiDecide(t, req.Params.URL, "bob", "decline"); code != http.StatusOK || out["state"] != "declined" {
					return nil, fmt.Errorf("bob declining: %d %v", code, out)
				}
			}
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
		Capabilities: &mcp.ClientCapabilities{Elicitation: formsAndURLs},
	})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: s.URL, HTTPClient: &http.Client{Transport: bearer{DemoToken("alice"), http.DefaultTransport}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, msg := payout(t, cs, "pay_globex", 5000)
	if res.IsError || msg != "No payout was sent to pay_globex." || len(offered) != 1 {
		t.Fatalf("declined payout: isError %v %q, offered %v", res.IsError, msg, offered)
	}
	if n := payoutsSent(t, s, "pay_globex"); n != 0 {
		t.Fatalf("%d payouts sent after a decline", n)
	}
}
