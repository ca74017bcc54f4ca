package mrtr

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A request the client cancelled (notifications/cancelled) gets no
// response: the MCP cancellation utility says its receiver does not send
// one. go-sdk v1.8.0 always writes one, once the handler returns, with no
// hook in between (go-sdk issue #1259), so on the stateful sessions of
// older clients Handler drops it from the call's event stream: it notes
// which calls each POST carries and which of them the session cancels, and
// the stream of a POST leaves out the response to a cancelled one. (On
// 2026-07-28 a client cancels by closing the request's stream, which ends
// the round: there is nobody to answer.)

// cancelWatch knows the calls in flight on the stateful sessions of one
// Handler, by session and request id.
type cancelWatch struct {
	mu    sync.Mutex
	calls map[callKey]*postCalls
}

type callKey struct {
	session string
	id      jsonrpc.ID
}

// postCalls are the calls of one POST, and which of them were cancelled.
type postCalls struct {
	mu        sync.Mutex
	cancelled map[jsonrpc.ID]bool
}

func (pc *postCalls) isCancelled(id jsonrpc.ID) bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.cancelled[id]
}

func (pc *postCalls) anyCancelled() bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return len(pc.cancelled) > 0
}

// serve serves r with h; for a POST of a session it notes the calls and
// cancellations in its body (at most limit bytes are read, all of it for
// a negative limit; a body over the limit or malformed goes to h as it is,
// which refuses it).
func (cw *cancelWatch) serve(h http.Handler, w http.ResponseWriter, r *http.Request, limit int64) {
	session := r.Header.Get("Mcp-Session-Id")
	if r.Method != http.MethodPost || session == "" || r.Body == nil {
		h.ServeHTTP(w, r)
		return
	}
	var body []byte
	var err error
	if limit < 0 {
		body, err = io.ReadAll(r.Body)
	} else {
		body, err = io.ReadAll(io.LimitReader(r.Body, limit+1))
	}
	r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || (limit >= 0 && int64(len(body)) > limit) {
		h.ServeHTTP(w, r)
		return
	}
	var calls []jsonrpc.ID
	for _, msg := range messages(body) {
		req, ok := msg.(*jsonrpc.Request)
		switch {
		case !ok:
		case req.IsCall():
			calls = append(calls, req.ID)
		case req.Method == "notifications/cancelled":
			// Noted before h cancels the call: its response cannot be
			// written before this.
			cw.cancel(session, req.Params)
		}
	}
	if len(calls) == 0 {
		h.ServeHTTP(w, r)
		return
	}
	pc := cw.add(session, calls)
	defer cw.remove(session, calls, pc)
	fw := &dropResponses{ResponseWriter: w, calls: pc}
	h.ServeHTTP(fw, r)
	fw.finish()
}

// messages decodes a POST body: one message or a batch (2025-03-26).
// Anything it cannot decode is left out (go-sdk refuses it).
func messages(body []byte) []jsonrpc.Message {
	raws := []json.RawMessage{body}
	if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '[' {
		if json.Unmarshal(b, &raws) != nil {
			return nil
		}
	}
	var out []jsonrpc.Message
	for _, raw := range raws {
		if msg, err := jsonrpc.DecodeMessage(raw); err == nil {
			out = append(out, msg)
		}
	}
	return out
}

// add registers calls of session as the calls of one POST. An id already
// in flight on the session (a client error) stays with its first POST.
func (cw *cancelWatch) add(session string, calls []jsonrpc.ID) *postCalls {
	pc := &postCalls{}
	cw.mu.Lock()
	defer cw.mu.Unlock()
	if cw.calls == nil {
		cw.calls = map[callKey]*postCalls{}
	}
	for _, id := range calls {
		if _, ok := cw.calls[callKey{session, id}]; !ok {
			cw.calls[callKey{session, id}] = pc
		}
	}
	return pc
}

func (cw *cancelWatch) remove(session string, calls []jsonrpc.ID, pc *postCalls) {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	for _, id := range calls {
		if k := (callKey{session, id}); cw.calls[k] == pc {
			delete(cw.calls, k)
		}
	}
}

// cancel marks the call params.requestId of session cancelled, if it is
// in flight (a notification for a call already answered, or unknown, is
// ignored, as the spec says).
func (cw *cancelWatch) cancel(session string, params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil || !id.IsValid() {
		return
	}
	cw.mu.Lock()
	pc := cw.calls[callKey{session, id}]
	cw.mu.Unlock()
	if pc == nil {
		return
	}
	pc.mu.Lock()
	if pc.cancelled == nil {
		pc.cancelled = map[jsonrpc.ID]bool{}
	}
	pc.cancelled[id] = true
	pc.mu.Unlock()
}

// dropResponses passes a POST's event stream through, event by event,
// leaving out the response to a call of calls that was cancelled. Other
// responses (plain JSON, an HTTP error) pass as they are.
type dropResponses struct {
	http.ResponseWriter
	calls *postCalls
	buf   []byte
}

func (d *dropResponses) Write(p []byte) (int, error) {
	if !strings.HasPrefix(d.Header().Get("Content-Type"), "text/event-stream") {
		return d.ResponseWriter.Write(p)
	}
	d.buf = append(d.buf, p...)
	for {
		end := bytes.Index(d.buf, []byte("\n\n"))
		if end < 0 {
			return len(p), nil
		}
		ev := d.buf[:end+2]
		if !d.cancelledResponse(ev) {
			if _, err := d.ResponseWriter.Write(ev); err != nil {
				return len(p), err
			}
		}
		d.buf = d.buf[end+2:]
	}
}

// cancelledResponse reports whether event ev is the response to a
// cancelled call.
func (d *dropResponses) cancelledResponse(ev []byte) bool {
	if !d.calls.anyCancelled() {
		return false
	}
	var data []byte
	for line := range bytes.SplitSeq(ev, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(v, []byte(" "))...)
		}
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return false
	}
	resp, ok := msg.(*jsonrpc.Response)
	return ok && d.calls.isCancelled(resp.ID)
}

// finish writes what is left of an event that never ended.
func (d *dropResponses) finish() {
	if len(d.buf) > 0 {
		_, _ = d.ResponseWriter.Write(d.buf)
		d.buf = nil
	}
}

// Flush flushes the events written so far (go-sdk flushes each one),
// through http.ResponseController: the writer below may be one that
// flushes only by FlushError (Handler's per-write deadline).
func (d *dropResponses) Flush() {
	_ = http.NewResponseController(d.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (d *dropResponses) Unwrap() http.ResponseWriter { return d.ResponseWriter }
