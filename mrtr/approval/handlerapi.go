package approval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
)

// View is what the page and the JSON API show of a record: never its
// digest, workflow or outbox.
type View struct {
	ID        string     `json:"id"`
	Tool      string     `json:"tool"`
	Summary   string     `json:"summary"`
	Requester string     `json:"requester"`
	State     State      `json:"state"`
	Created   time.Time  `json:"created"`
	Deadline  time.Time  `json:"deadline"`
	DecidedAt time.Time  `json:"decidedAt,omitzero"`
	Policy    ViewPolicy `json:"policy"`
	Approvals int        `json:"approvals"`
	Decisions []Decision `json:"decisions"`
	Viewer    Viewer     `json:"viewer"`
}

// ViewPolicy is the policy as a viewer needs it.
type ViewPolicy struct {
	// Count is how many distinct approvers must approve.
	Count int `json:"count"`
	// Requester is what the requester may do.
	Requester Requester `json:"requester"`
	Role      string    `json:"role,omitempty"`
	// Approvers are the principals admitted (escalation included once it
	// fired); empty when anyone signed in is.
	Approvers []string `json:"approvers,omitempty"`
}

// Viewer is what the viewer may do.
type Viewer struct {
	Principal string `json:"principal"`
	MayDecide bool   `json:"mayDecide"`
	// Code and Message say why not (a refusal Decide would answer).
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// view returns what principal sees of rec. A pending record whose
// deadline passed shows as expired: Decide refuses it, and the next write
// records it.
func (h *handler) view(rec *Record, principal string, ch Channel) *View {
	v := &View{
		ID: rec.ID, Tool: rec.Tool, Summary: rec.Summary, Requester: rec.Requester, State: rec.State,
		Created: rec.Created, Deadline: rec.Deadline, DecidedAt: rec.DecidedAt,
		Policy:    ViewPolicy{Count: rec.Policy.Count, Requester: rec.Policy.Requester, Role: rec.Policy.Role, Approvers: rec.admitted()},
		Approvals: rec.Approvals(), Decisions: rec.Decisions, Viewer: Viewer{Principal: principal},
	}
	// What people read to decide shows bidirectional controls visibly: a
	// requester could otherwise make the summary (or a reason) read as
	// another action than the one the digest binds.
	v.Summary = revealBidi(rec.Summary)
	v.Decisions = make([]Decision, len(rec.Decisions))
	for i, d := range rec.Decisions {
		d.Reason = revealBidi(d.Reason)
		v.Decisions[i] = d
	}
	if rec.State == Pending && !h.s.cfg.Now().Before(rec.Deadline) {
		v.State, v.DecidedAt = Expired, rec.Deadline
	}
	if why := h.mayDecide(rec, principal, ch); why != nil {
		v.Viewer.Code, v.Viewer.Message = why.Code, why.Message
	} else {
		v.Viewer.MayDecide = true
	}
	return v
}

// apiError is the API's answer to a refusal.
type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"code":"internal","message":"the answer could not be encoded"}}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func (h *handler) apiRefuse(w http.ResponseWriter, ref *Refusal) {
	var e apiError
	e.Error.Code, e.Error.Message = ref.Code, ref.Message
	status := refusalStatus(ref.Code)
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", "Bearer")
	}
	writeJSON(w, status, e)
}

// apiPrincipal is the API caller: Authenticate's principal only. The
// page's session cookie is not a credential here (a cross-site form could
// carry it, and the API has no CSRF token).
func (h *handler) apiPrincipal(w http.ResponseWriter, r *http.Request) (string, bool) {
	p, err := h.opts.Authenticate(r)
	switch {
	case err != nil:
		h.apiRefuse(w, refuse(CodeUnauthenticated, "the server did not accept your credentials"))
		return "", false
	case p == "":
		msg := "authenticate with the server's credentials (Authorization header)"
		if _, err := r.Cookie(h.opts.CookieName); err == nil {
			msg = "the API does not take the page's sign-in cookie: " + msg
		}
		h.apiRefuse(w, refuse(CodeUnauthenticated, msg))
		return "", false
	}
	return p, true
}

// apiGet answers the record behind a link, as the caller sees it.
func (h *handler) apiGet(w http.ResponseWriter, r *http.Request) {
	principal, ok := h.apiPrincipal(w, r)
	if !ok {
		return
	}
	rec, ref := h.open(r.Context(), r.PathValue("id"), r.URL.Query().Get("t"))
	if ref != nil {
		h.apiRefuse(w, ref)
		return
	}
	writeJSON(w, http.StatusOK, h.view(rec, principal, ChannelAPI))
}

// apiDecision is the body of POST /api/{id}.
type apiDecision struct {
	Token    string `json:"token"`
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// apiDecide takes a decision: {"token", "decision", "reason"}.
func (h *handler) apiDecide(w http.ResponseWriter, r *http.Request) {
	principal, ok := h.apiPrincipal(w, r)
	if !ok {
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		h.apiRefuse(w, refuse(codeMediaType, "send the decision as application/json"))
		return
	}
	var body apiDecision
	if ref := readJSON(w, r, &body); ref != nil {
		h.apiRefuse(w, ref)
		return
	}
	approve, reason, ref := readDecision(body.Decision, body.Reason)
	if ref != nil {
		h.apiRefuse(w, ref)
		return
	}
	id := r.PathValue("id")
	rec, ref := h.open(r.Context(), id, body.Token)
	if ref != nil {
		h.apiRefuse(w, ref)
		return
	}
	rec, err := h.s.Decide(r.Context(), Decide{ID: id, Digest: rec.Digest, Approver: principal, Approve: approve, Reason: reason, Channel: ChannelAPI})
	if err != nil {
		h.apiRefuse(w, h.asRefusal(r.Context(), err))
		return
	}
	writeJSON(w, http.StatusOK, h.view(rec, principal, ChannelAPI))
}

// readJSON decodes one JSON object of at most maxBody bytes with no
// unknown fields into v.
func readJSON(w http.ResponseWriter, r *http.Request, v any) *Refusal {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return refuse(codeTooLarge, "the body is larger than 16 KiB")
		}
		return refuse(codeBadRequest, "the body could not be read")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return refuse(codeBadRequest, "the body is not the expected JSON object: "+err.Error())
	}
	if dec.More() {
		return refuse(codeBadRequest, "the body holds more than one JSON value")
	}
	return nil
}

// revealBidi replaces the Unicode bidirectional controls in s by their
// code points ("[U+202E]"), so that they show instead of reordering the
// text around them.
func revealBidi(s string) string {
	if !strings.ContainsFunc(s, isBidiControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isBidiControl(r) {
			fmt.Fprintf(&b, "[U+%04X]", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isBidiControl(r rune) bool {
	switch r {
	case '\u061C', '\u200E', '\u200F', '\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069':
		return true
	}
	return false
}
