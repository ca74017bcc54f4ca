package mrtr

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
)

func envelopeDescriptor() *mrtrimpl.Descriptor {
	return &mrtrimpl.Descriptor{Name: "t", SchemaHash: 0xfeed, Storage: vocab.Sealed, States: []mrtrimpl.StateInfo{
		{Name: "ask", Kind: vocab.StateAsk, Requests: []mrtrimpl.RequestInfo{{Key: "a"}, {Key: "b"}}},
		{Name: "done", Kind: vocab.StateTerminal},
	}}
}

// legacyEnvelope is what the builds before version 3 wrote.
func legacyEnvelope(version byte, hash uint64, state, round int, sent uint64, digests []uint64, data []byte) []byte {
	b := []byte{version}
	b = binary.BigEndian.AppendUint64(b, hash)
	b = append(b, make([]byte, 16)...)
	b = binenc.AppendUvarint(b, uint64(state))
	b = binenc.AppendUvarint(b, uint64(round))
	if version == envelopeV2 {
		b = binenc.AppendUvarint(b, sent)
		for _, d := range digests {
			b = binary.BigEndian.AppendUint64(b, d)
		}
	}
	b = append(b, modeInline)
	return append(b, data...)
}

func reasonOf(err error) string {
	var se *stateError
	if errors.As(err, &se) {
		return se.reason
	}
	return ""
}

// Tokens of the builds before version 3 keep opening on the same spec:
// version 1 (no sent mask, no question digests: every request of the
// state counts as sent, and no question is compared) and version 2.
func TestLegacyEnvelopesOpen(t *testing.T) {
	d := envelopeDescriptor()
	env, err := unmarshalEnvelope(legacyEnvelope(envelopeV1, d.SchemaHash, 1, 2, 0, nil, []byte{0xAB}), d)
	if err != nil {
		t.Fatal(err)
	}
	if !env.legacy() || env.sent != 0b11 || env.digests != nil || env.state != 1 || env.round != 2 || string(env.data) != "\xab" {
		t.Fatalf("v1 envelope read as %+v", env)
	}
	if changed := env.pinQuestions(d.State(1), nil); changed != nil || env.sent != 0b11 {
		t.Fatalf("a v1 token's answers were unpinned: %v", changed)
	}
	env, err = unmarshalEnvelope(legacyEnvelope(envelopeV2, d.SchemaHash, 1, 3, 0b10, []uint64{42}, []byte{1}), d)
	if err != nil || !env.legacy() || env.sent != 0b10 || len(env.digests) != 1 || env.digests[0] != 42 || string(env.data) != "\x01" {
		t.Fatalf("v2 envelope: %+v, %v", env, err)
	}
	// A mask naming a request the state does not have is malformed.
	if _, err := unmarshalEnvelope(legacyEnvelope(envelopeV2, d.SchemaHash, 1, 3, 0b100, []uint64{1}, nil), d); reasonOf(err) != reasonMalformed {
		t.Fatalf("a mask beyond the state's requests: %v", err)
	}
	// Any change to the spec refuses them, as before.
	if _, err := unmarshalEnvelope(legacyEnvelope(envelopeV2, d.SchemaHash+1, 1, 3, 0b10, []uint64{1}, nil), d); reasonOf(err) != reasonSchemaChanged {
		t.Fatalf("a v2 token of another schema: %v", err)
	}
}

