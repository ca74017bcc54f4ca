package spec

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// siteFormsSpec is the golden case of states' own forms of a question.
const siteFormsSpec = "../generator/testdata/golden/branchforms/tickets.mrtr.yaml"

func readSiteFormsSpec(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(siteFormsSpec)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The question keeps one request (one answer type) that holds every field
// an extension adds, optional; each state has its own form.
func TestSiteForms(t *testing.T) {
	f, ds := Parse("t.mrtr.yaml", []byte(readSiteFormsSpec(t)), Options{})
	if f == nil || ds.HasErrors() {
		t.Fatalf("does not load: %v", ds)
	}
	tool := f.Tools[0]
	q := tool.Question("closing")
	manager, customer := tool.State("askManager"), tool.State("askCustomer")
	if manager.Request("closing") != q || customer.Request("closing") != q {
		t.Fatal("the states do not share the question")
	}
	if got := fieldNames(q.Fields); got != "closeReason, note, ticket" {
		t.Errorf("the shared answer has fields %s, want the question's and the added ticket", got)
	}
	if tk := q.Field("ticket"); tk == nil || tk.Required {
		t.Errorf("the shared answer's ticket is %+v, want optional (the customer never sets it)", tk)
	}
	m, c := manager.Form(q), customer.Form(q)
	if m.Site != q || c.Site != q || m.AskedIn != "askManager" || !tool.HasSiteForms(q) {
		t.Fatalf("the states' forms are not the question's: %+v %+v", m, c)
	}
	if got := fieldNames(m.Fields); got != "closeReason, note, ticket" || !m.Field("ticket").Required {
		t.Errorf("the manager's form has %s (ticket required: %v)", got, m.Field("ticket") != nil && m.Field("ticket").Required)
	}
	if got := fieldNames(c.Fields); got != "closeReason, note" {
		t.Errorf("the customer's form has %s, want no ticket", got)
	}
	if got := values(c.Field("closeReason").Values); !slices.Equal(got, []string{"resolved", "duplicate"}) {
		t.Errorf("the customer is offered %v", got)
	}
	if got := values(q.Field("closeReason").Values); len(got) != 3 {
		t.Errorf("narrowing changed the question's values: %v", got)
	}
	if *c.Field("note").MaxLength != 100 || *q.Field("note").MaxLength != 500 || *m.Field("note").MaxLength != 500 {
		t.Error("the note's bounds are not each form's own")
	}
	if !slices.Equal(c.Narrowed, []string{"closeReason", "note"}) || !slices.Equal(m.Extended, []string{"ticket"}) {
		t.Errorf("narrowed %v, extended %v", c.Narrowed, m.Extended)
	}
}

func TestSiteFormMisuse(t *testing.T) {
	base := readSiteFormsSpec(t)
	narrow := "                  closeReason: {values: [resolved, duplicate]}\n"
	swap := func(old, new string) []byte {
		if !strings.Contains(base, old) {
			t.Fatalf("%q is not in the spec", old)
		}
		return []byte(strings.Replace(base, old, new, 1))
	}
	for _, c := range []struct {
		name             string
		data             []byte
		pos, rule, words string
	}{
		{"a value the question does not have", swap(narrow, "                  closeReason: {values: [resolved, reopened]}\n"),
			"54:52", "question-form", `value "reopened" is not one of the question's`},
		{"a looser bound", swap("note: {maxLength: 100}", "note: {maxLength: 900}"),
			"55:37", "question-form", `maxLength 900 widens the question's 500`},
		{"a changed type", swap(narrow, "                  closeReason: {type: string}\n"),
			"54:39", "question-form", `a field cannot change type (enum at the question, string here)`},
		{"required: false on a required field", swap(narrow, "                  closeReason: {required: false}\n"),
			"54:43", "question-form", `required: false widens a required field`},
		{"a field the question does not have", swap(narrow, "                  reason: {values: [resolved]}\n"),
			"54:19", "question-form", `narrows field "reason", which question "closing" does not have`},
		{"an extension redefining a field", swap("                  ticket: {type: string,", "                  note: {type: string, maxLength: 5}\n                  ticket: {type: string,"),
			"45:19", "question-form", `with field "note", which the question already has`},
		{"an extension with a default", swap("ticket: {type: string, required: true,", "ticket: {type: string, default: CHG-1,"),
			"45:19", "question-form", `which has a default`},
		{"an added field typed differently at two states", swap("                  note: {maxLength: 100}\n", "                  note: {maxLength: 100}\n              extend:\n                fields:\n                  ticket: {type: integer}\n"),
			"58:19", "question-form", `one key has one answer type`},
		{"neither extend nor narrow", swap("            question:\n              narrow:\n                fields:\n"+narrow+"                  note: {maxLength: 100}\n", "            question: {}\n"),
			"51:23", "schema", ""},
		{"an unknown key", swap("              narrow:\n", "              narrows:\n"),
			"52:15", "schema", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ds := Parse("p.mrtr.yaml", c.data, Options{})
			expectDiag(t, ds, c.pos, c.rule, c.words)
		})
	}
}

// Narrowing the values of a multi-select narrows its items, not the
// question's.
func TestSiteFormNarrowsMultiSelect(t *testing.T) {
	base := readSiteFormsSpec(t)
	data := strings.Replace(base, "            note: {type: string, maxLength: 500}\n",
		"            note: {type: string, maxLength: 500}\n            areas: {type: array, maxItems: 3, items: {type: enum, values: [api, web, docs]}}\n", 1)
	data = strings.Replace(data, "                  note: {maxLength: 100}\n", "                  note: {maxLength: 100}\n                  areas: {values: [web], maxItems: 1}\n", 1)
	f, ds := Parse("t.mrtr.yaml", []byte(data), Options{})
	if f == nil || ds.HasErrors() {
		t.Fatalf("does not load: %v", ds)
	}
	tool := f.Tools[0]
	q := tool.Question("closing")
	c := tool.State("askCustomer").Form(q)
	if got := values(c.Field("areas").Items.Values); !slices.Equal(got, []string{"web"}) || *c.Field("areas").MaxItems != 1 {
		t.Errorf("the customer's areas offer %v (maxItems %d)", got, *c.Field("areas").MaxItems)
	}
	if got := values(q.Field("areas").Items.Values); len(got) != 3 || *q.Field("areas").MaxItems != 3 {
		t.Errorf("narrowing changed the question's areas: %v", got)
	}
	if got := values(tool.State("askManager").Form(q).Field("areas").Items.Values); len(got) != 3 {
		t.Errorf("narrowing changed the manager's areas: %v", got)
	}
}
