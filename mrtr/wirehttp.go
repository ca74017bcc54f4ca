package mrtr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/jsonkeys"
)

// Serving over HTTP: routing by protocol era, and what Handler does with a
// request's bytes before the SDK decodes them (the body limit, duplicate
// keys) and with its reply's writes (the write deadline).

// HandlerOptions configure Handler.
type HandlerOptions struct {
	// SessionTimeout closes idle stateful sessions of older clients.
	// Default 30 minutes.
	SessionTimeout time.Duration
	// EventStreams answers every 2026-07-28 request with an event stream
	// (text/event-stream), as the SDK does by default. Without it, a
	// request that asks for no notifications (no progressToken, no log
	// level in its _meta) gets its one reply as plain application/json.
	EventStreams bool
	// MaxRequestBytes is the largest request body Handler reads: a larger
	// one is refused with 413 Request Entity Too Large ("request body
	// exceeds N bytes") before any of it is decoded. Default: what
	// Configure sets as MaxRequestBodyBytes, else the SDK's
	// mcp.DefaultMaxRequestBodyBytes (4 MiB); negative: no limit. A request
	// of a generated tool carries its arguments, its answers and a
	// requestState of a few KiB (continuation.maxBytes, 4096 by default):
	// 1 MiB is ample unless clients send large sampled content.
	MaxRequestBytes int64
	// Configure, when set, adjusts the SDK's streamable HTTP options of
	// every handler (cross-origin protection, ...); Handler sets
	// Stateless, SessionTimeout, JSONResponse and, when MaxRequestBytes is
	// set, MaxRequestBodyBytes after it.
	Configure func(*mcp.StreamableHTTPOptions)
}

