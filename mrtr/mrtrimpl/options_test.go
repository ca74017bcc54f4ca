package mrtrimpl

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestOfferSchema(t *testing.T) {
	schema := json.RawMessage(`{
  "properties": {
    "note": {"maxLength": 20, "title": "Note", "type": "string"},
    "customer": {"title": "Customer", "type": "string"},
    "services": {"items": {"type": "string"}, "minItems": 1, "title": "Services", "type": "array"}
  },
  "required": ["customer"],
  "type": "object"
}`)
	got := X.OfferSchema(schema,
		Offer{Field: "customer", Options: []option{{Value: "cus_2", Title: "Jane Smith & Sons"}, {Value: "cus_1"}}},
		Offer{Field: "services", Multi: true, Options: X.StringOptions([]string{"search", "billing"})})
	want := `{"properties":{"note":{"maxLength":20,"title":"Note","type":"string"},` +
		`"customer":{"oneOf":[{"const":"cus_2","title":"Jane Smith & Sons"},{"const":"cus_1","title":"cus_1"}],"title":"Customer","type":"string"},` +
		`"services":{"items":{"anyOf":[{"const":"search","title":"search"},{"const":"billing","title":"billing"}]},"minItems":1,"title":"Services","type":"array"}},` +
		`"required":["customer"],"type":"object"}`
	if string(got) != want {
		t.Errorf("OfferSchema =\n%s\nwant\n%s", got, want)
	}
	// The options' order is the order offered, and it is part of the
	// question: other options give other bytes, so another digest.
	again := X.OfferSchema(schema, Offer{Field: "customer", Options: []option{{Value: "cus_1"}, {Value: "cus_2", Title: "Jane Smith & Sons"}}})
	if string(again) == string(got) {
		t.Error("reordered options gave the same schema")
	}
	// What a client gets is a schema withPrefill can work on too.
	var parsed map[string]any
	if err := json.Unmarshal(got, &parsed); err != nil {
		t.Fatal(err)
	}
}

func TestOfferedOrder(t *testing.T) {
	opts := []option{{Value: "b"}, {Value: "a"}, {Value: "c"}}
	if got := X.OfferedOrder([]string{"a", "b", "a", "x"}, opts); !slices.Equal(got, []string{"b", "a"}) {
		t.Errorf("OfferedOrder = %q", got)
	}
	if got := X.OfferedOrder(nil, opts); got != nil {
		t.Errorf("no list stays no list, got %q", got)
	}
	if !X.Offered(opts, "c") || X.Offered(opts, "x") || X.Offered(nil, "") {
		t.Error("Offered is wrong")
	}
	if got := optionValues(opts); got != "b, a, c" {
		t.Errorf("optionValues = %q", got)
	}
	if got := X.JoinTitles([]option{{Value: "b", Title: "Bee"}, {Value: "a"}}); got != "Bee, a" {
		t.Errorf("JoinTitles = %q", got)
	}
}

func TestCheckOptions(t *testing.T) {
	var p Problems
	X.CheckOptions(&p, "matches", []option{{Value: "a"}, {Title: "no value"}, {Value: "a", Title: "again"}, {Value: "b"}})
	want := Problems{"matches[1]: an option needs a value", `matches: the value "a" is offered twice`}
	if !slices.Equal(p, want) {
		t.Errorf("problems %q, want %q", p, want)
	}
}

func TestNotSetError(t *testing.T) {
	err := X.NotSet("check", "findCustomers", "lookup", "several", "matches", "Matches")
	if !errors.Is(err, errNotSet) {
		t.Error("NotSet is not errNotSet")
	}
	for _, part := range []string{"check findCustomers", "state lookup", "outcome several", "continuation field matches", "f.Continuation.Matches"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("%q does not say %q", err, part)
		}
	}
}
