// Package mrtrtest runs generated programs in tests: a Harness drives
// rounds directly (no network) with a fixed key ring, a memory store and a
// controllable clock; a Driver plays one workflow round by round with
// typed arguments and answers (the generated tests give each tool its
// Drive<Tool>) and checks what it asks and how it ends; and RunMatrix runs
// the whole contract of a multi-round tool (the test matrix of the MRTR
// design article) against any handler, the generated fake or your real
// one, given fixtures. Their failures name the round, what was wanted and
// what the handler did.
package mrtrtest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/approval"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/testclock"
)

// Audience is the server name test engines bind tokens to.
const Audience = "mrtrtest"

// Clock is a controllable clock shared by the harness's codec, engine and
// store.
type Clock = testclock.Clock

// Harness serves one program in-process.
type Harness[F any] struct {
	Program mrtr.Program[F]
	Engine  *mrtr.Engine
	Store   store.Store
	Clock   *Clock
	// Principal is the caller of Call (change it to test authorization).
	Principal string
	// Capabilities are the client capabilities Call declares; by default
	// elicitation, sampling and roots.
	Capabilities *mcp.ClientCapabilities
	// Approvals keeps the approvals of the program's approval gates, on
	// the harness's store and clock (nil when the store does not keep
	// approvals). Decide approves or declines the latest one as another
	// principal; Clock.Advance past its deadline expires it.
	Approvals *approval.Service
	approvals *latestApproval
	// MaxRounds bounds one workflow that RunMatrix (or CheckValidator,
	// RecordContinuations) or a Driver plays on this harness: asked to
	// send the round after it, they fail the test instead, showing the
	// questions the last round asked. 0 means DefaultMaxRounds;
	// WithMaxRounds sets it on the harnesses RunMatrix builds.
	MaxRounds int
}

// DefaultMaxRounds is how many rounds of one workflow the matrix and a
// Driver send before they fail the test: a handler that keeps asking (a
// loop back to a question whose answer never ends it) fails in
// DefaultMaxRounds rounds, not at the test's timeout. Raise it with
// WithMaxRounds for a workflow that needs more.
const DefaultMaxRounds = 32

// maxRounds is the harness's bound on the rounds of one workflow.
func (h *Harness[F]) maxRounds() int {
	if h.MaxRounds > 0 {
		return h.MaxRounds
	}
	return DefaultMaxRounds
}

// Option changes how New builds a harness.
type Option func(*options)

type options struct {
	store     func(*Clock) store.Store
	logger    *slog.Logger
	rand      io.Reader // nil: crypto/rand (see WithRandom)
	maxRounds int       // 0: DefaultMaxRounds
}

// WithStore makes the harness use a store built on its clock (for example
// a SQLite or PostgreSQL store) instead of a memory store.
func WithStore(f func(clock *Clock) store.Store) Option { return func(o *options) { o.store = f } }

// WithMaxRounds makes a harness (and so every workflow RunMatrix drives)
// fail a workflow after n rounds instead of DefaultMaxRounds
// (Harness.MaxRounds).
func WithMaxRounds(n int) Option { return func(o *options) { o.maxRounds = n } }

// WithLogger sends the engine's logs to l instead of discarding them.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// testSecret is the fixed key of test rings (never use it outside tests).
var testSecret = []byte("mrtrtest: not a secret; do not use outside tests")

// NewCodec returns a codec with a fixed test key on clock.
func NewCodec(t testing.TB, clock *Clock) *seal.Codec { return newCodec(t, clock, nil) }

