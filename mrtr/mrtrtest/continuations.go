package mrtrtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Recorded continuations are the replay test of MRTR workflows, as
// Temporal replays recorded histories: a build records a workflow waiting
// in each state that asks (testdata/continuations/<tool>/<state>.json),
// the files are committed, and every later build opens them. A spec change
// that would strand workflows in flight across a deploy (docs/evolution.md)
// then fails go test in the repository that makes it, naming the file, the
// state and the reason, before it is merged.
//
// Recordings are made with mrtrtest's fixed test key on its clock and with
// a fixed source of randomness, so recording twice writes the same bytes;
// they hold the fixtures' values only. Record them again (RecordEnv) when a
// change is meant to strand workflows, once the deploy that drains them is
// planned (docs/deploy.md).

// RecordEnv is the environment variable that makes Continuations record
// instead of open: MRTR_RECORD=1 go test ./....
const RecordEnv = "MRTR_RECORD"

// Recorded is one recorded continuation: a workflow of one program waiting
// in one state, as a client would send it back.
type Recorded struct {
	// Note says what the file is and how to renew it.
	Note string `json:"note"`
	// Tool is the program's name, State the state the workflow waits in.
	Tool  string `json:"tool"`
	State string `json:"state"`
	// Principal, Arguments and RequestState are the next round's call.
	Principal    string          `json:"principal"`
	Arguments    json.RawMessage `json:"arguments"`
	RequestState string          `json:"requestState"`
	// Record is the continuation record of a program that keeps its
	// continuation by reference, as the store held it.
	Record *store.StateRecord `json:"record,omitempty"`
}

// Stranded is a recorded continuation the current build does not open.
type Stranded struct {
	File, State string
	// Reason is the log reason of the refusal (docs/evolution.md), or
	// "arguments" (the recorded arguments are no longer valid), "error"
	// (the round failed) or "did_not_ask" (the round did not ask again).
	Reason string
	Detail string
}

func (s Stranded) String() string {
	return fmt.Sprintf("%s: a workflow waiting in state %s no longer opens: %s (%s)", s.File, s.State, s.Reason, s.Detail)
}

// Continuations records, or opens, the recorded continuations of p in
// dir. With RecordEnv set it records (RecordContinuations); otherwise it
// opens every file of dir with p and fails for each one that no longer
// opens, naming the file, the state and the reason. Without recordings it
// skips, saying how to make them.
func Continuations[F any](t *testing.T, p mrtr.Program[F], fx Fixtures, dir string) {
	t.Helper()
	if os.Getenv(RecordEnv) != "" {
		RecordContinuations(t, p, fx, dir)
		return
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Skipf("no recorded continuations in %s: record them with %s=1 go test -run '%s'", dir, RecordEnv, t.Name())
	}
	for _, s := range OpenRecorded(t, p, dir) {
		t.Error(s)
	}
}

// RecordContinuations drives p with the fixtures to each reachable state
// that asks, and writes the workflow waiting there to dir/<state>.json,
// replacing what dir held. A state no fixture workflow reaches is logged
// and not recorded.
func RecordContinuations[F any](t *testing.T, p mrtr.Program[F], fx Fixtures, dir string) {
	t.Helper()
	fx.defaults()
	m := newMatrix(p, &fx, nil)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	written := map[string]bool{}
	for _, s := range m.g.interactiveStates() {
		rec, err := recordState(t, m, s.Name)
		if err != nil {
			t.Logf("state %s not recorded: %v", s.Name, err)
			continue
		}
		b, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, s.Name+".json")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		written[path] = true
		t.Logf("recorded %s", path)
	}
	for _, f := range old {
		if !written[f] {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
			t.Logf("removed %s: this build has no workflow waiting there", f)
		}
	}
}

