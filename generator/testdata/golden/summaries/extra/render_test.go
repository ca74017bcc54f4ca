package deploys

import "testing"

// The messages as users read them: formats, and sections shown only when
// their value is set.
func TestSummaries(t *testing.T) {
	window, notes := int64(90), "after the freeze"
	full := &DeployReleaseFlow{
		Args: DeployReleaseArgs{ReleaseID: "rel-42", Environment: DeployReleaseEnvironmentProd, WindowMinutes: &window, Notes: &notes},
		Continuation: DeployReleaseContinuation{Changes: 1234, CanaryShare: 12.5, Services: []string{"api", "web"},
			FrozenUntil: "2026-12-24T18:00:00+01:00"},
	}
	bare := &DeployReleaseFlow{Args: DeployReleaseArgs{ReleaseID: "rel-7", Environment: DeployReleaseEnvironmentStaging},
		Continuation: DeployReleaseContinuation{Changes: 3, Services: []string{"api"}}}
	refund := &RefundPaymentFlow{
		Args:         RefundPaymentArgs{PaymentID: "pay_abcd", AmountMinor: 123456, Currency: RefundPaymentCurrencyEUR, Reasons: []RefundPaymentReasons{RefundPaymentReasonsDamaged, RefundPaymentReasonsOther}},
		Continuation: RefundPaymentContinuation{PaidMinor: 250000, PaidOn: "2026-11-30"},
	}
	yen := &RefundPaymentFlow{Args: RefundPaymentArgs{PaymentID: "pay_wxyz", AmountMinor: 5000, Currency: RefundPaymentCurrencyJPY},
		Continuation: RefundPaymentContinuation{PaidMinor: 5000, PaidOn: "2026-11-30"}}
	for _, tc := range []struct{ got, want string }{
		{deployReleaseConfirmDeployMessage(full), "Deploy rel-42 (1,234 changes to api, web) to Production with 12.5% canary? Window: 1h 30m. Notes: after the freeze. Frozen until 2026-12-24 17:00 UTC. Type rel-42 to deploy."},
		{deployReleaseConfirmDeployMessage(bare), "Deploy rel-7 (3 changes to api) to Staging with 0.0% canary? Type rel-7 to deploy."},
		{deployReleaseConfirmDeployTyped(full), "rel-42"},
		{refundPaymentConfirmRefundMessage(refund), "Refund EUR 1,234.56 of EUR 2,500.00 paid on 2026-11-30 for payment pay_abcd? Reasons: Arrived damaged, other."},
		{refundPaymentConfirmRefundMessage(yen), "Refund JPY 5,000 of JPY 5,000 paid on 2026-11-30 for payment pay_wxyz?"},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %q\nwant %q", tc.got, tc.want)
		}
	}
}
