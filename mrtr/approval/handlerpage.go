package approval

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// The page: html/template escapes everything shown (the summary, names,
// reasons); the pages need no script at all, and the one style sheet is
// inline, allowed by its hash in the Content-Security-Policy.

//go:embed page/*.html page/page.css
var pageFS embed.FS

var (
	pageCSS  = mustRead("page/page.css")
	csp      = "default-src 'none'; style-src 'sha256-" + cssHash(pageCSS) + "'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
	pageTmpl = map[string]*template.Template{}
)

var pageFuncs = template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	"channel": func(c Channel) string {
		switch c {
		case ChannelChat:
			return "in the chat"
		case ChannelPage:
			return "on the approval page"
		case ChannelAPI:
			return "through the API"
		}
		return "by " + string(c)
	},
	"requesterRule": func(r Requester) string {
		switch r {
		case RequesterPage:
			return "the requester may approve here"
		case RequesterChat:
			return "the requester may approve here or in the chat"
		}
		return "someone other than the requester must approve"
	},
}

func init() {
	for _, name := range []string{"signin", "record", "refusal"} {
		pageTmpl[name] = template.Must(template.New(name).Funcs(pageFuncs).ParseFS(pageFS, "page/layout.html", "page/"+name+".html"))
	}
}

func mustRead(name string) string {
	b, err := pageFS.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func cssHash(css string) string {
	sum := sha256.Sum256([]byte(css))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// pageData is what the templates show.
type pageData struct {
	Title         string
	Style         template.CSS
	Principal     string // signed in as ("" when nobody is)
	ID, Link      string // the record id and link token, to come back
	View          *View
	MayDecide     bool
	CSRF          string
	WhyNot        string // why the viewer may not decide
	SignIn        bool   // the sign-in form is offered
	PasswordLabel string
	Code, Error   string // a refusal
}

// render writes page name with data and status.
func (h *handler) render(w http.ResponseWriter, r *http.Request, status int, name string, d *pageData) {
	d.Style = template.CSS(pageCSS) // the embedded style sheet, not input
	var buf bytes.Buffer
	if err := pageTmpl[name].ExecuteTemplate(&buf, "layout", d); err != nil {
		h.s.log.LogAttrs(r.Context(), slog.LevelError, "approval page", slog.String("error", err.Error()))
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// refusePage answers with a page telling ref.
func (h *handler) refusePage(w http.ResponseWriter, r *http.Request, ref *Refusal, principal, id, token string) {
	h.render(w, r, refusalStatus(ref.Code), "refusal", &pageData{
		Title: "Not possible", Principal: principal, ID: id, Link: token, Code: ref.Code, Error: ref.Message,
	})
}

// page shows the request behind a link: after sign-in, to anyone signed
// in (the link is the authority to see it), with the decision form for a
// viewer Decide would admit.
func (h *handler) page(w http.ResponseWriter, r *http.Request) {
	id, token := r.PathValue("id"), r.URL.Query().Get("t")
	rec, ref := h.open(r.Context(), id, token)
	if ref != nil {
		h.refusePage(w, r, ref, "", "", "")
		return
	}
	principal, err := h.pagePrincipal(r)
	if err != nil {
		h.refusePage(w, r, refuse(CodeUnauthenticated, "the server did not accept your credentials"), "", "", "")
		return
	}
	if principal == "" {
		h.signInPage(w, r, http.StatusOK, id, token, "")
		return
	}
	d := &pageData{Title: "Approval request", Principal: principal, ID: id, Link: token, View: h.view(rec, principal, ChannelPage)}
	if why := h.mayDecide(rec, principal, ChannelPage); why != nil {
		d.WhyNot = why.Message
	} else if d.CSRF, err = h.csrfToken(id, principal); err != nil {
		h.refusePage(w, r, h.asRefusal(r.Context(), err), principal, id, token)
		return
	} else {
		d.MayDecide = true
	}
	h.render(w, r, http.StatusOK, "record", d)
}

func (h *handler) signInPage(w http.ResponseWriter, r *http.Request, status int, id, token, msg string) {
	if h.opts.SignIn == nil && status == http.StatusOK {
		status = http.StatusUnauthorized
	}
	d := &pageData{Title: "Sign in to decide", ID: id, Link: token, SignIn: h.opts.SignIn != nil, PasswordLabel: h.opts.PasswordLabel, Error: msg}
	if d.SignIn {
		d.CSRF = h.signInNonce(w)
	}
	h.render(w, r, status, "signin", d)
}

// Sign-in is guarded against login CSRF (a site signing the viewer in as
// someone else) by a double submit: the form carries a random nonce the
// page also sets in a SameSite=Strict cookie, which a form posted from
// another site does not send, whatever its Origin says.

// signInNonce sets a fresh sign-in nonce cookie and returns its value.
func (h *handler) signInNonce(w http.ResponseWriter) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	nonce := base64.RawURLEncoding.EncodeToString(b[:])
	http.SetCookie(w, &http.Cookie{Name: h.opts.CookieName + "_signin", Value: nonce, Path: h.prefix + "/", HttpOnly: true,
		Secure: h.secure, SameSite: http.SameSiteStrictMode, MaxAge: int(h.opts.Session / time.Second)})
	return nonce
}

// signInNonceValid reports whether the posted nonce is the cookie's.
func (h *handler) signInNonceValid(r *http.Request) bool {
	c, err := r.Cookie(h.opts.CookieName + "_signin")
	posted := r.PostForm.Get("csrf")
	return err == nil && c.Value != "" && subtle.ConstantTimeCompare([]byte(c.Value), []byte(posted)) == 1
}

// form parses a form post of at most maxBody bytes from the same site;
// it answers the refusal itself and returns false when it refuses.
func (h *handler) form(w http.ResponseWriter, r *http.Request) bool {
	if !h.sameOrigin(r) {
		h.refusePage(w, r, refuse(codeCrossOrigin, "this form was posted from another site"), "", "", "")
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			h.refusePage(w, r, refuse(codeTooLarge, "the form is too large"), "", "", "")
		} else {
			h.refusePage(w, r, refuse(codeBadRequest, "the form could not be read"), "", "", "")
		}
		return false
	}
	return true
}

// decide takes the decision form: the link, the viewer's CSRF token for
// this record, approve or decline, and a reason.
func (h *handler) decide(w http.ResponseWriter, r *http.Request) {
	if !h.form(w, r) {
		return
	}
	id, token := r.PathValue("id"), r.PostForm.Get("t")
	rec, ref := h.open(r.Context(), id, token)
	if ref != nil {
		h.refusePage(w, r, ref, "", "", "")
		return
	}
	principal, err := h.pagePrincipal(r)
	switch {
	case err != nil:
		h.refusePage(w, r, refuse(CodeUnauthenticated, "the server did not accept your credentials"), "", id, token)
		return
	case principal == "":
		h.signInPage(w, r, http.StatusForbidden, id, token, "Your sign-in ended before you decided: sign in and decide again.")
		return
	case !h.csrfValid(id, principal, r.PostForm.Get("csrf")):
		h.s.log.LogAttrs(r.Context(), slog.LevelWarn, "approval form refused: bad CSRF token", slog.String("approval", id), slog.String("principal", principal))
		h.refusePage(w, r, refuse(codeCSRF, "this form was not issued to you for this request, or it expired: open the request again and decide there"), principal, id, token)
		return
	}
	approve, reason, ref := readDecision(r.PostForm.Get("decision"), r.PostForm.Get("reason"))
	if ref != nil {
		h.refusePage(w, r, ref, principal, id, token)
		return
	}
	_, err = h.s.Decide(r.Context(), Decide{ID: id, Digest: rec.Digest, Approver: principal, Approve: approve, Reason: reason, Channel: ChannelPage})
	if err != nil {
		h.refusePage(w, r, h.asRefusal(r.Context(), err), principal, id, token)
		return
	}
	seeOther(w, back(id, token))
}

// readDecision checks a decision and its reason.
func readDecision(decision, reason string) (approve bool, clean string, ref *Refusal) {
	switch decision {
	case "approve":
		approve = true
	case "decline":
	default:
		return false, "", refuse(codeBadRequest, `the decision must be "approve" or "decline"`)
	}
	clean = strings.TrimSpace(strings.ToValidUTF8(reason, "\uFFFD"))
	if utf8.RuneCountInString(clean) > maxReason {
		return false, "", refuse(codeBadRequest, "the reason is longer than 1000 characters")
	}
	return approve, clean, nil
}

// signIn takes the sign-in form and returns to the link.
func (h *handler) signIn(w http.ResponseWriter, r *http.Request) {
	if h.opts.SignIn == nil {
		http.NotFound(w, r)
		return
	}
	if !h.form(w, r) {
		return
	}
	id, token := r.PostForm.Get("id"), r.PostForm.Get("t")
	if _, ref := h.open(r.Context(), id, token); ref != nil {
		h.refusePage(w, r, ref, "", "", "")
		return
	}
	if !h.signInNonceValid(r) {
		h.refusePage(w, r, refuse(codeCSRF, "this sign-in form was not the page's own; open the link and sign in again"), "", id, token)
		return
	}
	user, password := strings.TrimSpace(r.PostForm.Get("username")), r.PostForm.Get("password")
	principal, ok := "", false
	if user != "" && password != "" && len(user) <= 200 && len(password) <= 1000 {
		principal, ok = h.opts.SignIn(r, user, password)
	}
	if !ok || principal == "" {
		h.s.log.LogAttrs(r.Context(), slog.LevelWarn, "approval sign-in refused", slog.String("approval", id))
		h.signInPage(w, r, http.StatusUnauthorized, id, token, "That name and password do not sign you in.")
		return
	}
	if err := h.setSession(w, principal); err != nil {
		h.refusePage(w, r, h.asRefusal(r.Context(), err), "", id, token)
		return
	}
	seeOther(w, back(id, token))
}

// signOut ends the session and returns to the link (to sign in as
// someone else).
func (h *handler) signOut(w http.ResponseWriter, r *http.Request) {
	if !h.form(w, r) {
		return
	}
	_ = h.setSession(w, "")
	id, token := r.PostForm.Get("id"), r.PostForm.Get("t")
	if !idRE.MatchString(id) {
		h.render(w, r, http.StatusOK, "refusal", &pageData{Title: "Signed out", Error: "You are signed out."})
		return
	}
	seeOther(w, back(id, token))
}
