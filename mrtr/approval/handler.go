package approval

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/seal"
)

// The approval page and its JSON API. Service.Handler serves, relative to
// the path of Config.URL (mount it there, with or without
// http.StripPrefix: mux.Handle("/approvals/", svc.Handler(opts))):
//
//	GET  /{id}?t=TOKEN   the page: sign-in form, or the request and, for
//	                     an approver who may decide, the decision form
//	POST /{id}           the decision form (t, csrf, decision, reason)
//	POST /signin         the sign-in form (id, t, username, password)
//	POST /signout        (id, t)
//	GET  /api/{id}?t=TOKEN
//	POST /api/{id}       {"token", "decision": "approve"|"decline", "reason"}
//
// Who is deciding is always the server's own authentication
// (HandlerOptions.Authenticate); the page falls back to a session cookie
// its sign-in form sets, the API never does (a cookie-only call to the
// API is refused: the API has no CSRF token to check). The link's token
// names the record and its digest; every decision is Service.Decide with
// that digest, so the page and the API check exactly what the chat does.

// HandlerOptions configures Service.Handler.
type HandlerOptions struct {
	// Authenticate finds the principal of a request by the server's own
	// authentication (a bearer token, a client certificate, a proxy's
	// header). It returns "" and no error for a request that carries no
	// credentials (the page then falls back to its session cookie), and an
	// error for credentials it refuses (the request is answered 401).
	// Required.
	Authenticate func(r *http.Request) (principal string, err error)
	// SignIn, when set, checks the name and password typed into the
	// page's sign-in form and returns the principal they sign in; the page
	// then keeps the principal in a session cookie (HttpOnly, SameSite=Lax,
	// Secure when Config.URL is https, sealed by Config.Codec, expiring
	// after Session). Nil: the page has no form, and only Authenticate
	// signs people in.
	SignIn func(r *http.Request, username, password string) (principal string, ok bool)
	// PasswordLabel labels the form's password field (default "Password").
	PasswordLabel string
	// Session is how long a sign-in lasts (default 8 h).
	Session time.Duration
	// CookieName names the session cookie (default "mrtr_approval").
	CookieName string
}

// Bearer returns an Authenticate for HandlerOptions that reads
// "Authorization: Bearer <token>" and asks check for its principal: ""
// and no error without the header, an error for another scheme or a
// token check refuses. The example server passes its demo token check.
func Bearer(check func(token string) (principal string, err error)) func(r *http.Request) (string, error) {
	return func(r *http.Request) (string, error) {
		h := r.Header.Get("Authorization")
		if h == "" {
			return "", nil
		}
		scheme, token, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
			return "", errors.New("approval: the Authorization header is not a bearer token")
		}
		p, err := check(token)
		if err == nil && p == "" {
			err = errors.New("approval: the bearer token names nobody")
		}
		return p, err
	}
}

// Handler limits and defaults.
const (
	DefaultSession = 8 * time.Hour
	maxBody        = 16 << 10 // bytes of a form or JSON body
	maxReason      = 1000     // characters of a reason
)

// Handler-level refusal codes, beside the Code* of Decide and OpenLink.
const (
	codeBadRequest  = "bad_request"            // a malformed form or body, an unknown decision
	codeMediaType   = "unsupported_media_type" // the API's body is not application/json
	codeTooLarge    = "too_large"              // a body over 16 KiB
	codeCSRF        = "csrf"                   // the form's CSRF token is missing or not this viewer's for this record
	codeCrossOrigin = "cross_origin"           // a form posted from another site
	codeInternal    = "internal"
)

// Subjects of the tokens the handler seals with Config.Codec: the link
// (Service.Link) is "approval:<id>", so none opens as another.
const (
	sessionSubject = "approval-session"
	csrfSubject    = "approval-csrf:"
)

// idRE is what a record id may look like (seal.NewReference makes 22
// base64url characters): nothing that could make a relative URL leave the
// handler's path.
var idRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

type handler struct {
	s      *Service
	opts   HandlerOptions
	prefix string // Config.URL's path, stripped when a request carries it
	secure bool   // Config.URL is https
	origin string // Config.URL's scheme://host
}

// Handler returns the approval page and JSON API (see HandlerOptions).
// It panics without opts.Authenticate: a configuration error that must
// surface at startup.
func (s *Service) Handler(opts HandlerOptions) http.Handler {
	if opts.Authenticate == nil {
		panic("approval: HandlerOptions.Authenticate is required")
	}
	h := s.newHandler(opts)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{id}", h.page)
	mux.HandleFunc("POST /{id}", h.decide)
	mux.HandleFunc("POST /signin", h.signIn)
	mux.HandleFunc("POST /signout", h.signOut)
	mux.HandleFunc("GET /api/{id}", h.apiGet)
	mux.HandleFunc("POST /api/{id}", h.apiDecide)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Cache-Control", "no-store")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer") // the link's token is in the URL
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Content-Security-Policy", csp)
		if h.prefix != "" {
			if rest, ok := strings.CutPrefix(r.URL.Path, h.prefix); ok && strings.HasPrefix(rest, "/") {
				r2 := new(http.Request)
				*r2 = *r
				u := *r.URL
				u.Path, u.RawPath = rest, ""
				r2.URL = &u
				r = r2
			}
		}
		mux.ServeHTTP(w, r)
	})
}

func (s *Service) newHandler(opts HandlerOptions) *handler {
	if opts.PasswordLabel == "" {
		opts.PasswordLabel = "Password"
	}
	if opts.Session <= 0 {
		opts.Session = DefaultSession
	}
	if opts.CookieName == "" {
		opts.CookieName = "mrtr_approval"
	}
	return &handler{s: s, opts: opts, prefix: s.base.Path, secure: s.base.Scheme == "https", origin: s.base.Scheme + "://" + s.base.Host}
}

