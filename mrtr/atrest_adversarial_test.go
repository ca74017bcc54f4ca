package mrtr_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Attacks on continuation records sealed at rest (recordatrest.go), by someone
// who can write the store but holds no key: each refused record is logged
// with its reason, and the client sees the one opaque error.

// lastRecords remembers the last continuation record stored, of all and
// per workflow.
type lastRecords struct {
	store.Store
	mu     sync.Mutex
	last   map[string]store.StateRecord
	latest store.StateRecord
}

func (s *lastRecords) PutState(ctx context.Context, rec store.StateRecord, ttl time.Duration) error {
	s.mu.Lock()
	s.last[rec.Workflow], s.latest = rec, rec
	s.mu.Unlock()
	return s.Store.PutState(ctx, rec, ttl)
}

func (s *lastRecords) of(t *testing.T, workflow string) store.StateRecord {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.last[workflow]
	if !ok {
		t.Fatalf("no continuation record of workflow %s", workflow)
	}
	return rec
}

// vaultAtRest is a vault program on a memory store whose records can be
// rewritten, on an engine whose codec is codec (nil: the test ring).
type vaultAtRest struct {
	h     *mrtrtest.Harness[*testprog.VaultFlow]
	recs  *lastRecords
	logs  *bytes.Buffer
	codec *seal.Codec
}

func newVaultAtRest(t *testing.T, codec *seal.Codec) *vaultAtRest {
	t.Helper()
	clock := mrtrtest.NewClock()
	if codec == nil {
		codec = mrtrtest.NewCodec(t, clock)
	}
	v := &vaultAtRest{recs: &lastRecords{Store: store.NewMemory(store.Options{Now: clock.Now}), last: map[string]store.StateRecord{}}, logs: &bytes.Buffer{}, codec: codec}
	v.h = &mrtrtest.Harness[*testprog.VaultFlow]{Program: testprog.NewVaultProgram(&testprog.VaultImpl{}), Store: v.recs,
		Engine: v.engine(t, codec), Clock: clock, Principal: "alice", Capabilities: mrtrtest.AllCapabilities()}
	return v
}

