package generator

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

// Forms as written: a form lists its fields in the order the spec author
// wrote them (clients render them in key order), with a title made from the
// name when the spec gives none; the continuation codec keeps its own,
// sorted order.
func TestFormsAsWritten(t *testing.T) {
	src := []byte(`version: 1
package: p
tools:
  choose_plan:
    description: Choose a plan.
    initial: ask
    states:
      ask:
        ask:
          plan:
            elicit:
              message: Choose a plan for the team.
              fields:
                tier: {type: enum, required: true, values: [starter, business]}
                seats: {type: integer, required: true, minimum: 1, maximum: 9}
                closeReason: {type: string, maxLength: 20}
                apiURL: {type: string, maxLength: 20, title: API endpoint}
        next: done
      done:
        terminal: success
        message: Chose {plan.tier}.
`)
	f, ds := spec.Parse("p.mrtr.yaml", src, spec.Options{})
	if f == nil {
		t.Fatal(ds.Error())
	}
	q := f.Tools[0].States[0].Requests[0]
	if q.Fields[0].Name != "apiURL" || q.Fields[3].Name != "tier" {
		t.Fatalf("the model's fields are not sorted by name: %v", q.Fields)
	}
	schema := requestedSchema(q)
	order := []string{`"tier"`, `"seats"`, `"closeReason"`, `"apiURL"`}
	last := -1
	for _, k := range order {
		i := bytes.Index(schema, []byte(k))
		if i < last {
			t.Fatalf("form fields not in spec order %v:\n%s", order, schema)
		}
		last = i
	}
	var parsed struct {
		Properties map[string]struct {
			Title string `json:"title"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(schema, &parsed); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"tier": "Tier", "seats": "Seats", "closeReason": "Close reason", "apiURL": "API endpoint"} {
		if got := parsed.Properties[name].Title; got != want {
			t.Errorf("title of %s = %q, want %q", name, got, want)
		}
	}
	if len(parsed.Required) != 2 || parsed.Required[0] != "tier" {
		t.Errorf("required = %v, want [tier seats]", parsed.Required)
	}
	for name, want := range map[string]string{"userID": "User id", "max_seats": "Max seats", "HTTPTimeout": "Http timeout", "x": "X"} {
		if got := fieldTitle(&spec.Field{Name: name}); got != want {
			t.Errorf("fieldTitle(%s) = %q, want %q", name, got, want)
		}
	}
}