// refusalStatus is the HTTP status of a refusal code.
func refusalStatus(code string) int {
	switch code {
	case CodeNotFound:
		return http.StatusNotFound
	case CodeBadLink, CodeDigest, codeBadRequest:
		return http.StatusBadRequest
	case CodeAlreadyDecided, CodeClosed, CodePending, CodeConsumed:
		return http.StatusConflict
	case CodeDeadline:
		return http.StatusGone
	case CodeUnauthenticated: // nobody signed in, or credentials refused
		return http.StatusUnauthorized
	case codeMediaType:
		return http.StatusUnsupportedMediaType
	case codeTooLarge:
		return http.StatusRequestEntityTooLarge
	case codeInternal:
		return http.StatusInternalServerError
	}
	// CodeRequester, CodeNotApprover, CodeNotRequester, codeCSRF,
	// codeCrossOrigin.
	return http.StatusForbidden
}

// asRefusal turns err into the refusal to answer with: a *Refusal as it
// is, anything else (a store error) logged and answered as internal.
func (h *handler) asRefusal(ctx context.Context, err error) *Refusal {
	var r *Refusal
	if errors.As(err, &r) {
		return r
	}
	h.s.log.LogAttrs(ctx, slog.LevelError, "approval handler", slog.String("error", err.Error()))
	return refuse(codeInternal, "something went wrong on the server; try again later")
}

// open checks the id and token of a link and opens it.
func (h *handler) open(ctx context.Context, id, token string) (*Record, *Refusal) {
	if !idRE.MatchString(id) {
		return nil, refuse(CodeNotFound, "no such approval (it may have been removed after its retention)")
	}
	if token == "" {
		return nil, refuse(CodeBadLink, "this link has no token; open the whole link you were sent")
	}
	rec, err := h.s.OpenLink(ctx, id, token)
	if err != nil {
		return nil, h.asRefusal(ctx, err)
	}
	return rec, nil
}

// mayDecide reports why principal may not decide rec on ch now (nil: they
// may), by the checks Decide makes.
func (h *handler) mayDecide(rec *Record, principal string, ch Channel) *Refusal {
	expired := rec.State == Pending && !h.s.cfg.Now().Before(rec.Deadline)
	return check(rec, Decide{Approver: principal, Channel: ch}, expired)
}

// Sessions and CSRF tokens are sealed by the service's codec: a session
// carries the principal, bound to the audience; a CSRF token carries
// nothing, bound to the audience, the record and the principal, so that
// it only posts that viewer's decision on that record.

func (h *handler) sessionBinding() seal.Binding {
	return seal.Binding{Audience: h.s.cfg.Audience, Subject: sessionSubject}
}

func (h *handler) csrfBinding(id, principal string) seal.Binding {
	return seal.Binding{Audience: h.s.cfg.Audience, Subject: csrfSubject + id, Principal: principal}
}

// session returns the principal of the request's session cookie, or "".
func (h *handler) session(r *http.Request) string {
	c, err := r.Cookie(h.opts.CookieName)
	if err != nil || c.Value == "" {
		return ""
	}
	p, err := h.s.cfg.Codec.Open(h.sessionBinding(), c.Value)
	if err != nil {
		return ""
	}
	return string(p)
}

// setSession signs principal in (principal "" signs out).
func (h *handler) setSession(w http.ResponseWriter, principal string) error {
	c := &http.Cookie{Name: h.opts.CookieName, Path: h.prefix + "/", HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteLaxMode}
	if principal == "" {
		c.MaxAge = -1
	} else {
		tok, err := h.s.cfg.Codec.Seal(h.sessionBinding(), h.opts.Session, []byte(principal))
		if err != nil {
			return err
		}
		c.Value, c.MaxAge = tok, int(h.opts.Session/time.Second)
	}
	http.SetCookie(w, c)
	return nil
}

// pagePrincipal is who views the page: Authenticate's principal, else the
// session's. An error is refused credentials.
func (h *handler) pagePrincipal(r *http.Request) (string, error) {
	p, err := h.opts.Authenticate(r)
	if err != nil || p != "" {
		return p, err
	}
	return h.session(r), nil
}

func (h *handler) csrfToken(id, principal string) (string, error) {
	return h.s.cfg.Codec.Seal(h.csrfBinding(id, principal), h.opts.Session, nil)
}

func (h *handler) csrfValid(id, principal, token string) bool {
	if token == "" || principal == "" {
		return false
	}
	_, err := h.s.cfg.Codec.Open(h.csrfBinding(id, principal), token)
	return err == nil
}

// sameOrigin refuses a form posted by another site, by the headers
// browsers send: Sec-Fetch-Site when present, else Origin. Without either
// (an old browser, a non-browser client), and with Origin "null" (what a
// browser sends for a page whose Referrer-Policy is no-referrer, as
// ours), the CSRF token decides alone.
func (h *handler) sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin", "none":
		return true
	case "":
	default:
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" || o == "null" {
		return true
	}
	if o == h.origin {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}

// back is the relative URL of the page of record id with link token t,
// from any page of the handler.
func back(id, token string) string {
	return id + "?" + url.Values{"t": {token}}.Encode()
}

// seeOther answers a form post with a redirect to a page of the handler
// (POST-redirect-GET). The Location is relative, so that it works
// wherever the handler is mounted (http.Redirect would resolve it against
// a path StripPrefix shortened).
func seeOther(w http.ResponseWriter, location string) {
	w.Header().Set("Location", location)
	w.WriteHeader(http.StatusSeeOther)
}
