// Hand-written tests of the generated code of this case, run next to it
// by TestGoldenCompile: a continuation of every field type round-trips,
// and storage is what the spec says.
package accounts

import (
	"encoding/binary"
	"errors"
	"reflect"
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
)

func TestContinuationRoundTrip(t *testing.T) {
	p := resetPasswordProgram{}
	for _, c := range []ResetPasswordContinuation{
		{},
		{
			Email: "ada@example.com", Phone: "+44 20 7946 0000", Attempts: -3, Score: 0.25, Locked: true,
			Tier: ResetPasswordTierEnterprise, Factors: []ResetPasswordFactors{ResetPasswordFactorsKey, ResetPasswordFactorsTotp},
			Notes: []string{"", "ünïcødé"}, Codes: []int64{0, 999999}, Ratios: []float64{-1.5, 1e300},
		},
	} {
		data := p.AppendContinuation(nil, &ResetPasswordFlow{Continuation: c})
		var got ResetPasswordFlow
		if err := p.LoadContinuation(&got, data); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Continuation, c) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got.Continuation, c)
		}
		ends := entryEnds(data)
		for n := range len(data) {
			if err := p.LoadContinuation(&ResetPasswordFlow{}, data[:n]); (err == nil) != ends[n] {
				t.Errorf("truncated to %d of %d bytes (between entries: %t): %v", n, len(data), ends[n], err)
			}
		}
	}
	// An enum value that is not one of the values (a handler bug the
	// engine's CheckContinuation catches before sealing, or a value a later
	// build removed) is carried by name, and refused when read.
	data := p.AppendContinuation(nil, &ResetPasswordFlow{Continuation: ResetPasswordContinuation{Tier: "gold"}})
	var got ResetPasswordFlow
	var ee *binenc.EnumError
	if err := p.LoadContinuation(&got, data); !errors.As(err, &ee) || ee.Value != "gold" {
		t.Errorf("unknown enum value: %q, %v", got.Continuation.Tier, err)
	}
}

func TestStorage(t *testing.T) {
	for name, d := range map[string]*mrtr.Descriptor{
		"reset_password":   resetPasswordProgram{}.Descriptor(),
		"export_audit_log": exportAuditLogProgram{}.Descriptor(),
		"show_quota":       showQuotaProgram{}.Descriptor(),
	} {
		want := mrtr.Reference
		if name == "show_quota" {
			want = mrtr.Sealed
		}
		if d.Storage != want || d.Name != name {
			t.Errorf("%s: storage %v, want %v", name, d.Storage, want)
		}
	}
}

// entryEnds are the offsets in data at which a top-level tagged entry
// (key(4) | kind(1) | length | payload) ends: cut there, a continuation
// reads fewer values; cut anywhere else, it is corrupt.
func entryEnds(data []byte) map[int]bool {
	ends := map[int]bool{0: true}
	for i := 0; i+5 <= len(data); {
		n, w := binary.Uvarint(data[i+5:])
		if w <= 0 {
			break
		}
		i += 5 + w + int(n)
		ends[i] = true
	}
	return ends
}
