package app

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
)

// The example server's demo sign-in. A request to /mcp with
// "Authorization: Bearer demo-<user>" runs as <user> (one of DemoUsers);
// without the header it is anonymous, as every tool but connect_calendar
// accepts. The calendar page signs users in with the same demo token,
// typed into its form: a stand-in for the calendar service's own login.
// Never a production scheme: the tokens are public.

// DemoUsers are the users demo tokens sign in.
var DemoUsers = []string{"alice", "bob"}

// DemoToken is the demo bearer token of user.
func DemoToken(user string) string { return "demo-" + user }

// demoUser returns the user of a demo token, or "".
func demoUser(token string) string {
	user, ok := strings.CutPrefix(strings.TrimSpace(token), "demo-")
	if !ok || !slices.Contains(DemoUsers, user) {
		return ""
	}
	return user
}

// errBadToken refuses an Authorization header that is not a demo token.
var errBadToken = errors.New("the Authorization header is not a demo token (Bearer demo-alice or demo-bob)")

// authenticate is the engine's Authenticator: the demo user of the bearer
// token, anonymous without one.
func authenticate(_ context.Context, extra *mcp.RequestExtra) (string, error) {
	if extra == nil || extra.Header == nil {
		return "", nil
	}
	h := extra.Header.Get("Authorization")
	if h == "" {
		return "", nil
	}
	token, ok := strings.CutPrefix(h, "Bearer ")
	if user := demoUser(token); ok && user != "" {
		return user, nil
	}
	return "", errBadToken
}

// CalendarPagePath is where the calendar service's consent page is served:
// connect_calendar's URL-mode elicitation opens
// <PublicURL>/oob/calendar/<workflowId>?provider=<provider>.
const CalendarPagePath = "/oob/calendar/"

var workflowIDRE = regexp.MustCompile(`^[0-9a-f]{32}$`)

var calendarPage = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
<h1>{{.Title}}</h1>
{{if .Done}}<p id="done">Access granted ({{.Grant}}) to the {{.Provider}} calendar of {{.User}}. Return to your assistant and continue.</p>
{{else}}<p>The assistant asks to read the free/busy times of your <b>{{.Provider}}</b> calendar.</p>
{{if .Error}}<p id="error" role="alert">{{.Error}}</p>{{end}}
<form method="post">
<input type="hidden" name="provider" value="{{.Provider}}">
<label>Sign in with your demo token <input id="token" name="token" type="password" autocomplete="off" required></label>
<button id="grant" type="submit">Grant access</button>
</form>{{end}}
</body></html>
`))

type calendarView struct {
	Title, Provider, User, Grant, Error string
	Done                                bool
}

// calendarPageHandler serves the out-of-band step of connect_calendar: GET
// shows the consent form; POST signs the user in with their demo token and
// records their grant for the workflow in the path (domain.GrantCalendar).
// The token travels in the form body, never in the URL, and authenticates
// the user on this page; the grant is the signed-in user's, so a link
// opened by someone else grants nothing to the caller of the workflow.
func (a *App) calendarPageHandler(w http.ResponseWriter, r *http.Request) {
	wf := r.PathValue("workflow")
	if !workflowIDRE.MatchString(wf) {
		http.Error(w, "no such request", http.StatusNotFound)
		return
	}
	provider := r.FormValue("provider")
	if provider != "work" && provider != "personal" {
		http.Error(w, "unknown calendar", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("X-Frame-Options", "DENY")
	v := calendarView{Title: "Connect your calendar", Provider: provider}
	if r.Method == http.MethodPost {
		user := demoUser(r.PostFormValue("token"))
		if user == "" {
			w.WriteHeader(http.StatusUnauthorized)
			v.Error = "That token signs in no one. Try again."
			_ = calendarPage.Execute(w, v)
			return
		}
		g, err := domain.GrantCalendar(r.Context(), a.Data, user, wf, provider, time.Now())
		if err != nil {
			a.log.WarnContext(r.Context(), "calendar page: recording the grant failed", "error", err)
			http.Error(w, "the calendar service is unavailable", http.StatusServiceUnavailable)
			return
		}
		v.Done, v.User, v.Grant = true, user, g.ID
	}
	_ = calendarPage.Execute(w, v)
}
