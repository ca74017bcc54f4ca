package approval

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fixture is a Service on a memory store with its handler mounted at
// /approvals/ of a test server, demo users alice, bob and carol signing
// in with "Bearer demo-<user>" or the sign-in form (password
// "demo-<user>").
type fixture struct {
	t     *testing.T
	svc   *Service
	srv   *httptest.Server
	ring  *seal.Ring
	clock *clock
	opts  HandlerOptions
}

var demoUsers = []string{"alice", "bob", "carol"}

var demoAuthenticate = Bearer(func(token string) (string, error) {
	user, ok := strings.CutPrefix(token, "demo-")
	if !ok || !slices.Contains(demoUsers, user) {
		return "", errors.New("not a demo token")
	}
	return user, nil
})

func demoSignIn(_ *http.Request, user, password string) (string, bool) {
	if slices.Contains(demoUsers, user) && password == "demo-"+user {
		return user, true
	}
	return "", false
}

func newFixture(t *testing.T, strip bool) *fixture {
	t.Helper()
	ring, err := seal.EphemeralRing(func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, ring: ring, clock: &clock{t: time.Now()}}
	var h http.Handler
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(f.srv.Close)
	f.svc, err = New(Config{
		Store: store.NewMemory(store.Options{}), Codec: seal.New(ring, seal.Options{}), Audience: "test-server",
		URL: f.srv.URL + "/approvals", Now: f.clock.Now, Notifier: Notifiers{}, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	f.opts = HandlerOptions{Authenticate: demoAuthenticate, SignIn: demoSignIn, PasswordLabel: "Demo token"}
	mux := http.NewServeMux()
	if strip {
		mux.Handle("/approvals/", http.StripPrefix("/approvals", f.svc.Handler(f.opts)))
	} else {
		mux.Handle("/approvals/", f.svc.Handler(f.opts))
	}
	h = mux
	return f
}

// request asks an approval of alice's action named what under p.
func (f *fixture) request(what, summary string, p Policy, approvers ...string) (*Record, string) {
	f.t.Helper()
	rec, err := f.svc.Request(context.Background(), Action{
		Tool: "send_payout", Gate: "confirm", Workflow: "wf-" + what, Requester: "alice",
		Digest: sha256.Sum256([]byte(what)), Summary: summary, Approvers: approvers,
	}, p)
	if err != nil {
		f.t.Fatal(err)
	}
	link, err := f.svc.Link(rec)
	if err != nil {
		f.t.Fatal(err)
	}
	return rec, link
}

func (f *fixture) record(id string) *Record {
	f.t.Helper()
	rec, err := f.svc.Get(context.Background(), id)
	if err != nil {
		f.t.Fatal(err)
	}
	return rec
}

// browser is a client with a cookie jar that does not follow redirects.
type browser struct {
	f *fixture
	c *http.Client
}

func (f *fixture) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{f: f, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type answer struct {
	status int
	header http.Header
	body   string
}

func (b *browser) do(req *http.Request) answer {
	b.f.t.Helper()
	resp, err := b.c.Do(req)
	if err != nil {
		b.f.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(body)}
}

func (b *browser) get(u string) answer {
	b.f.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, http.NoBody)
	return b.do(req)
}

// post posts a form to path (relative to the server), with extra headers
// as name, value pairs.
func (b *browser) post(path string, form url.Values, headers ...string) answer {
	b.f.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.f.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return b.do(req)
}

// signIn signs user in through the form of the link's page: it opens the
// page (signed out, or signing out first), and posts its sign-in form.
func (b *browser) signIn(rec *Record, link, user, password string) answer {
	b.f.t.Helper()
	b.post("/approvals/signout", url.Values{"id": {rec.ID}, "t": {tokenOf(link)}})
	page := b.get(link)
	m := csrfRE.FindStringSubmatch(page.body)
	nonce := ""
	if m != nil {
		nonce = m[1]
	}
	return b.post("/approvals/signin", url.Values{"id": {rec.ID}, "t": {tokenOf(link)}, "username": {user}, "password": {password}, "csrf": {nonce}})
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf reads the CSRF token of the decision form of a page.
func csrf(t *testing.T, a answer) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(a.body)
	if m == nil {
		t.Fatalf("no decision form on the page (%d):\n%s", a.status, a.body)
	}
	return m[1]
}

func decideForm(link, csrf, decision, reason string) url.Values {
	v := url.Values{"t": {tokenOf(link)}, "decision": {decision}, "reason": {reason}}
	if csrf != "" {
		v.Set("csrf", csrf)
	}
	return v
}

func tokenOf(link string) string {
	u, _ := url.Parse(link)
	return u.Query().Get("t")
}

func wantStatus(t *testing.T, a answer, status int, contains ...string) {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d:\n%s", a.status, status, a.body)
	}
	for _, c := range contains {
		if !strings.Contains(a.body, c) {
			t.Fatalf("the answer does not contain %q:\n%s", c, a.body)
		}
	}
}

func fourEyes() Policy {
	return Policy{Count: 1, Requester: RequesterExcluded, Deadline: time.Hour, Revision: "r1"}
}

// Bob approves alice's request on the page: the link asks him to sign
// in, the form's post-back returns to the link, the page shows the
// summary and the form, the decision is recorded on the page channel,
// and the page then shows it approved. A replay of the same post is
// refused as already decided.
func TestPageApproveBySecondPerson(t *testing.T) {
	f := newFixture(t, false)
	rec, link := f.request("pay-1", "Pay 5000 EUR to ACME", fourEyes())
	bob := f.browser()

	a := bob.get(link)
	wantStatus(t, a, http.StatusOK, `id="signin"`, `action="signin"`, "Demo token")
	if strings.Contains(a.body, "ACME") {
		t.Fatal("the page shows the summary before sign-in")
	}
	for name, want := range map[string]string{
		"Cache-Control": "no-store", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff",
	} {
		if got := a.header.Get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if c := a.header.Get("Content-Security-Policy"); !strings.Contains(c, "default-src 'none'") || !strings.Contains(c, "frame-ancestors 'none'") || strings.Contains(c, "script-src") {
		t.Errorf("Content-Security-Policy %q", c)
	}

	a = bob.signIn(rec, link, "bob", "demo-bob")
	wantStatus(t, a, http.StatusSeeOther)
	if loc := a.header.Get("Location"); loc != rec.ID+"?t="+url.QueryEscape(tokenOf(link)) {
		t.Fatalf("sign-in redirects to %q", loc)
	}
	cookie := ""
	for _, c := range a.header.Values("Set-Cookie") {
		cookie += c
	}
	for _, want := range []string{"mrtr_approval=", "Path=/approvals/", "HttpOnly", "SameSite=Lax", "Max-Age="} {
		if !strings.Contains(cookie, want) {
			t.Errorf("session cookie %q lacks %q", cookie, want)
		}
	}
	if strings.Contains(cookie, "Secure") {
		t.Errorf("session cookie %q is Secure on an http URL", cookie)
	}

	a = bob.get(link)
	wantStatus(t, a, http.StatusOK, "Pay 5000 EUR to ACME", `id="principal">bob<`, `id="requester">alice<`, `id="state">pending<`, "someone other than the requester must approve", `id="approve"`)
	form := decideForm(link, csrf(t, a), "approve", "looks right")
	a = bob.post("/approvals/"+rec.ID, form, "Sec-Fetch-Site", "same-origin", "Origin", "null")
	wantStatus(t, a, http.StatusSeeOther)

	got := f.record(rec.ID)
	if got.State != Approved || len(got.Decisions) != 1 || got.Decisions[0].Approver != "bob" || got.Decisions[0].Channel != ChannelPage || got.Decisions[0].Reason != "looks right" {
		t.Fatalf("record after bob's approval: %+v", got)
	}
	a = bob.get(link)
	wantStatus(t, a, http.StatusOK, `id="state">approved<`, "<b>bob</b> approved on the approval page", "looks right", `id="whynot"`)
	if strings.Contains(a.body, `id="approve"`) {
		t.Fatal("the decided page still offers the form")
	}

	// The same post again: a replay decides nothing.
	a = bob.post("/approvals/"+rec.ID, form)
	wantStatus(t, a, http.StatusConflict, `data-code="already_decided"`)
	if got := f.record(rec.ID); len(got.Decisions) != 1 {
		t.Fatalf("the replay added a decision: %+v", got.Decisions)
	}
}

// Mounted with http.StripPrefix, the handler serves the same routes.
func TestPageUnderStripPrefix(t *testing.T) {
	f := newFixture(t, true)
	rec, link := f.request("pay-strip", "Pay", fourEyes())
	bob := f.browser()
	wantStatus(t, bob.signIn(rec, link, "bob", "demo-bob"), http.StatusSeeOther)
	a := bob.get(link)
	wantStatus(t, a, http.StatusOK, `id="approve"`)
	wantStatus(t, bob.post("/approvals/"+rec.ID, decideForm(link, csrf(t, a), "decline", "no")), http.StatusSeeOther)
	if got := f.record(rec.ID); got.State != Declined {
		t.Fatalf("state %s, want declined", got.State)
	}
}

// alice may not approve her own four-eyes request: the page offers her no
// form, and a post (with a CSRF token issued to her) is refused, kept in
// the audit, and decides nothing.
func TestPageRequesterRefused(t *testing.T) {
	f := newFixture(t, false)
	rec, link := f.request("pay-2", "Pay 2000 EUR", fourEyes())
	alice := f.browser()
	wantStatus(t, alice.signIn(rec, link, "alice", "demo-alice"), http.StatusSeeOther)
	a := alice.get(link)
	wantStatus(t, a, http.StatusOK, `id="whynot"`, "someone other than the requester must decide")
	if csrfRE.MatchString(a.body) {
		t.Fatal("the requester is offered the decision form")
	}
	h := f.svc.newHandler(f.opts)
	tok, err := h.csrfToken(rec.ID, "alice")
	if err != nil {
		t.Fatal(err)
	}
	a = alice.post("/approvals/"+rec.ID, decideForm(link, tok, "approve", "me"))
	wantStatus(t, a, http.StatusForbidden, `data-code="requester"`, "someone other than the requester must decide")
	got := f.record(rec.ID)
	if got.State != Pending || len(got.Decisions) != 0 {
		t.Fatalf("alice's approval of her own request changed it: %+v", got)
	}
	last := got.Events[len(got.Events)-1]
	if last.Kind != EventRefused || last.Actor != "alice" || last.Channel != ChannelPage || last.Detail != CodeRequester {
		t.Fatalf("audit ends with %+v, want alice's refusal on the page", last)
	}
}

// A decision post without the CSRF token of this viewer for this record,
// or from another site, is refused and decides nothing.
func TestPageCSRF(t *testing.T) {
	f := newFixture(t, false)
	rec, link := f.request("pay-3", "Pay", fourEyes())
	other, _ := f.request("pay-4", "Pay more", fourEyes())
	bob := f.browser()
	wantStatus(t, bob.signIn(rec, link, "bob", "demo-bob"), http.StatusSeeOther)
	good := csrf(t, bob.get(link))
	h := f.svc.newHandler(f.opts)
	carols, _ := h.csrfToken(rec.ID, "carol")
	otherRecords, _ := h.csrfToken(other.ID, "bob")
	otherRing, _ := seal.EphemeralRing(func(string) {})
	foreignSvc := *f.svc
	foreignSvc.cfg.Codec = seal.New(otherRing, seal.Options{})
	foreign := foreignSvc.newHandler(f.opts)
	forged, _ := foreign.csrfToken(rec.ID, "bob")

	for name, c := range map[string]struct {
		csrf    string
		headers []string
		code    string
	}{
		"no token":            {"", nil, codeCSRF},
		"another principal's": {carols, nil, codeCSRF},
		"another record's":    {otherRecords, nil, codeCSRF},
		"another key's":       {forged, nil, codeCSRF},
		"tampered":            {flip(good), nil, codeCSRF},
		"cross-site":          {good, []string{"Sec-Fetch-Site", "cross-site"}, codeCrossOrigin},
		"same-site":           {good, []string{"Sec-Fetch-Site", "same-site"}, codeCrossOrigin},
		"foreign origin":      {good, []string{"Origin", "https://evil.example"}, codeCrossOrigin},
	} {
		a := bob.post("/approvals/"+rec.ID, decideForm(link, c.csrf, "approve", ""), c.headers...)
		if a.status != http.StatusForbidden || !strings.Contains(a.body, `data-code="`+c.code+`"`) {
			t.Errorf("%s: %d, want 403 %s:\n%s", name, a.status, c.code, a.body)
		}
	}
	got := f.record(rec.ID)
	if got.State != Pending || len(got.Decisions) != 0 || len(got.Events) != 1 {
		t.Fatalf("refused posts changed the record: %+v", got)
	}
	// The good token still works: nothing above used it up.
	wantStatus(t, bob.post("/approvals/"+rec.ID, decideForm(link, good, "approve", ""), "Origin", f.srv.URL), http.StatusSeeOther)
}

// flip changes one character in the middle of a token.
func flip(tok string) string {
	b := []byte(tok)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

// Forged and misplaced links do not open: a tampered token, another
// record's token, a token sealed for another audience or under another
// key; an unknown id is not found.
func TestBadLinks(t *testing.T) {
	f := newFixture(t, false)
	rec, link := f.request("pay-5", "Pay", fourEyes())
	_, otherLink := f.request("pay-6", "Pay", fourEyes())
	tok := tokenOf(link)

	otherAudience, err := New(Config{Store: f.svc.cfg.Store, Codec: f.svc.cfg.Codec, Audience: "another-server", URL: f.srv.URL + "/approvals"})
	if err != nil {
		t.Fatal(err)
	}
	otherRing, _ := seal.EphemeralRing(func(string) {})
	otherKey, err := New(Config{Store: f.svc.cfg.Store, Codec: seal.New(otherRing, seal.Options{}), Audience: "test-server", URL: f.srv.URL + "/approvals"})
	if err != nil {
		t.Fatal(err)
	}
	linkOf := func(s *Service) string {
		l, err := s.Link(rec)
		if err != nil {
			t.Fatal(err)
		}
		return tokenOf(l)
	}
	bob := f.browser()
	wantStatus(t, bob.signIn(rec, link, "bob", "demo-bob"), http.StatusSeeOther)
	good := csrf(t, bob.get(link))
	api := f.api("bob")
	for name, bad := range map[string]string{
		"tampered":         flip(tok),
		"another record's": tokenOf(otherLink),
		"another audience": linkOf(otherAudience),
		"another key":      linkOf(otherKey),
		"none":             "",
	} {
		a := bob.get(f.srv.URL + "/approvals/" + rec.ID + "?t=" + url.QueryEscape(bad))
		wantStatus(t, a, http.StatusBadRequest, `data-code="bad_link"`)
		if strings.Contains(a.body, "Pay") {
			t.Errorf("%s: a bad link shows the request", name)
		}
		form := decideForm(link, good, "approve", "")
		form.Set("t", bad)
		wantStatus(t, bob.post("/approvals/"+rec.ID, form), http.StatusBadRequest, `data-code="bad_link"`)
		wantAPIError(t, api.post(rec.ID, `{"token":`+quote(bad)+`,"decision":"approve"}`), http.StatusBadRequest, CodeBadLink)
		wantAPIError(t, api.get(rec.ID, bad), http.StatusBadRequest, CodeBadLink)
	}
	wantStatus(t, bob.get(f.srv.URL+"/approvals/AAAAAAAAAAAAAAAAAAAAAA?t="+url.QueryEscape(tok)), http.StatusNotFound, `data-code="not_found"`)
	wantStatus(t, bob.signIn(&Record{ID: "//evil.example"}, link, "bob", "demo-bob"), http.StatusNotFound)
	if got := f.record(rec.ID); got.State != Pending || len(got.Decisions) != 0 {
		t.Fatalf("bad links changed the record: %+v", got)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A decision after the deadline is refused (410) on the page and the API,
// recorded, and the record is expired, not declined.
func TestDeadline(t *testing.T) {
	f := newFixture(t, false)
	rec, link := f.request("pay-7", "Pay", fourEyes())
	bob := f.browser()
	wantStatus(t, bob.signIn(rec, link, "bob", "demo-bob"), http.StatusSeeOther)
	good := csrf(t, bob.get(link))
	f.clock.Add(time.Hour + time.Second)

	a := bob.get(link)
	wantStatus(t, a, http.StatusOK, `id="state">expired<`, "the deadline passed")
	if csrfRE.MatchString(a.body) {
		t.Fatal("the page offers the form after the deadline")
	}
	wantStatus(t, bob.post("/approvals/"+rec.ID, decideForm(link, good, "approve", "")), http.StatusGone, `data-code="deadline"`)
	wantAPIError(t, f.api("carol").post(rec.ID, `{"token":`+quote(tokenOf(link))+`,"decision":"approve"}`), http.StatusGone, CodeDeadline)
	got := f.record(rec.ID)
	if got.State != Expired || len(got.Decisions) != 0 {
		t.Fatalf("record after late decisions: %+v", got)
	}
	kinds := []string{}
	for _, e := range got.Events {
		kinds = append(kinds, string(e.Kind)+"/"+string(e.Channel)+"/"+e.Actor+"/"+e.Detail)
	}
	want := []string{"requested//alice/wf-pay-7", "expired/timer//", "refused/page/bob/deadline", "refused/api/carol/deadline"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("audit %q, want %q", kinds, want)
	}
}

// The page escapes what it shows: a summary and a reason with markup.
func TestPageEscapes(t *testing.T) {
	f := newFixture(t, false)
	rec, link := f.request("pay-8", `Pay <script>alert(1)</script> & "friends"`, Policy{Count: 2, Deadline: time.Hour}, "bob", "carol")
	bob := f.browser()
	wantStatus(t, bob.signIn(rec, link, "bob", "demo-bob"), http.StatusSeeOther)
	a := bob.get(link)
	wantStatus(t, bob.post("/approvals/"+rec.ID, decideForm(link, csrf(t, a), "approve", `<img src=x onerror=alert(2)>`)), http.StatusSeeOther)
	a = bob.get(link)
	wantStatus(t, a, http.StatusOK, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;friends&#34;", "&lt;img src=x onerror=alert(2)&gt;", "2 approvals from bob, carol")
	if strings.Contains(a.body, "<script") || strings.Contains(a.body, "<img") {
		t.Fatalf("markup from the summary or a reason reached the page:\n%s", a.body)
	}
	// The inline style sheet is the one the CSP's hash allows.
	m := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(a.body)
	if m == nil {
		t.Fatal("no style sheet")
	}
	sum := sha256.Sum256([]byte(m[1]))
	if h := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(a.header.Get("Content-Security-Policy"), h) {
		t.Fatalf("the CSP %q does not allow the page's style sheet (%s)", a.header.Get("Content-Security-Policy"), h)
	}
}

// Sign-in refuses wrong credentials and forged sessions; signing out
// ends the session.
func TestSignIn(t *testing.T) {
	f := newFixture(t, false)
	rec, link := f.request("pay-9", "Pay", fourEyes())
	b := f.browser()
	a := b.signIn(rec, link, "bob", "demo-alice")
	wantStatus(t, a, http.StatusUnauthorized, "do not sign you in", `id="signin"`)
	for _, c := range a.header.Values("Set-Cookie") {
		if strings.HasPrefix(c, "mrtr_approval=") {
			t.Fatalf("a refused sign-in set the session cookie: %s", c)
		}
	}
	// A session sealed under another key is nobody.
	otherRing, _ := seal.EphemeralRing(func(string) {})
	forged, _ := seal.New(otherRing, seal.Options{}).Seal(seal.Binding{Audience: "test-server", Subject: sessionSubject}, time.Hour, []byte("bob"))
	u, _ := url.Parse(f.srv.URL + "/approvals/")
	b.c.Jar.SetCookies(u, []*http.Cookie{{Name: "mrtr_approval", Value: forged, Path: "/approvals/"}})
	wantStatus(t, b.get(link), http.StatusOK, `id="signin"`)

	wantStatus(t, b.signIn(rec, link, "bob", "demo-bob"), http.StatusSeeOther)
	wantStatus(t, b.get(link), http.StatusOK, `id="principal">bob<`)
	wantStatus(t, b.post("/approvals/signout", url.Values{"id": {rec.ID}, "t": {tokenOf(link)}}), http.StatusSeeOther)
	wantStatus(t, b.get(link), http.StatusOK, `id="signin"`)

	// A bearer token signs in the page too; a refused one is 401.
	req, _ := http.NewRequest(http.MethodGet, link, http.NoBody)
	req.Header.Set("Authorization", "Bearer demo-carol")
	wantStatus(t, b.do(req), http.StatusOK, `id="principal">carol<`, `id="approve"`)
	req.Header.Set("Authorization", "Bearer nope")
	wantStatus(t, b.do(req), http.StatusUnauthorized, `data-code="unauthenticated"`)
}

// apiClient calls the JSON API with a demo bearer token ("" for none).
type apiClient struct {
	f      *fixture
	bearer string
	cookie string
}

func (f *fixture) api(user string) *apiClient {
	c := &apiClient{f: f}
	if user != "" {
		c.bearer = "Bearer demo-" + user
	}
	return c
}

func (c *apiClient) send(req *http.Request) answer {
	if c.bearer != "" {
		req.Header.Set("Authorization", c.bearer)
	}
	if c.cookie != "" {
		req.Header.Set("Cookie", c.cookie)
	}
	return (&browser{f: c.f, c: http.DefaultClient}).do(req)
}

func (c *apiClient) get(id, tok string) answer {
	req, _ := http.NewRequest(http.MethodGet, c.f.srv.URL+"/approvals/api/"+id+"?t="+url.QueryEscape(tok), http.NoBody)
	return c.send(req)
}

func (c *apiClient) postAs(id, contentType, body string) answer {
	req, _ := http.NewRequest(http.MethodPost, c.f.srv.URL+"/approvals/api/"+id, strings.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	return c.send(req)
}

func (c *apiClient) post(id, body string) answer { return c.postAs(id, "application/json", body) }

func wantAPIError(t *testing.T, a answer, status int, code string) {
	t.Helper()
	var e apiError
	if a.status != status || json.Unmarshal([]byte(a.body), &e) != nil || e.Error.Code != code || e.Error.Message == "" {
		t.Fatalf("answer %d %s, want %d with error code %s", a.status, a.body, status, code)
	}
}

func wantView(t *testing.T, a answer) View {
	t.Helper()
	var v View
	if a.status != http.StatusOK || json.Unmarshal([]byte(a.body), &v) != nil {
		t.Fatalf("answer %d %s, want 200 with a view", a.status, a.body)
	}
	return v
}

// The JSON API: bearer-authenticated reads and decisions on the api
// channel, with the same checks as the page, and strict about its input.
func TestAPI(t *testing.T) {
	f := newFixture(t, false)
	rec, link := f.request("pay-10", "Pay 3000 EUR", Policy{Count: 2, Deadline: time.Hour}, "bob", "carol")
	tok := tokenOf(link)
	body := func(decision string) string {
		return `{"token":` + quote(tok) + `,"decision":` + quote(decision) + `,"reason":"ok"}`
	}
	bob, carol, alice := f.api("bob"), f.api("carol"), f.api("alice")

	v := wantView(t, bob.get(rec.ID, tok))
	if v.ID != rec.ID || v.Tool != "send_payout" || v.Summary != "Pay 3000 EUR" || v.Requester != "alice" || v.State != Pending ||
		v.Policy.Count != 2 || v.Policy.Requester != RequesterExcluded || !slices.Equal(v.Policy.Approvers, []string{"bob", "carol"}) ||
		!v.Viewer.MayDecide || v.Viewer.Principal != "bob" || !v.Deadline.Equal(rec.Deadline) {
		t.Fatalf("view %+v", v)
	}
	if strings.Contains(bob.get(rec.ID, tok).body, rec.Digest) {
		t.Fatal("the view shows the digest")
	}
	av := wantView(t, alice.get(rec.ID, tok))
	if av.Viewer.MayDecide || av.Viewer.Code != CodeRequester {
		t.Fatalf("alice's view %+v", av.Viewer)
	}

	// Refused before anything is decided.
	wantAPIError(t, f.api("").get(rec.ID, tok), http.StatusUnauthorized, CodeUnauthenticated)
	wantAPIError(t, bob.postAs(rec.ID, "text/plain", body("approve")), http.StatusUnsupportedMediaType, codeMediaType)
	wantAPIError(t, bob.postAs(rec.ID, "application/x-www-form-urlencoded", "token=x&decision=approve"), http.StatusUnsupportedMediaType, codeMediaType)
	wantAPIError(t, bob.post(rec.ID, `{"token":"`+strings.Repeat("x", 17<<10)+`","decision":"approve"}`), http.StatusRequestEntityTooLarge, codeTooLarge)
	wantAPIError(t, bob.post(rec.ID, body("maybe")), http.StatusBadRequest, codeBadRequest)
	wantAPIError(t, bob.post(rec.ID, body("")), http.StatusBadRequest, codeBadRequest)
	wantAPIError(t, bob.post(rec.ID, `{"token":"x","decision":"approve","approver":"carol"}`), http.StatusBadRequest, codeBadRequest)
	wantAPIError(t, bob.post(rec.ID, body("approve")+body("approve")), http.StatusBadRequest, codeBadRequest)
	wantAPIError(t, alice.post(rec.ID, body("approve")), http.StatusForbidden, CodeRequester)
	wantAPIError(t, f.api("nobody").post(rec.ID, body("approve")), http.StatusUnauthorized, CodeUnauthenticated)
	// The page's session cookie is no credential here.
	page := f.browser()
	signedIn := page.signIn(rec, link, "bob", "demo-bob")
	cookieOnly := &apiClient{f: f, cookie: strings.Split(signedIn.header.Get("Set-Cookie"), ";")[0]}
	if !strings.HasPrefix(cookieOnly.cookie, "mrtr_approval=") {
		t.Fatalf("no session cookie: %q", cookieOnly.cookie)
	}
	a := cookieOnly.post(rec.ID, body("approve"))
	wantAPIError(t, a, http.StatusUnauthorized, CodeUnauthenticated)
	if !strings.Contains(a.body, "cookie") || a.header.Get("WWW-Authenticate") != "Bearer" {
		t.Fatalf("cookie-only call answered %s %v", a.body, a.header)
	}
	if got := f.record(rec.ID); len(got.Decisions) != 0 {
		t.Fatalf("refused calls decided: %+v", got.Decisions)
	}

	// Two of two approve.
	v = wantView(t, bob.post(rec.ID, body("approve")))
	if v.State != Pending || v.Approvals != 1 || v.Viewer.MayDecide || v.Viewer.Code != CodeAlreadyDecided {
		t.Fatalf("after bob: %+v", v)
	}
	wantAPIError(t, bob.post(rec.ID, body("approve")), http.StatusConflict, CodeAlreadyDecided)
	v = wantView(t, carol.post(rec.ID, body("approve")))
	if v.State != Approved || v.Approvals != 2 || len(v.Decisions) != 2 || v.Decisions[1].Channel != ChannelAPI || v.Decisions[1].Reason != "ok" {
		t.Fatalf("after carol: %+v", v)
	}

	// One decline declines; a decision on a closed record is a conflict.
	rec2, link2 := f.request("pay-11", "Pay", fourEyes())
	v = wantView(t, carol.post(rec2.ID, `{"token":`+quote(tokenOf(link2))+`,"decision":"decline","reason":"too much"}`))
	if v.State != Declined || v.Decisions[0].Approve || v.Decisions[0].Reason != "too much" {
		t.Fatalf("declined view %+v", v)
	}
	wantAPIError(t, bob.post(rec2.ID, `{"token":`+quote(tokenOf(link2))+`,"decision":"approve"}`), http.StatusConflict, CodeClosed)
	wantAPIError(t, bob.post("AAAAAAAAAAAAAAAAAAAAAA", body("approve")), http.StatusNotFound, CodeNotFound)
}

// The audit keeps every decision and refusal with its channel and actor,
// whichever way it came.
func TestAuditOfPageAndAPI(t *testing.T) {
	f := newFixture(t, false)
	rec, link := f.request("pay-12", "Pay", Policy{Count: 2, Deadline: time.Hour}, "bob", "carol")
	tok := tokenOf(link)
	wantAPIError(t, f.api("alice").post(rec.ID, `{"token":`+quote(tok)+`,"decision":"approve"}`), http.StatusForbidden, CodeRequester)
	bob := f.browser()
	wantStatus(t, bob.signIn(rec, link, "bob", "demo-bob"), http.StatusSeeOther)
	form := decideForm(link, csrf(t, bob.get(link)), "approve", "fine")
	wantStatus(t, bob.post("/approvals/"+rec.ID, form), http.StatusSeeOther)
	wantStatus(t, bob.post("/approvals/"+rec.ID, form), http.StatusConflict)
	wantView(t, f.api("carol").post(rec.ID, `{"token":`+quote(tok)+`,"decision":"decline","reason":"no"}`))

	events, err := f.svc.Audit(context.Background(), rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		got = append(got, string(e.Kind)+"/"+string(e.Channel)+"/"+e.Actor+"/"+e.Detail+"/"+e.Reason)
	}
	want := []string{
		"requested//alice/wf-pay-12/",
		"refused/api/alice/requester/",
		"approved/page/bob//fine",
		"refused/page/bob/already_decided/",
		"declined/api/carol//no",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("audit\n%q\nwant\n%q", got, want)
	}
	if r := f.record(rec.ID); r.State != Declined {
		t.Fatalf("state %s, want declined", r.State)
	}
}

// Without SignIn the page has no form: a visitor not signed in by
// Authenticate is told so (401), and /signin does not exist.
func TestPageWithoutSignIn(t *testing.T) {
	f := newFixture(t, false)
	rec, link := f.request("pay-13", "Pay", fourEyes())
	srv := httptest.NewServer(http.StripPrefix("/approvals", f.svc.Handler(HandlerOptions{Authenticate: demoAuthenticate})))
	defer srv.Close()
	b := f.browser()
	u := srv.URL + "/approvals/" + rec.ID + "?t=" + url.QueryEscape(tokenOf(link))
	a := b.get(u)
	wantStatus(t, a, http.StatusUnauthorized, "has no sign-in form")
	if strings.Contains(a.body, `id="signin"`) || strings.Contains(a.body, "Pay") {
		t.Fatalf("page without SignIn:\n%s", a.body)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/approvals/signin", strings.NewReader(url.Values{"id": {rec.ID}, "t": {tokenOf(link)}, "username": {"bob"}, "password": {"demo-bob"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	wantStatus(t, b.do(req), http.StatusNotFound)
	req, _ = http.NewRequest(http.MethodGet, u, http.NoBody)
	req.Header.Set("Authorization", "bearer demo-bob")
	wantStatus(t, b.do(req), http.StatusOK, `id="approve"`)
}

func TestBearer(t *testing.T) {
	for h, want := range map[string]string{"": "", "Bearer demo-bob": "bob", "bearer demo-alice": "alice", "Basic Ym9iOng=": "error", "Bearer ": "error", "Bearer demo-eve": "error"} {
		r := httptest.NewRequest(http.MethodGet, "/", http.NoBody)
		if h != "" {
			r.Header.Set("Authorization", h)
		}
		p, err := demoAuthenticate(r)
		if err != nil {
			p = "error"
		}
		if p != want {
			t.Errorf("%q: %q, want %q", h, p, want)
		}
	}
}

// Refusals are audited up to maxRefusedEvents, so that nobody holding a
// link grows the record without bound; past it they are still refused.
func TestRefusalsAuditedUpToBound(t *testing.T) {
	f := newFixture(t, false)
	rec, link := f.request("pay-14", "Pay", fourEyes())
	alice := f.api("alice")
	body := `{"token":` + quote(tokenOf(link)) + `,"decision":"approve"}`
	for range maxRefusedEvents + 5 {
		wantAPIError(t, alice.post(rec.ID, body), http.StatusForbidden, CodeRequester)
	}
	got := f.record(rec.ID)
	if n := got.refusals(); n != maxRefusedEvents || len(got.Events) != maxRefusedEvents+1 || got.State != Pending {
		t.Fatalf("%d refusals, %d events, state %s; want %d, %d, pending", n, len(got.Events), got.State, maxRefusedEvents, maxRefusedEvents+1)
	}
	// A decision still goes through and is audited.
	wantView(t, f.api("bob").post(rec.ID, body))
	if got := f.record(rec.ID); got.State != Approved || got.Events[len(got.Events)-1].Kind != EventApproved {
		t.Fatalf("after bob: %s, %+v", got.State, got.Events[len(got.Events)-1])
	}
}

// Two approvers deciding a one-approval request at once through the page
// and the API: exactly one decision is recorded, the other is told the
// request is closed.
func TestConcurrentDecisions(t *testing.T) {
	f := newFixture(t, false)
	for i := range 10 {
		rec, link := f.request("pay-race-"+string(rune('a'+i)), "Pay", fourEyes())
		bob := f.browser()
		wantStatus(t, bob.signIn(rec, link, "bob", "demo-bob"), http.StatusSeeOther)
		form := decideForm(link, csrf(t, bob.get(link)), "approve", "")
		var wg sync.WaitGroup
		var page, api answer
		wg.Go(func() { page = bob.post("/approvals/"+rec.ID, form) })
		wg.Go(func() {
			api = f.api("carol").post(rec.ID, `{"token":`+quote(tokenOf(link))+`,"decision":"decline"}`)
		})
		wg.Wait()
		got := f.record(rec.ID)
		if len(got.Decisions) != 1 {
			t.Fatalf("%d decisions recorded: %+v", len(got.Decisions), got.Decisions)
		}
		pageWon := page.status == http.StatusSeeOther
		apiWon := api.status == http.StatusOK
		if pageWon == apiWon || (pageWon && (got.State != Approved || api.status != http.StatusConflict)) || (apiWon && (got.State != Declined || page.status != http.StatusConflict)) {
			t.Fatalf("page %d, api %d, state %s", page.status, api.status, got.State)
		}
	}
}

// The session cookie is Secure when the handler's URL is https.
func TestSessionCookieSecureOnHTTPS(t *testing.T) {
	f := newFixture(t, false)
	svc, err := New(Config{Store: f.svc.cfg.Store, Codec: f.svc.cfg.Codec, Audience: "test-server", URL: "https://tools.example.com/x/approvals"})
	if err != nil {
		t.Fatal(err)
	}
	h := svc.newHandler(HandlerOptions{Authenticate: demoAuthenticate})
	w := httptest.NewRecorder()
	if err := h.setSession(w, "bob"); err != nil {
		t.Fatal(err)
	}
	c := w.Result().Cookies()
	if len(c) != 1 || !c[0].Secure || !c[0].HttpOnly || c[0].SameSite != http.SameSiteLaxMode || c[0].Path != "/x/approvals/" || c[0].MaxAge != int(DefaultSession/time.Second) {
		t.Fatalf("cookie %+v", c)
	}
	r := httptest.NewRequest(http.MethodGet, "/", http.NoBody)
	r.AddCookie(c[0])
	if p := h.session(r); p != "bob" {
		t.Fatalf("session reads %q", p)
	}
}

// Under RequesterPage the requester may approve her own request on the
// page (not in the chat).
func TestPageRequesterAllowedByPolicy(t *testing.T) {
	f := newFixture(t, false)
	rec, link := f.request("pay-15", "Pay", Policy{Count: 1, Requester: RequesterPage, Deadline: time.Hour})
	alice := f.browser()
	wantStatus(t, alice.signIn(rec, link, "alice", "demo-alice"), http.StatusSeeOther)
	a := alice.get(link)
	wantStatus(t, a, http.StatusOK, "the requester may approve here")
	wantStatus(t, alice.post("/approvals/"+rec.ID, decideForm(link, csrf(t, a), "approve", "")), http.StatusSeeOther)
	if got := f.record(rec.ID); got.State != Approved || got.Decisions[0].Approver != "alice" {
		t.Fatalf("record %+v", got)
	}
}
