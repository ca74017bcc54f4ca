package mrtr

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// TestRoundRecordNameAndFingerprint pins the round record's key and
// fingerprint to the bytes every earlier build wrote: during a deploy an
// instance of the new build takes over the retry of a round another build
// claimed, and a different key or fingerprint would make that retry run the
// round again or fail as "already used with other input".
func TestRoundRecordNameAndFingerprint(t *testing.T) {
	e := holdEngine(t, store.NewMemory(store.Options{}))
	d := &mrtrimpl.Descriptor{Kind: vocab.KindTool, Name: "close_ticket", States: []mrtrimpl.StateInfo{
		{Name: "askReason", Requests: []mrtrimpl.RequestInfo{{Key: "reason"}, {Key: "never_sent"}}},
	}}
	env := &envelope{workflow: [16]byte{0xab, 1}, state: 1, round: 2, sent: 0b01}
	argsDigest := sha256.Sum256([]byte("args"))
	answer := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"closeReason": "resolved"}}
	req := &Request{InputResponses: mcp.InputResponseMap{
		"reason":     answer,
		"never_sent": &mcp.ElicitResult{Action: "decline"}, // not sent this round: not fingerprinted
		"unasked":    &mcp.ElicitResult{Action: "decline"}, // nobody asked it: ignored
	}}
	// What the fingerprint has always covered: the arguments digest, the
	// answers to the requests sent (the bytes encoding/json writes for them,
	// here as a literal, so that an SDK or Go upgrade that wrote other bytes
	// fails this test), then the up-front inputs ("null" when there are
	// none).
	fingerprint := func(inputs string) []byte {
		h := sha256.New()
		h.Write(argsDigest[:])
		h.Write([]byte(`{"reason":{"action":"accept","content":{"closeReason":"resolved"}}}`))
		h.Write([]byte(inputs))
		return h.Sum(nil)
	}
	for _, c := range []struct {
		name   string
		inputs map[string]json.RawMessage
		want   string
	}{
		{"no inputs", nil, "null"},
		{"empty inputs", map[string]json.RawMessage{}, "{}"},
		{"inputs", map[string]json.RawMessage{"b": json.RawMessage(`2`), "a": json.RawMessage(`"x"`)}, `{"a":"x","b":2}`},
	} {
		rr, err := e.newRoundRecord(d, env, argsDigest, req, c.inputs)
		if err != nil {
			t.Fatal(err)
		}
		if want := "a/tools/call:close_ticket/round/ab010000000000000000000000000000/2"; rr.key != want || rr.claim.Key != want {
			t.Errorf("%s: key %q, claim key %q, want %q", c.name, rr.key, rr.claim.Key, want)
		}
		if got, want := rr.claim.Fingerprint, fingerprint(c.want); !bytes.Equal(got, want) {
			t.Errorf("%s: fingerprint %x, want %x", c.name, got, want)
		}
	}
}
