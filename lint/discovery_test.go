package lint

import (
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

// invoiceSpec is the seed article's invoice (the caller knows the currency,
// "there is no reason to start the operation and then ask for currency")
// with a trivial existence check placed before the ask. Each case of
// TestAskAfterPassedChecks replaces one line of it.
const invoiceSpec = `version: 1
package: fixture
validators:
  knownCurrency: {type: string, reads: [customerName]}
tools:
  create_invoice:
    description: Create an invoice for a customer.
    arguments:
      customerId: {type: string, required: true, maxLength: 20}
      express: {type: boolean, required: true}
    continuation:
      ttl: 10m
      fields:
        customerName: {type: string, maxLength: 40}
        currencies: {type: array, maxItems: 5, items: {type: option, maxLength: 3, titleMaxLength: 20}}
        tier: {type: enum, values: [basic, gold]}
    initial: customerExists
    states:
      customerExists:
        check: customerExists
        sets: [customerName, currencies, tier]
        next: askCurrency
      askCurrency:
        ask:
          currency:
            elicit:
              message: Which currency should the invoice for {customerId} use?
              fields:
                code: {type: enum, values: [EUR, USD], required: true}
        next: create
      create:
        effect: createInvoice
        next: done
      done:
        terminal: success
        message: Created an invoice{?currency.code} in {currency.code}{/currency.code}.
      kept:
        terminal: cancelled
        message: No invoice.
`

func TestAskAfterPassedChecks(t *testing.T) {
	const (
		next  = "        next: askCurrency\n"
		msg   = "              message: Which currency should the invoice for {customerId} use?\n"
		field = "                code: {type: enum, values: [EUR, USD], required: true}\n"
	)
	for _, c := range []struct {
		name, old, new string
		want           string // "" for no finding
	}{
		{name: "the seed's example behind an existence check",
			want: `tool "create_invoice": state "askCurrency" asks for currency after checks that only passed (customerExists>askCurrency), and its question uses nothing the tool discovered (no continuation field, earlier answer or valuesFrom): the caller could give it in the arguments`},
		{name: "a message naming only the workflow id", old: msg, new: "              message: Which currency for invoice {workflowId}?\n",
			want: `state "askCurrency" asks for currency after checks that only passed (customerExists>askCurrency)`},
		{name: "a branch on an argument before it", old: next, new: "        next: bySpeed\n      bySpeed:\n        branch: express\n        cases: {true: askCurrency, false: kept}\n",
			want: `(customerExists>bySpeed>(true)askCurrency)`},
		{name: "a message showing what the check found", old: msg, new: "              message: Which currency should the invoice for {customerName} use?\n"},
		{name: "a section on what the check found", old: msg, new: "              message: Which currency should the invoice use?{?customerName} It is for {customerName}.{/customerName}\n"},
		{name: "options the check found", old: field, new: "                code: {type: enum, valuesFrom: currencies, required: true}\n"},
		{name: "a validator reading what the check found", old: field, new: "                code: {type: string, maxLength: 3, required: true, validate: [knownCurrency]}\n"},
		{name: "a sensitive field", old: field, new: field + "                card: {type: string, maxLength: 20, sensitive: true}\n"},
		{name: "a check outcome other than success", old: next, new: "        outcomes: {foreign: askCurrency, domestic: create}\n"},
		{name: "a branch on what the check found", old: next, new: "        next: byTier\n      byTier:\n        branch: tier\n        cases: {basic: create, gold: askCurrency}\n"},
		{name: "a gate before it", old: next, new: "        next: confirmStart\n      confirmStart:\n        confirm: {message: \"Invoice customer {customerId}?\"}\n        next: askCurrency\n        onDecline: kept\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := invoiceSpec
			if c.old != "" {
				if !strings.Contains(src, c.old) {
					t.Fatalf("the spec has no line %q", c.old)
				}
				src = strings.Replace(src, c.old, c.new, 1)
			}
			f, ds := spec.Parse("invoice.mrtr.yaml", []byte(src), spec.Options{})
			if f == nil || ds.HasErrors() {
				t.Fatalf("load: %v", ds)
			}
			var got []spec.Diagnostic
			for _, d := range Run(f) {
				if d.Rule == "ask-before-discovery" {
					got = append(got, d)
				} else if d.Severity == spec.Error {
					t.Errorf("the case has another error: %v", d)
				}
			}
			switch {
			case c.want == "" && len(got) > 0:
				t.Fatalf("reported: %v", got)
			case c.want == "":
			case len(got) != 1:
				t.Fatalf("%d findings %v, want one", len(got), got)
			case !strings.Contains(got[0].Message, c.want):
				t.Errorf("message %q\nwant it to contain %q", got[0].Message, c.want)
			case got[0].Hint != upFrontHint || got[0].Pos.Line != strings.Count(src[:strings.Index(src, "      askCurrency:")], "\n")+1: //nolint:gocritic // the fixture holds askCurrency (the message check above found it)
				t.Errorf("finding %+v: want the hint %q at askCurrency", got[0], upFrontHint)
			}
		})
	}
}
