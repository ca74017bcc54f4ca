package jsonform

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
)

type cents int64

// quoted is a decimal-like type whose MarshalJSON writes a quoted string,
// as shopspring/decimal does by default.
type quoted struct{ s string }

func (q quoted) MarshalJSON() ([]byte, error) { return json.Marshal(q.s) }
func (q *quoted) UnmarshalJSON(b []byte) error {
	return json.Unmarshal(b, &q.s)
}

// ptrText has its text methods on the pointer only.
type ptrText struct{ v string }

func (p *ptrText) MarshalText() ([]byte, error) { return []byte("<" + p.v + ">"), nil }
func (p *ptrText) UnmarshalText(b []byte) error {
	p.v = strings.Trim(string(b), "<>")
	return nil
}

func TestRoundTrips(t *testing.T) {
	id := uuid.MustParse("6f1c2d3e-4a5b-4c6d-8e7f-001122334455")
	s, err := To[string](id)
	if err != nil || s != id.String() {
		t.Fatalf("To(uuid) = %q, %v", s, err)
	}
	back, err := From[uuid.UUID](s)
	if err != nil || back != id {
		t.Fatalf("From(%q) = %v, %v", s, back, err)
	}
	n, err := To[int64](cents(-42))
	if err != nil || n != -42 {
		t.Fatalf("To(cents) = %d, %v", n, err)
	}
	if c, err := From[cents](int64(7)); err != nil || c != 7 {
		t.Fatalf("From(7) = %d, %v", c, err)
	}
	// A method on the pointer counts: To marshals a pointer.
	if s, err := To[string](ptrText{"x"}); err != nil || s != "<x>" {
		t.Fatalf("To(ptrText) = %q, %v", s, err)
	}
	if p, err := From[ptrText]("<y>"); err != nil || p.v != "y" {
		t.Fatalf("From(<y>) = %+v, %v", p, err)
	}
}

func TestWrongJSONType(t *testing.T) {
	// Its MarshalJSON writes a string where the spec says number.
	if _, err := To[float64](quoted{"1.50"}); err == nil || !strings.Contains(err.Error(), `marshals to "1.50", not a number`) {
		t.Errorf("To[float64](quoted) = %v", err)
	}
	if _, err := From[uuid.UUID]("not a uuid"); err == nil || !strings.Contains(err.Error(), `"not a uuid" is not a uuid.UUID`) {
		t.Errorf("From(not a uuid) = %v", err)
	}
	if _, err := From[cents](1.5); err == nil {
		t.Error("From[cents](1.5) took a fraction")
	}
	if v := Value[float64](quoted{"x"}); v != 0 {
		t.Errorf("Value of a value without a number form = %v", v)
	}
}

func TestReadFailsTheReader(t *testing.T) {
	r := binenc.NewFields(nil)
	if v := Read[uuid.UUID](r, "refundId", "nope"); v != uuid.Nil {
		t.Errorf("Read = %v", v)
	}
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "refundId") {
		t.Errorf("reader error %v, want one naming refundId", err)
	}
	p := binenc.NewReader(nil)
	ReadV2[uuid.UUID](p, "nope")
	if p.Err() == nil {
		t.Error("ReadV2 left the positional reader without an error")
	}
}

func TestMustPanicsOnABadExample(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "example nope") {
			t.Errorf("recovered %v", r)
		}
	}()
	Must[uuid.UUID]("nope")
}

// The cost of one conversion each way: generated code pays it per goType
// value decoded, checked, rendered or carried.
func BenchmarkUUID(b *testing.B) {
	id := uuid.MustParse("6f1c2d3e-4a5b-4c6d-8e7f-001122334455")
	for b.Loop() {
		s, _ := To[string](id)
		if _, err := From[uuid.UUID](s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkKind(b *testing.B) {
	for b.Loop() {
		n, _ := To[int64](cents(1250))
		if _, err := From[cents](n); err != nil {
			b.Fatal(err)
		}
	}
}
