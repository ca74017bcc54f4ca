package mrtr

import (
	"encoding/binary"
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Tokens of the previous build (envelope version 1: no sent mask, no
// question digests) keep opening: every request of their state counts as
// sent, and no question is compared.
func TestVersion1EnvelopesOpen(t *testing.T) {
	d := &mrtrimpl.Descriptor{SchemaHash: 0xfeed, Storage: vocab.Sealed, States: []mrtrimpl.StateInfo{
		{Name: "ask", Kind: vocab.StateAsk, Requests: []mrtrimpl.RequestInfo{{Key: "a"}, {Key: "b"}}},
		{Name: "done", Kind: vocab.StateTerminal},
	}}
	// What the previous build's marshal wrote.
	v1 := []byte{envelopeV1}
	v1 = binary.BigEndian.AppendUint64(v1, d.SchemaHash)
	v1 = append(v1, make([]byte, 16)...)
	v1 = binenc.AppendUvarint(v1, 1) // state
	v1 = binenc.AppendUvarint(v1, 2) // round
	v1 = append(v1, modeInline, 0xAB)
	env, err := unmarshalEnvelope(v1, d)
	if err != nil {
		t.Fatal(err)
	}
	if env.sent != 0b11 || env.digests != nil || env.state != 1 || env.round != 2 || string(env.data) != "\xab" {
		t.Fatalf("v1 envelope read as %+v", env)
	}
	if changed := env.pinQuestions(d.State(1), nil); changed != nil || env.sent != 0b11 {
		t.Fatalf("a v1 token's answers were unpinned: %v", changed)
	}

	// The current version round-trips its mask and digests.
	v2 := &envelope{state: 1, round: 3, sent: 0b10, digests: []uint64{42}, data: []byte{1}}
	got, err := unmarshalEnvelope(v2.marshal(d.SchemaHash), d)
	if err != nil || got.sent != 0b10 || len(got.digests) != 1 || got.digests[0] != 42 || string(got.data) != "\x01" {
		t.Fatalf("v2 round trip: %+v, %v", got, err)
	}
	// A mask naming a request the state does not have is malformed.
	bad := &envelope{state: 1, round: 3, sent: 0b100, digests: []uint64{1}}
	if _, err := unmarshalEnvelope(bad.marshal(d.SchemaHash), d); err == nil {
		t.Fatal("a mask beyond the state's requests was accepted")
	}
}
