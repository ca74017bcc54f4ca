// Hand-written tests of the generated code of this case, run next to it
// by TestGoldenCompile: a continuation of every field type round-trips,
// and storage is what the spec says.
package accounts

import (
	"errors"
	"reflect"
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
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
		// The fields are one group of tagged entries (envelope 3): no
		// bytes at all is an empty continuation, and a cut anywhere inside
		// the group is refused.
		for n := 1; n < len(data); n++ {
			if err := p.LoadContinuation(&ResetPasswordFlow{}, data[:n]); err == nil {
				t.Errorf("truncated to %d of %d bytes: no error", n, len(data))
			}
		}
	}
	// An enum value that is not one of this build's values (a value a
	// later spec removed, or a handler bug CheckContinuation did not stop)
	// is refused, never read as another value.
	data := p.AppendContinuation(nil, &ResetPasswordFlow{Continuation: ResetPasswordContinuation{Tier: "gold"}})
	var got ResetPasswordFlow
	var enumErr *binenc.EnumError
	if err := p.LoadContinuation(&got, data); !errors.As(err, &enumErr) || got.Continuation.Tier != "" {
		t.Errorf("unknown enum value: %q, %v; want a *binenc.EnumError", got.Continuation.Tier, err)
	}
}

func TestStorage(t *testing.T) {
	for name, d := range map[string]*mrtrimpl.Descriptor{
		"reset_password":   resetPasswordProgram{}.Descriptor(),
		"export_audit_log": exportAuditLogProgram{}.Descriptor(),
		"show_quota":       showQuotaProgram{}.Descriptor(),
	} {
		want := vocab.Reference
		if name == "show_quota" {
			want = vocab.Sealed
		}
		if d.Storage != want || d.Name != name {
			t.Errorf("%s: storage %v, want %v", name, d.Storage, want)
		}
	}
}