func (v *vaultAtRest) engine(t *testing.T, codec *seal.Codec) *mrtr.Engine {
	t.Helper()
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "at-rest", Codec: codec, Store: v.recs, Logger: slog.New(slog.NewTextHandler(v.logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// start starts a workflow on vault id and returns its token and record.
func (v *vaultAtRest) start(t *testing.T, id string) (string, store.StateRecord) {
	t.Helper()
	r := call(t, v.h, map[string]any{"vaultId": id}, "", nil)
	v.recs.mu.Lock()
	defer v.recs.mu.Unlock()
	return r.RequestState, v.recs.latest
}

// put replaces the record at rec.Ref.
func (v *vaultAtRest) put(t *testing.T, rec store.StateRecord) {
	t.Helper()
	if err := v.recs.Store.PutState(context.Background(), rec, time.Hour); err != nil {
		t.Fatal(err)
	}
}

// refused checks that the workflow of token on id does not resume, logged
// with reason.
func (v *vaultAtRest) refused(t *testing.T, id, token, reason string) {
	t.Helper()
	v.logs.Reset()
	_, err := v.h.Call(context.Background(), map[string]any{"vaultId": id}, token, pinAnswer("1234"))
	if !mrtrtest.IsInvalidState(err) || !strings.Contains(v.logs.String(), "reason="+reason) {
		t.Fatalf("want refused with %s, got %v; logs:\n%s", reason, err, v.logs.String())
	}
}

// opens checks that the workflow of token on id ends in success.
func (v *vaultAtRest) opens(t *testing.T, id, token string) {
	t.Helper()
	r := call(t, v.h, map[string]any{"vaultId": id}, token, pinAnswer("1234"))
	if r.Final == nil || r.Final.Outcome != mrtr.OutcomeSuccess {
		t.Fatalf("want success, got %+v", r)
	}
}

func pinAnswer(code string) mcp.InputResponseMap {
	return mcp.InputResponseMap{"pin": mrtrtest.Accept(map[string]any{"code": code})}
}

// identity is what the engine binds a record to (recordatrest.go).
func identity(rec store.StateRecord) []string {
	return []string{"at-rest", rec.Ref, rec.Workflow, rec.Subject, rec.Principal}
}

// The bytes of one workflow's record moved under another's key (its
// reference, workflow, tool and principal kept) do not open there: the
// data is bound to the record it was sealed for.
func TestARecordMovedToAnotherKeyDoesNotOpen(t *testing.T) {
	v := newVaultAtRest(t, nil)
	tokA, recA := v.start(t, "v-a")
	_, recB := v.start(t, "v-b")
	moved := recA
	moved.Data = recB.Data
	v.put(t, moved)
	v.refused(t, "v-a", tokA, "record_forged")
	v.put(t, recA) // its own bytes back: it opens
	v.opens(t, "v-a", tokA)
}

// A record whose bytes were changed, cut, or replaced by the plaintext
// an earlier build would have written does not open.
func TestATamperedRecordDoesNotOpen(t *testing.T) {
	v := newVaultAtRest(t, nil)
	tok, rec := v.start(t, "v-a")
	plain, err := v.codec.OpenAtRest(rec.Data, identity(rec)...)
	if err != nil {
		t.Fatalf("the record does not open under the identity the engine binds: %v", err)
	}
	if !bytes.Contains(plain, []byte("owner-of-v-a")) || bytes.Contains(rec.Data, []byte("owner-of-v-a")) {
		t.Fatalf("stored %q for plaintext %q", rec.Data, plain)
	}
	for _, c := range []struct {
		name, reason string
		data         []byte
	}{
		{"a bit flipped", "record_forged", func() []byte { b := bytes.Clone(rec.Data); b[len(b)/2] ^= 1; return b }()},
		{"cut", "record_truncated", rec.Data[:seal.AtRestOverhead-1]},
		{"the plaintext in its place", "record_", plain},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := rec
			bad.Data = c.data
			v.put(t, bad)
			v.refused(t, "v-a", tok, c.reason)
		})
	}
	v.put(t, rec)
	v.opens(t, "v-a", tok)
}

// A record sealed under another key ring (another deployment's, or a key
// of the same id with another secret) does not open, while the same
// plaintext sealed under the engine's ring does.
func TestARecordOfAnotherKeyRingDoesNotOpen(t *testing.T) {
	v := newVaultAtRest(t, nil)
	tok, rec := v.start(t, "v-a")
	plain, err := v.codec.OpenAtRest(rec.Data, identity(rec)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key    seal.Key
		reason string
	}{
		{seal.Key{ID: 1, Secret: bytes.Repeat([]byte{7}, 32)}, "record_forged"},
		{seal.Key{ID: 9, Secret: bytes.Repeat([]byte{7}, 32)}, "record_unknown_key"},
	} {
		ring, err := seal.NewRing(c.key)
		if err != nil {
			t.Fatal(err)
		}
		other := rec
		if other.Data, err = seal.New(ring, seal.Options{}).SealAtRest(plain, identity(rec)...); err != nil {
			t.Fatal(err)
		}
		v.put(t, other)
		v.refused(t, "v-a", tok, c.reason)
	}
	resealed := rec
	if resealed.Data, err = v.codec.SealAtRest(plain, identity(rec)...); err != nil {
		t.Fatal(err)
	}
	v.put(t, resealed)
	v.opens(t, "v-a", tok)
}

// Records rotate with the ring: a workflow started under key 1 goes on on
// an instance that promoted key 2 (key 1 still in its ring), whose new
// record is sealed under key 2, and ends on an instance that retired key 1.
func TestRecordsRotateWithTheRing(t *testing.T) {
	k1 := seal.Key{ID: 1, Secret: bytes.Repeat([]byte{1}, 32)}
	k2 := seal.Key{ID: 2, Secret: bytes.Repeat([]byte{2}, 32)}
	codec := func(keys ...seal.Key) *seal.Codec {
		ring, err := seal.NewRing(keys...)
		if err != nil {
			t.Fatal(err)
		}
		return seal.New(ring, seal.Options{})
	}
	v := newVaultAtRest(t, codec(k1))
	kid := func(rec store.StateRecord) uint32 { return binary.BigEndian.Uint32(rec.Data[1:5]) }
	tok, rec := v.start(t, "v-a")
	if kid(rec) != 1 {
		t.Fatalf("sealed under key %d, want 1", kid(rec))
	}
	v.h.Engine = v.engine(t, codec(k2, k1))
	again := call(t, v.h, map[string]any{"vaultId": "v-a"}, tok, pinAnswer("12x4")) // asked again: a new record
	if !again.NeedsInput() {
		t.Fatalf("want the PIN asked again, got %+v", again.Final)
	}
	if rec2 := v.recs.of(t, rec.Workflow); rec2.Ref == rec.Ref || kid(rec2) != 2 {
		t.Fatalf("the next record %s is sealed under key %d, want a new record under the promoted 2", rec2.Ref, kid(rec2))
	}
	v.h.Engine = v.engine(t, codec(k2))
	v.opens(t, "v-a", again.RequestState)
}