// Version 3 names the state and the sent requests: it round-trips, and it
// reads on a build whose states and requests moved.
func TestVersion3Envelope(t *testing.T) {
	d := envelopeDescriptor()
	env := &envelope{workflow: [16]byte{7}, state: 1, round: 3, sent: 0b10, digests: []uint64{42}, data: []byte{1, 2}}
	b := env.marshal(d)
	got, err := unmarshalEnvelope(b, d)
	if err != nil || got.legacy() || got.workflow != env.workflow || got.state != 1 || got.round != 3 || got.sent != 0b10 ||
		len(got.digests) != 1 || got.digests[0] != 42 || string(got.data) != "\x01\x02" {
		t.Fatalf("v3 round trip: %+v, %v", got, err)
	}

	// Another build: a state inserted before "ask", whose requests are now
	// c, b (a removed, c added). The sent b keeps its digest; a is dropped.
	moved := &mrtrimpl.Descriptor{Name: "t", SchemaHash: 1, Storage: vocab.Sealed, States: []mrtrimpl.StateInfo{
		{Name: "first", Kind: vocab.StateCheck},
		{Name: "ask", Kind: vocab.StateAsk, Requests: []mrtrimpl.RequestInfo{{Key: "c"}, {Key: "b"}}},
		{Name: "done", Kind: vocab.StateTerminal},
	}}
	both := &envelope{state: 1, round: 3, sent: 0b11, digests: []uint64{41, 42}}
	got, err = unmarshalEnvelope(both.marshal(d), moved)
	if err != nil || got.state != 2 || got.sent != 0b10 || len(got.digests) != 1 || got.digests[0] != 42 {
		t.Fatalf("v3 on a build with other states and requests: %+v, %v", got, err)
	}
	// Nothing sent that this build has: nothing counts, and the questions
	// are compared (not a v1 token).
	none := &envelope{state: 1, round: 3, sent: 0b01, digests: []uint64{41}}
	if got, err = unmarshalEnvelope(none.marshal(d), moved); err != nil || got.sent != 0 || got.digests == nil {
		t.Fatalf("v3 with no request this build has: %+v, %v", got, err)
	}

	for _, c := range []struct {
		name   string
		d      *mrtrimpl.Descriptor
		reason string
	}{
		{"state renamed", &mrtrimpl.Descriptor{Storage: vocab.Sealed, States: []mrtrimpl.StateInfo{{Name: "askAgain", Kind: vocab.StateAsk}}}, reasonStateRemoved},
		{"state now a gate", &mrtrimpl.Descriptor{Storage: vocab.Sealed, States: []mrtrimpl.StateInfo{{Name: "ask", Kind: vocab.StateConfirm}}}, reasonStateChanged},
		{"storage by reference now", &mrtrimpl.Descriptor{Storage: vocab.Reference, States: d.States}, reasonStorageChanged},
	} {
		if _, err := unmarshalEnvelope(b, c.d); reasonOf(err) != c.reason {
			t.Errorf("%s: %v, want reason %s", c.name, err, c.reason)
		}
	}
	ref := &envelope{state: 1, round: 3, ref: "r-1"}
	if _, err := unmarshalEnvelope(ref.marshal(d), d); reasonOf(err) != reasonStorageChanged {
		t.Errorf("a reference for a sealed program: %v", err)
	}
	// Every truncation is malformed, never a panic.
	for n := range len(b) - 2 {
		if _, err := unmarshalEnvelope(b[:n], d); reasonOf(err) != reasonMalformed {
			t.Errorf("prefix %d of %d: %v", n, len(b), err)
		}
	}
}

// An envelope is written into one allocation of the size it needs, with
// or without sent requests, inline or by reference.
func TestEnvelopeMarshalAllocatesOnce(t *testing.T) {
	d := envelopeDescriptor()
	for _, env := range []*envelope{
		{state: 1, round: 3, sent: 0b11, digests: []uint64{41, 42}, data: make([]byte, 300)},
		{state: 1, round: 1 << 20, ref: "r-0123456789abcdef0123456789abcdef"},
		{state: 2, round: 2},
	} {
		var b []byte
		if n := testing.AllocsPerRun(20, func() { b = env.marshal(d) }); n != 1 || len(b) == 0 {
			t.Errorf("%+v: %v allocations", env, n)
		}
	}
}

// BenchmarkEnvelope writes and reads a version 3 envelope of an ask state
// with two sent requests and a 160-byte inline continuation:
//
//	go test ./mrtr -run '^$' -bench BenchmarkEnvelope -benchmem
func BenchmarkEnvelope(b *testing.B) {
	d := envelopeDescriptor()
	env := &envelope{workflow: [16]byte{7}, args: [32]byte{9}, state: 1, round: 3, sent: 0b11, digests: []uint64{41, 42}, data: make([]byte, 160)}
	data := env.marshal(d)
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			data = env.marshal(d)
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := unmarshalEnvelope(data, d); err != nil {
				b.Fatal(err)
			}
		}
	})
}