// Handler serves s over streamable HTTP: requests on protocol 2026-07-28
// and later statelessly (any instance can serve any round), older clients
// on stateful sessions, where the engine asks them over the session.
//
// Routing is by the MCP-Protocol-Version header: 2026-07-28 clients send
// it on every request; older clients start with an initialize request
// without it and then carry their session id.
//
// A 2026-07-28 request gets its reply as plain JSON (one result, readable
// with curl and jq) unless it asks for notifications on its stream
// (_meta progressToken or log level) or HandlerOptions.EventStreams is
// set; subscriptions/listen is always a stream. Older clients' sessions
// always answer with event streams: the engine's questions to them travel
// on the stream of the call that asks. A call such a client cancels
// (notifications/cancelled) gets no response: go-sdk would send one, and
// Handler leaves it out of the call's stream (wirecancelhttp.go).
//
// Handler reads a POST's whole body (at most MaxRequestBytes) before
// anything decodes it, and refuses a JSON text in which an object has the
// same key twice: decoders keep the last one, so {"action":"decline",
// "action":"accept"} would pass a confirmation gate as accepted. A
// request is answered with -32602 naming the key and where it was
// (`inputResponses: duplicate key "confirm"`, `arguments.items[1]:
// duplicate key "id"`; -32600 for the envelope itself); an older client's
// answer to a question asked over its session reaches the engine as that
// error instead of an answer. Other transports than Handler get no such
// check: the SDK decodes their messages before the engine sees them.
//
// # The http.Server around it
//
// Set every timeout of the http.Server that serves Handler; without them
// a client holds a connection, and a goroutine, as long as it likes:
//
//   - ReadHeaderTimeout and ReadTimeout bound how long a client may take
//     to send a request, body included. A client that sends its body a
//     byte at a time gets 408 Request Timeout once ReadTimeout has passed
//     since the request began, and its connection is closed. Once the
//     body is read, net/http clears the read deadline, so rounds that take
//     longer and event streams that stay open are not cut by it. 30s
//     leaves a slow network time to send MaxRequestBytes.
//   - WriteTimeout: net/http counts it from the request's headers for the
//     whole response, which would cut an event stream (an older client's
//     session, whose calls wait for the user's answers; notifications)
//     and a round whose effect takes longer. Handler moves the deadline
//     forward before each write of its replies, so for them WriteTimeout
//     bounds each write: a client that stops reading its stream is let go
//     after it, a stream that is written to lives on. Other handlers on
//     the same server keep net/http's meaning (the whole response).
//   - IdleTimeout closes kept-alive connections between requests.
//
// For example (examples/server does the same):
//
//	srv := &http.Server{
//		Addr:              ":8080",
//		Handler:           mrtr.Handler(server, &mrtr.HandlerOptions{MaxRequestBytes: 1 << 20}),
//		ReadHeaderTimeout: 10 * time.Second,
//		ReadTimeout:       30 * time.Second,
//		WriteTimeout:      30 * time.Second,
//		IdleTimeout:       2 * time.Minute,
//	}
func Handler(s *mcp.Server, opts *HandlerOptions) http.Handler {
	var o HandlerOptions
	if opts != nil {
		o = *opts
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = 30 * time.Minute
	}
	get := func(*http.Request) *mcp.Server { return s }
	options := func(stateless, jsonResponse bool) *mcp.StreamableHTTPOptions {
		var so mcp.StreamableHTTPOptions
		if o.Configure != nil {
			o.Configure(&so)
		}
		so.Stateless = stateless
		so.JSONResponse = jsonResponse
		if o.MaxRequestBytes != 0 {
			so.MaxRequestBodyBytes = o.MaxRequestBytes
		}
		if stateless {
			// A client that goes away cancels its round: the engine stops
			// before an effect starts (once one started, the round finishes
			// and records it, detached). Without this, rounds of clients long
			// gone would wait out a store outage and then run their effects.
			so.PropagateRequestCancellation = true
		} else {
			so.SessionTimeout = o.SessionTimeout
		}
		return &so
	}
	stateless := mcp.NewStreamableHTTPHandler(get, options(true, false))
	statelessJSON := mcp.NewStreamableHTTPHandler(get, options(true, true))
	stateful := mcp.NewStreamableHTTPHandler(get, options(false, false))
	limit := options(true, true).MaxRequestBodyBytes
	if limit == 0 {
		limit = mcp.DefaultMaxRequestBodyBytes
	}
	cancels := &cancelWatch{} // wirecancelhttp.go
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w = deadlinePerWrite(w, r)
		var body []byte
		if r.Method == http.MethodPost && r.Body != nil {
			var ok bool
			if body, ok = readBody(w, r, limit); !ok || refuseDuplicateKeys(w, r, body) {
				return
			}
		}
		if r.Header.Get("Mcp-Protocol-Version") < protocolMRTR {
			cancels.serve(stateful, w, r, limit)
			return
		}
		if !o.EventStreams && r.Method == http.MethodPost && !wantsNotifications(body) {
			statelessJSON.ServeHTTP(w, r)
			return
		}
		stateless.ServeHTTP(w, r)
	})
}

// readBody reads r's body, at most limit bytes (limit < 0: all of it), and
// puts it back for the SDK. When it cannot, it answers: 413 for a body over
// the limit, 408 for one the server's ReadTimeout cut, 400 otherwise.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	src := r.Body
	if limit >= 0 {
		src = http.MaxBytesReader(w, r.Body, limit)
	}
	var buf bytes.Buffer
	if n := r.ContentLength; n > 0 && (limit < 0 || n <= limit) {
		buf.Grow(int(n) + bytes.MinRead) // ReadFrom wants room for its EOF read
	}
	if _, err := buf.ReadFrom(src); err != nil {
		var tooLarge *http.MaxBytesError
		var netErr net.Error
		switch {
		case errors.As(err, &tooLarge):
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", tooLarge.Limit), http.StatusRequestEntityTooLarge)
		case errors.As(err, &netErr) && netErr.Timeout():
			http.Error(w, "request body not received in time", http.StatusRequestTimeout)
		default:
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
		}
		return nil, false
	}
	body := buf.Bytes()
	r.Body = readCloser{bytes.NewReader(body), r.Body}
	return body, true
}

