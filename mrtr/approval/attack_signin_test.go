package approval

import (
	"net/http"
	"net/url"
	"testing"
)

// Login CSRF: a cross-site form posting the attacker's credentials to
// /signin, from a page with Referrer-Policy no-referrer (Origin: null), in
// a browser without Fetch Metadata, must not sign the victim in: the form
// lacks the page's sign-in nonce (a SameSite=Strict cookie).
func TestAttackLoginCSRFWithNullOrigin(t *testing.T) {
	f := newFixture(t, false)
	rec, link := f.request("lcsrf", "Pay", fourEyes(), "bob", "carol")
	victim := f.browser()
	a := victim.post("/approvals/signin", url.Values{"id": {rec.ID}, "t": {tokenOf(link)}, "username": {"carol"}, "password": {"demo-carol"}}, "Origin", "null")
	if a.status == http.StatusSeeOther && a.header.Get("Set-Cookie") != "" {
		t.Fatalf("a cross-site sign-in with Origin: null set the session: %v", a.header.Get("Set-Cookie"))
	}
}
