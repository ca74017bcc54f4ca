package app

import (
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/approval"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// ApprovalsPath is where the approval page and its JSON API are served:
// send_payout's approvals link to <PublicURL>/approvals/<id>?t=<token>.
const ApprovalsPath = "/approvals"

// newApprovals builds the approval service on the mrtr store: the
// approvals send_payout waits for (docs/approvals.md). Notices are
// logged, and posted to Config.ApprovalWebhook when it is set.
func (a *App) newApprovals(codec *seal.Codec) error {
	st, ok := a.Store.(store.ApprovalStore)
	if !ok {
		return nil // a store without approvals: send_payout is not served
	}
	base := a.cfg.PublicURL
	if base == "" {
		base = "http://localhost"
		a.log.Warn("no public URL: approval links point to http://localhost; set -public-url")
	}
	notify := approval.Notifiers{approval.LogNotifier{Logger: a.log}}
	if a.cfg.ApprovalWebhook != "" {
		notify = append(notify, approval.WebhookNotifier{URL: a.cfg.ApprovalWebhook})
	}
	var err error
	a.Approvals, err = approval.New(approval.Config{
		Store: st, Codec: codec, Audience: a.cfg.Audience, URL: strings.TrimRight(base, "/") + ApprovalsPath,
		Notifier: notify, Logger: a.log, Tick: a.cfg.ApprovalTick,
	})
	return err
}

// approvalsHandler is the approval page and JSON API: people sign in with
// the demo bearer token (the API, and the page from a client that sends
// it), or on the page's form with their name and demo token as password.
func (a *App) approvalsHandler() http.Handler {
	return a.Approvals.Handler(approval.HandlerOptions{
		Authenticate: func(r *http.Request) (string, error) {
			return authenticate(r.Context(), &mcp.RequestExtra{Header: r.Header})
		},
		SignIn: func(_ *http.Request, username, password string) (string, bool) {
			user := demoUser(password)
			return user, user != "" && user == strings.TrimSpace(username)
		},
		PasswordLabel: "Demo token (demo-<name>)",
	})
}