func newCodec(t testing.TB, clock *Clock, nonces io.Reader) *seal.Codec {
	t.Helper()
	ring, err := seal.NewRing(seal.Key{ID: 1, Secret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	return seal.New(ring, seal.Options{Now: clock.Now, Rand: nonces})
}

// New builds a harness for p.
func New[F any](t testing.TB, p mrtr.Program[F], opts ...Option) *Harness[F] {
	t.Helper()
	o := options{logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, opt := range opts {
		opt(&o)
	}
	clock := testclock.New()
	var st store.Store
	if o.store != nil {
		st = o.store(clock)
	} else {
		st = store.NewMemory(store.Options{Now: clock.Now})
	}
	t.Cleanup(func() { st.Close() })
	h := &Harness[F]{Program: p, Store: st, Clock: clock, Principal: "alice", Capabilities: AllCapabilities(), MaxRounds: o.maxRounds}
	codec := newCodec(t, clock, o.rand)
	h.newApprovals(t, codec, o.logger)
	e, err := mrtr.NewEngine(mrtr.Config{
		Audience: Audience, Codec: codec, Store: st, Rand: o.rand, Approvals: h.Approvals,
		Logger: o.logger, Instance: "mrtrtest", Lease: 5 * time.Second,
		// The url of a URL-mode elicitation written as a path is sent on it.
		PublicURL: PublicURL,
		// Requests over HTTP (RunMatrix's "over HTTP") come from the
		// harness's principal too.
		Authenticate: func(context.Context, *mcp.RequestExtra) (string, error) { return h.Principal, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	h.Engine = e
	return h
}

// Call runs one round: args (any JSON-marshalable value, or
// json.RawMessage), the requestState of the previous round ("" to start)
// and the answers.
func (h *Harness[F]) Call(ctx context.Context, args any, state string, responses mcp.InputResponseMap) (*mrtr.Reply, error) {
	return h.callAs(ctx, h.Principal, args, state, responses)
}

// callAs is Call from principal.
func (h *Harness[F]) callAs(ctx context.Context, principal string, args any, state string, responses mcp.InputResponseMap) (*mrtr.Reply, error) {
	raw, err := marshalArgs(args)
	if err != nil {
		return nil, err
	}
	return mrtr.Run(ctx, h.Engine, h.Program, mrtr.Request{
		Arguments: raw, RequestState: state, InputResponses: responses,
		Capabilities: h.Capabilities, Principal: principal,
	})
}

func marshalArgs(args any) (json.RawMessage, error) {
	switch a := args.(type) {
	case nil:
		return json.RawMessage("{}"), nil
	case json.RawMessage:
		return a, nil
	}
	return json.Marshal(args)
}

// PublicURL is the engine's Config.PublicURL in a Harness: where the path
// of a URL-mode elicitation's url is sent.
const PublicURL = "https://mrtrtest.example"

// AllCapabilities declares elicitation (forms and URLs), sampling and roots.
func AllCapabilities() *mcp.ClientCapabilities {
	return Capabilities("elicitation", "elicitation.url", "sampling", "roots")
}

// Capabilities declares the named client capabilities only: "elicitation"
// is a bare elicitation: {} (forms only), "elicitation.url" adds url: {}
// (with "elicitation", form: {} too; alone, URLs only).
func Capabilities(names ...string) *mcp.ClientCapabilities {
	c := &mcp.ClientCapabilities{}
	forms := false
	for _, n := range names {
		switch n {
		case "elicitation":
			forms = true
			if c.Elicitation == nil {
				c.Elicitation = &mcp.ElicitationCapabilities{}
			}
		case "elicitation.url":
			if c.Elicitation == nil {
				c.Elicitation = &mcp.ElicitationCapabilities{}
			}
			c.Elicitation.URL = &mcp.URLElicitationCapabilities{}
		case "sampling":
			//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; the test kit answers as a client does
			c.Sampling = &mcp.SamplingCapabilities{}
		case "roots":
			//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; the test kit answers as a client does
			c.RootsV2 = &mcp.RootCapabilities{}
		}
	}
	if forms && c.Elicitation.URL != nil {
		c.Elicitation.Form = &mcp.FormElicitationCapabilities{}
	}
	return c
}

// URLAccepted answers a URL-mode elicitation with "accept": the user
// agreed to open the URL (which does not say they completed the step).
func URLAccepted() *mcp.ElicitResult { return &mcp.ElicitResult{Action: "accept"} }

// Accept answers an elicitation with content.
func Accept(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

// Decline answers an elicitation with "decline".
func Decline() *mcp.ElicitResult { return &mcp.ElicitResult{Action: "decline"} }

// Cancel answers an elicitation with "cancel".
func Cancel() *mcp.ElicitResult { return &mcp.ElicitResult{Action: "cancel"} }

// Text answers a sampling request with text.
//
//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; the test kit answers as a client does
func Text(s string) *mcp.CreateMessageWithToolsResult {
	//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; the test kit answers as a client does
	return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "mrtrtest", Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// RootsOf answers a roots request.
//
//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; the test kit answers as a client does
func RootsOf(uris ...string) *mcp.ListRootsResult {
	//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; the test kit answers as a client does
	r := &mcp.ListRootsResult{Roots: []*mcp.Root{}}
	for _, u := range uris {
		//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; the test kit answers as a client does
		r.Roots = append(r.Roots, &mcp.Root{URI: u})
	}
	return r
}

// ErrorCode returns the JSON-RPC error code of err (0 if it is none).
func ErrorCode(err error) int64 {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je.Code
	}
	return 0
}

// IsInvalidState reports whether err is the one error a client sees for a
// rejected requestState.
func IsInvalidState(err error) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je) && je.Code == jsonrpc.CodeInvalidParams && je.Message == seal.PublicMessage
}

// Tamper changes one character in the middle of a token.
func Tamper(token string) string {
	if token == "" {
		return "x"
	}
	b := []byte(token)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

// NewClock returns a clock for an engine built by hand in a test.
func NewClock() *Clock { return testclock.New() }
