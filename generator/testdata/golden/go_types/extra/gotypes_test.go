// Hand-written tests of the generated code of this case, run next to it
// by TestGoldenCompile: values of Go types of the user's (goType) are
// decoded from their JSON form, refused when they do not convert, carried
// through the continuation as their JSON form, rendered as it, and checked
// when a handler sets them.
package refunds

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
)

const paymentID = "6f1c2d3e-4a5b-4c6d-8e7f-001122334455"

func newFlow(t *testing.T, args map[string]any) (*RefundPaymentFlow, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return refundPaymentProgram{}.NewFlow(context.Background(), nil, raw)
}

func TestGoTypeArguments(t *testing.T) {
	f, err := newFlow(t, map[string]any{"paymentId": paymentID, "ticket": "T-42", "currency": "USD"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Args.PaymentID != uuid.MustParse(paymentID) || f.Args.Ticket == nil || *f.Args.Ticket != TicketID("T-42") || f.Args.Currency != (Currency{"USD"}) {
		t.Errorf("decoded %+v", f.Args)
	}
	// The spec's constraints come first, then the type's own refusal.
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"paymentId": "not-a-uuid", "currency": "EUR"}, "paymentId: must match"},
		{map[string]any{"paymentId": paymentID, "currency": "GBP"}, `currency: "GBP" is not a refunds.Currency: no payments in "GBP"`},
		{map[string]any{"paymentId": paymentID, "currency": "EURO"}, "currency: at most 3 characters"},
		{map[string]any{"paymentId": paymentID, "currency": 978}, "currency: expected a string"},
	} {
		if _, err := newFlow(t, tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

func TestGoTypeRoundTripsThroughContinuation(t *testing.T) {
	p := refundPaymentProgram{}
	f, err := newFlow(t, map[string]any{"paymentId": paymentID, "currency": "EUR"})
	if err != nil {
		t.Fatal(err)
	}
	refund := uuid.MustParse("0c4d7e2a-1b3c-4d5e-9f60-718293a4b5c6")
	f.Continuation = RefundPaymentContinuation{Balance: 1250, RefundID: refund}
	ref := TicketID("T-7")
	f.Amount = &RefundPaymentAmountAnswer{Cents: 300, Reference: &ref}
	if problems := p.CheckContinuation(context.Background(), f); len(problems) > 0 {
		t.Fatalf("CheckContinuation: %v", problems)
	}
	data := p.AppendContinuation(nil, f)
	// The bytes are those of the JSON form: the UUID as its text.
	if !bytes.Contains(data, []byte(refund.String())) || !bytes.Contains(data, []byte("T-7")) {
		t.Errorf("continuation %q does not carry the values' text", data)
	}
	var g RefundPaymentFlow
	if err := p.LoadContinuation(&g, data); err != nil {
		t.Fatal(err)
	}
	if g.Continuation != f.Continuation || g.Amount == nil || g.Amount.Cents != 300 || g.Amount.Reference == nil || *g.Amount.Reference != ref {
		t.Errorf("loaded %+v %+v, want %+v %+v", g.Continuation, g.Amount, f.Continuation, f.Amount)
	}
	g.Args = f.Args
	if got, want := refundPaymentRefundedMessage(&g), "Refunded 300 cents of "+paymentID+" as "+refund.String()+"."; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

// A continuation whose value does not convert to the type (written by a
// build whose field had no goType, or altered) is refused, not loaded as a
// zero value.
func TestGoTypeUnconvertibleContinuationIsRefused(t *testing.T) {
	var b []byte
	b, m := binenc.BeginGroup(b, 0x5ec2d352) // continuation
	b = binenc.AppendStringField(b, 0x528361b2, "not a uuid")
	b = binenc.EndGroup(b, m)
	var f RefundPaymentFlow
	err := refundPaymentProgram{}.LoadContinuation(&f, b)
	if err == nil || !strings.Contains(err.Error(), "refundId") {
		t.Errorf("LoadContinuation: %v, want an error naming refundId", err)
	}
}

// A handler's value is checked through its JSON form before it is sealed:
// the bounds apply to it, and a type whose MarshalJSON fails is refused.
func TestGoTypeHandlerValuesAreChecked(t *testing.T) {
	f := &RefundPaymentFlow{Continuation: RefundPaymentContinuation{Balance: -1}}
	problems := refundPaymentProgram{}.CheckContinuation(context.Background(), f)
	if len(problems) != 1 || !strings.Contains(problems[0], "balance") {
		t.Errorf("a negative balance: %v", problems)
	}
	out := &RefundPaymentOutput{Cents: new(Cents(5)), RefundID: new(uuid.New()), Share: new(NewRatio(3, 2))}
	problems = checkRefundPaymentRefundedOutput(out)
	if len(problems) != 1 || !strings.Contains(problems[0], "share") {
		t.Errorf("a share above 1: %v", problems)
	}
	out.Share = new(NewRatio(1, 4))
	if problems := checkRefundPaymentRefundedOutput(out); len(problems) > 0 {
		t.Errorf("a valid output: %v", problems)
	}
	b, err := json.Marshal(out)
	if err != nil || !strings.Contains(string(b), `"share":0.25`) || !strings.Contains(string(b), `"cents":5`) {
		t.Errorf("structured output %s, %v", b, err)
	}
}
