// Hand-written tests of the generated code of this case, run next to it
// by TestGoldenCompile: a continuation of every field type round-trips,
// and storage is what the spec says.
package accounts

import (
	"reflect"
	"testing"

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
		for n := range len(data) {
			if err := p.LoadContinuation(&ResetPasswordFlow{}, data[:n]); err == nil {
				t.Errorf("truncated to %d of %d bytes: no error", n, len(data))
			}
		}
	}
	// An enum value that is not one of the values (a handler bug) is
	// stored as unset, not as something else.
	data := p.AppendContinuation(nil, &ResetPasswordFlow{Continuation: ResetPasswordContinuation{Tier: "gold"}})
	var got ResetPasswordFlow
	if err := p.LoadContinuation(&got, data); err != nil || got.Continuation.Tier != "" {
		t.Errorf("unknown enum value: %q, %v", got.Continuation.Tier, err)
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
