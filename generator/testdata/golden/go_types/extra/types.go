package refunds

import (
	"encoding/json"
	"fmt"
)

// TicketID is a domain type whose JSON form is its underlying string.
type TicketID string

// Express says a refund is paid out today; its JSON form is its underlying
// boolean.
type Express bool

// Cents is an amount of money in cents; its JSON form is its underlying
// integer.
type Cents int64

// Ratio is a part of a whole, from 0 to 1, with its own JSON form (a
// number), through MarshalJSON and UnmarshalJSON.
type Ratio struct{ parts, of int64 }

// NewRatio is parts of of.
func NewRatio(parts, of int64) Ratio { return Ratio{parts: parts, of: of} }

// Float is the ratio as a number.
func (r Ratio) Float() float64 {
	if r.of == 0 {
		return 0
	}
	return float64(r.parts) / float64(r.of)
}

// MarshalJSON writes the ratio as a JSON number.
func (r Ratio) MarshalJSON() ([]byte, error) { return json.Marshal(r.Float()) }

// UnmarshalJSON reads a JSON number from 0 to 1, in millionths.
func (r *Ratio) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	if f < 0 || f > 1 {
		return fmt.Errorf("ratio %v is not between 0 and 1", f)
	}
	*r = Ratio{parts: int64(f * 1e6), of: 1e6}
	return nil
}

// Currency is an ISO 4217 code this service pays in; its JSON form is the
// code (MarshalText), and UnmarshalText refuses any other.
type Currency struct{ code string }

// MarshalText writes the code.
func (c Currency) MarshalText() ([]byte, error) { return []byte(c.code), nil }

// UnmarshalText reads a code this service pays in.
func (c *Currency) UnmarshalText(b []byte) error {
	switch s := string(b); s {
	case "EUR", "USD":
		c.code = s
		return nil
	default:
		return fmt.Errorf("no payments in %q", s)
	}
}
