// Package benchspec writes the synthetic specs the benchmarks of lint and
// the generator load: many copies of one realistic tool.
package benchspec

import (
	"fmt"
	"strings"
)

// Refunds is a spec of n realistic tools: arguments with constraints, a
// continuation, a check, an ask with a form of several field types, a
// confirmation gate, a recheck, an irreversible effect with a business
// idempotency key, and success, cancelled and failed ends.
func Refunds(n int) []byte {
	var b strings.Builder
	b.WriteString("version: 1\npackage: bench\nvalidators:\n  noSecrets: {type: string, description: Rejects secrets.}\ntools:\n")
	for i := range n {
		fmt.Fprintf(&b, `  refund_order_%[1]d:
    title: Refund order %[1]d
    description: Refunds an order after the customer confirms the amount; never twice.
    destructive: true
    arguments:
      orderId: {type: string, required: true, pattern: 'ord_[0-9]{1,12}', maxLength: 16}
      note: {type: string, maxLength: 200, validate: [noSecrets]}
      priority: {type: enum, values: [low, normal, high], default: normal}
    continuation:
      ttl: 10m
      fields:
        amountCents: {type: integer, minimum: 1, maximum: 100000000}
        currency: {type: enum, values: [EUR, GBP, USD]}
        customer: {type: string, maxLength: 64}
    initial: lookup
    states:
      lookup:
        description: The order exists, was paid, and can be refunded.
        check: orderRefundable
        outcomes:
          refundable: askReason
          notRefundable: refused
      askReason:
        ask:
          reason:
            elicit:
              message: Choose why order {orderId} of {customer} is refunded.
              fields:
                why: {type: enum, required: true, values: [damaged, late, wrong_item, other], titles: {damaged: Arrived damaged, late: Arrived late}}
                detail: {type: string, maxLength: 300, title: Details for the warehouse}
                items: {type: integer, minimum: 1, maximum: 50, default: 1}
                channels: {type: array, maxItems: 2, items: {type: enum, values: [mail, phone]}}
        next: confirmRefund
        onDecline: kept
      confirmRefund:
        confirm:
          message: Refund {amountCents} cents ({currency}) for order {orderId} ({reason.why})?
        next: recheck
        onDecline: kept
        onCancel: kept
      recheck:
        description: The order may have been refunded while the customer decided.
        check: stillRefundable
        next: refund
      refund:
        effect: refundPayment
        irreversible: true
        idempotency:
          key: refund-{orderId}
          retain: 72h
        next: refunded
      refunded:
        terminal: success
        message: Refunded {amountCents} cents for order {orderId} ({reason.why}, {reason.items} items).
      kept:
        terminal: cancelled
        message: Order {orderId} was not refunded.
      refused:
        terminal: failed
        message: Order {orderId} cannot be refunded.
`, i)
	}
	return []byte(b.String())
}