// recordState drives a fixture workflow of m to state on a new harness with a
// fixed source of randomness.
func recordState[F any](t *testing.T, m *matrix[F], state string) (*Recorded, error) {
	var last *store.StateRecord
	opts := []Option{
		WithRandom(newStream(m.d.Name + "/" + state)),
		WithStore(func(c *Clock) store.Store {
			return &lastStateRecord{Store: store.NewMemory(store.Options{Now: c.Now}), last: &last}
		}),
	}
	var errs []string
	for _, r := range m.candidates(state) {
		h := New(t, m.p, opts...)
		h.Principal = m.fx.Principal
		m.reset()
		steps, err := m.drive(h, &r, nil, func(steps []step) bool { return asksState(m.d, steps[len(steps)-1].reply, state) })
		if err != nil || len(steps) == 0 {
			errs = append(errs, r.name+": "+describe(steps, err))
			continue
		}
		reply := steps[len(steps)-1].reply
		if !reply.NeedsInput() || !asksState(m.d, reply, state) {
			errs = append(errs, r.name+": "+describe(steps, nil))
			continue
		}
		args, err := marshalArgs(r.args)
		if err != nil {
			return nil, err
		}
		rec := &Recorded{
			Note: fmt.Sprintf("A workflow of %s waiting in state %s, recorded by mrtrtest.RecordContinuations (%s=1 go test) with its fixed test key; "+
				"every build must open it (docs/evolution.md). Record again only to accept a change that strands such workflows.", m.d.Name, state, RecordEnv),
			Tool: m.d.Name, State: state, Principal: h.Principal, Arguments: compactJSON(args), RequestState: reply.RequestState,
		}
		if m.d.Storage == vocab.Reference {
			rec.Record = last
		}
		return rec, nil
	}
	return nil, errors.New("no fixture workflow reaches it: " + strings.Join(errs, "; "))
}

// OpenRecorded opens every recorded continuation of dir with p, as the
// next round of its workflow (without answers: the state asks again), and
// returns those that do not open, with the reason.
func OpenRecorded[F any](t *testing.T, p mrtr.Program[F], dir string) []Stranded {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	var out []Stranded
	for _, file := range files {
		if s := openRecorded(t, p, file); s != nil {
			out = append(out, *s)
		}
	}
	return out
}

func openRecorded[F any](t *testing.T, p mrtr.Program[F], file string) *Stranded {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rec Recorded
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	stranded := func(reason, detail string) *Stranded {
		return &Stranded{File: file, State: rec.State, Reason: reason, Detail: detail}
	}
	logs := &reasons{}
	h := New(t, p, WithLogger(slog.New(logs)))
	h.Principal = rec.Principal
	if rec.Record != nil {
		if err := h.Store.PutState(context.Background(), *rec.Record, p.Descriptor().TTL+time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	reply, err := h.Call(context.Background(), rec.Arguments, rec.RequestState, nil)
	switch {
	case IsInvalidState(err):
		return stranded(logs.reason(), logs.detail())
	case err != nil:
		return stranded("error", err.Error())
	case !reply.NeedsInput() && reply.Final.Outcome == mrtr.OutcomeInvalidArguments:
		return stranded("arguments", reply.Final.Text)
	case !reply.NeedsInput():
		return stranded("did_not_ask", fmt.Sprintf("it ended %s: %s", reply.Final.Outcome, reply.Final.Text))
	}
	return nil
}

// WithRandom makes the harness draw workflow ids, continuation references
// and token nonces from r: recordings that must come out the same on every
// run. Never outside tests.
func WithRandom(r io.Reader) Option { return func(o *options) { o.rand = r } }

// stream is a deterministic byte stream: SHA-256 of a seed and a counter.
type stream struct {
	mu   sync.Mutex
	seed string
	n    uint64
	buf  []byte
}

func newStream(seed string) *stream { return &stream{seed: seed} }

func (s *stream) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.buf) < len(p) {
		sum := sha256.Sum256(binary.BigEndian.AppendUint64([]byte("mrtrtest/random\x00"+s.seed+"\x00"), s.n))
		s.n++
		s.buf = append(s.buf, sum[:]...)
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// lastStateRecord remembers the last continuation record stored: the one the
// round's requestState refers to.
type lastStateRecord struct {
	store.Store
	last **store.StateRecord
}

func (s *lastStateRecord) PutState(ctx context.Context, rec store.StateRecord, ttl time.Duration) error {
	c := rec
	*s.last = &c
	return s.Store.PutState(ctx, rec, ttl)
}

// reasons is a slog handler that keeps why the engine rejected a
// requestState.
type reasons struct {
	mu    sync.Mutex
	attrs map[string]string
}

func (r *reasons) Enabled(context.Context, slog.Level) bool { return true }
func (r *reasons) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *reasons) WithGroup(string) slog.Handler            { return r }

func (r *reasons) Handle(_ context.Context, rec slog.Record) error {
	if rec.Message != "mrtr: requestState rejected" {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attrs = map[string]string{}
	rec.Attrs(func(a slog.Attr) bool {
		r.attrs[a.Key] = a.Value.String()
		return true
	})
	return nil
}

func (r *reasons) reason() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.attrs["reason"] == "" {
		return "invalid"
	}
	return r.attrs["reason"]
}

func (r *reasons) detail() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.attrs["error"]
}

func compactJSON(b []byte) json.RawMessage {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}