// refuseDuplicateKeys answers a request whose body has an object with a
// key twice with a JSON-RPC error naming the key and its place, and
// reports true. A client's answer to the server's own request (a JSON-RPC
// response: an older client answering over its session) is replaced by an
// error response to that request, which the SDK then delivers to the
// engine, and Handler goes on. A body that is not valid JSON is left to
// the SDK's parse error.
func refuseDuplicateKeys(w http.ResponseWriter, r *http.Request, body []byte) bool {
	found, dup := jsonkeys.Duplicate(body)
	if !dup || !json.Valid(body) {
		return false
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(body, &msg) // a batch (an array) leaves it empty
	code, place := int64(codeInvalidParams), strings.TrimPrefix(found.Path, ".")
	switch {
	case strings.HasPrefix(found.Path, ".params."):
		place = strings.TrimPrefix(found.Path, ".params.")
	case found.Path == ".params":
	case found.Path == "":
		code, place, msg.ID = -32600, "request", nil // the id may be the duplicate
	}
	rpcErr := rpcError{Code: code, Message: fmt.Sprintf("%s: duplicate key %q", place, found.Key)}
	rpcErr.Data.Key, rpcErr.Data.Path = found.Key, place
	if msg.Method == "" && msg.ID != nil && msg.Result != nil {
		replaced, _ := json.Marshal(rpcMessage{JSONRPC: "2.0", ID: msg.ID, Error: &rpcErr})
		r.Body = readCloser{bytes.NewReader(replaced), r.Body}
		r.ContentLength = int64(len(replaced))
		return false
	}
	status := http.StatusOK
	if msg.ID == nil {
		msg.ID = json.RawMessage("null")
		status = http.StatusBadRequest // a notification, or no request to answer
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(rpcMessage{JSONRPC: "2.0", ID: msg.ID, Error: &rpcErr})
	return true
}

// rpcMessage is a JSON-RPC error response.
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *rpcError       `json:"error"`
}

type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	Data    struct {
		Key  string `json:"key"`
		Path string `json:"path"`
	} `json:"data"`
}

// wantsNotifications reports whether a 2026-07-28 request may be sent
// notifications on its own response stream: it carries a progress token
// or a log level in params._meta. A body it cannot parse counts as wanting
// a stream: the SDK then answers it as it would anyway (parse error).
func wantsNotifications(body []byte) bool {
	var msg struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return true
	}
	_, progress := msg.Params.Meta["progressToken"]
	//lint:ignore SA1019 logging stays supported in SEP-2577's deprecation window; clients before 2026-07-28 are asked on their session
	_, logs := msg.Params.Meta[mcp.MetaKeyLogLevel]
	return progress || logs
}

// readCloser reads from a reader and closes the original body.
type readCloser struct {
	io.Reader
	io.Closer
}

// deadlinePerWrite makes the WriteTimeout of the server serving r bound
// each write of the reply, not the whole reply: it moves the connection's
// write deadline forward before every write and flush. (The deadline
// net/http set when the request's headers were read would end event
// streams, and rounds with slow effects, when it passes.)
func deadlinePerWrite(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil || srv.WriteTimeout <= 0 {
		return w
	}
	return &writeDeadline{ResponseWriter: w, rc: http.NewResponseController(w), timeout: srv.WriteTimeout}
}

// writeDeadline is a ResponseWriter that extends the write deadline; the
// SDK flushes through http.ResponseController, which finds FlushError and
// Unwrap.
type writeDeadline struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (d *writeDeadline) extend() { _ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout)) }

func (d *writeDeadline) WriteHeader(code int) {
	d.extend()
	d.ResponseWriter.WriteHeader(code)
}

func (d *writeDeadline) Write(b []byte) (int, error) {
	d.extend()
	return d.ResponseWriter.Write(b)
}

func (d *writeDeadline) FlushError() error {
	d.extend()
	return d.rc.Flush()
}

func (d *writeDeadline) Unwrap() http.ResponseWriter { return d.ResponseWriter }
