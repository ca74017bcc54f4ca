// Hand-written tests of the generated code of this case, run next to it
// by TestGoldenCompile: every constraint of every argument is enforced,
// defaults are applied, and requestState is bound to all the arguments.
package search

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func validArgs() map[string]any {
	return map[string]any{
		"query": "blue shoes", "customerId": "cus_ab12", "email": "ada@example.com", "since": "2026-02-03",
		"until": "2026-02-04T05:06:07Z", "callback": "https://example.com/hook", "limit": 100, "offset": 0,
		"minTotal": -10.5, "exact": false, "archived": true, "sort": "total", "status": "paid",
		"tags": []any{"a", "zz"}, "ids": []any{1, 999999}, "weights": []any{0, 0.5, 1}, "regions": []any{"eu", "apac"},
	}
}

func newFlow(t *testing.T, args map[string]any) (*SearchOrdersFlow, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return searchOrdersProgram{}.NewFlow(context.Background(), nil, raw)
}

func TestArgumentConstraints(t *testing.T) {
	f, err := newFlow(t, validArgs())
	if err != nil {
		t.Fatalf("valid arguments: %v", err)
	}
	if f.Args.Limit != 100 || f.Args.Offset == nil || *f.Args.Offset != 0 || f.Args.Exact || len(f.Args.Regions) != 2 || f.Args.Status != SearchOrdersStatusPaid {
		t.Errorf("decoded %+v", f.Args)
	}
	for _, tc := range []struct {
		arg   string
		value any // nil: leave it out
		want  string
	}{
		{"query", "ab", "query: at least 3 characters (got 2)"},
		{"query", strings.Repeat("q", 101), "query: at most 100 characters (got 101)"},
		{"query", nil, "query: required"},
		{"customerId", "cus_ab", "customerId: must match cus_[a-z0-9]{4,8}"},
		{"customerId", "cus_abcdefghi", "customerId: at most 12 characters (got 13); customerId: must match"},
		{"email", "ada", "email: must be a valid email"},
		{"since", "2026-02-30", "since: must be a valid date"},
		{"until", "tomorrow", "until: must be a valid date-time"},
		{"callback", "/relative", "callback: must be a valid uri"},
		{"limit", 0, "limit: at least 1"},
		{"limit", 101, "limit: at most 100"},
		{"limit", 1.5, "limit: expected an integer"},
		{"offset", -1, "offset: at least 0"},
		{"minTotal", -10.51, "minTotal: at least -10.5"},
		{"minTotal", 1e6 + 1, "minTotal: at most 1000000"},
		{"exact", "true", "exact: expected true or false"},
		{"sort", "random", "sort: must be one of newest, oldest, total"},
		{"status", "void", "status: must be one of open, paid, refunded"},
		{"status", nil, "status: required"},
		{"tags", []any{"a", "b", "c", "d", "e", "f"}, "tags: choose at most 5"},
		{"tags", []any{""}, "tags[]: at least 1 characters (got 0); tags[]: must match [a-z]+"},
		{"tags", []any{strings.Repeat("a", 21)}, "tags[]: at most 20 characters (got 21)"},
		{"tags", []any{"A1"}, "tags[]: must match [a-z]+"},
		{"tags", []any{3}, "tags[0]: expected a string"},
		{"ids", []any{}, "ids: choose at least 1"},
		{"ids", []any{0}, "ids[]: at least 1"},
		{"ids", []any{1000000}, "ids[]: at most 999999"},
		{"ids", []any{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, "ids: choose at most 10"},
		{"ids", []any{1.5}, "ids[0]: expected an integer"},
		{"weights", []any{-0.1}, "weights[]: at least 0"},
		{"weights", []any{1.1}, "weights[]: at most 1"},
		{"weights", []any{0, 0, 0, 0}, "weights: choose at most 3"},
		{"regions", []any{}, "regions: choose at least 1"},
		{"regions", []any{"eu", "us", "apac"}, "regions: choose at most 2"},
		{"regions", []any{"mars"}, "regions[]: must be one of eu, us, apac"},
		{"regions", "eu", "regions: expected a list"},
		{"nope", 1, "nope: unknown argument"},
	} {
		args := validArgs()
		if tc.value == nil {
			delete(args, tc.arg)
		} else {
			args[tc.arg] = tc.value
		}
		_, err := newFlow(t, args)
		if err == nil || err.Error() != "invalid arguments: "+tc.want && !strings.HasPrefix(err.Error(), "invalid arguments: "+tc.want) {
			t.Errorf("%s = %#v: %v, want %q", tc.arg, tc.value, err, tc.want)
		}
	}
}

func TestArgumentDefaults(t *testing.T) {
	f, err := newFlow(t, map[string]any{"query": "abc", "status": "open"})
	if err != nil {
		t.Fatal(err)
	}
	want := SearchOrdersArgs{
		Query: "abc", Status: SearchOrdersStatusOpen, Since: "2026-01-01", Limit: 20, Exact: true,
		Sort: SearchOrdersSortNewest, Regions: []SearchOrdersRegions{SearchOrdersRegionsEu},
	}
	if !reflect.DeepEqual(f.Args, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", f.Args, want)
	}
}

// Every argument changes the canonical encoding requestState is bound to;
// giving a default explicitly does not.
func TestAppendArgsBindsEveryArgument(t *testing.T) {
	p := searchOrdersProgram{}
	base, err := newFlow(t, validArgs())
	if err != nil {
		t.Fatal(err)
	}
	ref := p.AppendArgs(nil, base)
	other := map[string]any{
		"query": "red shoes", "customerId": "cus_ab13", "email": "bob@example.com", "since": "2026-02-04",
		"until": "2026-02-04T05:06:08Z", "callback": "https://example.com/other", "limit": 99, "offset": 1,
		"minTotal": 0, "exact": true, "archived": false, "sort": "oldest", "status": "open",
		"tags": []any{"a"}, "ids": []any{2}, "weights": []any{0.25}, "regions": []any{"us"},
	}
	for k, v := range other {
		args := validArgs()
		args[k] = v
		f, err := newFlow(t, args)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if bytes.Equal(p.AppendArgs(nil, f), ref) {
			t.Errorf("changing %s does not change the encoding", k)
		}
		delete(args, k)
		if f, err := newFlow(t, args); err == nil && bytes.Equal(p.AppendArgs(nil, f), ref) && k != "exact" && k != "limit" && k != "since" && k != "sort" && k != "regions" {
			t.Errorf("leaving out %s does not change the encoding", k)
		}
	}
	a, _ := newFlow(t, map[string]any{"query": "abc", "status": "open"})
	b, _ := newFlow(t, map[string]any{"query": "abc", "status": "open", "limit": 20, "exact": true, "sort": "newest", "since": "2026-01-01", "regions": []any{"eu"}})
	if !bytes.Equal(p.AppendArgs(nil, a), p.AppendArgs(nil, b)) {
		t.Error("defaults given explicitly change the encoding")
	}
}

func TestTemplates(t *testing.T) {
	f, err := newFlow(t, validArgs())
	if err != nil {
		t.Fatal(err)
	}
	f.Continuation.Matches = 3
	want := `Found 3 orders for "blue shoes" (paid, eu, apac, tags a, zz, ids 1, 999999, weights 0, 0.5, 1). Which one should be opened?`
	if got := searchOrdersPickChoiceMessage(f); got != want {
		t.Errorf("message\n got %q\nwant %q", got, want)
	}
	g, _ := newFlow(t, map[string]any{"query": "abc", "status": "open"})
	want = "Opened order  of 0 (limit 20, offset , minTotal , exact true, archived , sort newest, since 2026-01-01, customer )."
	if got := searchOrdersOpenedMessage(g); got != want {
		t.Errorf("message without the optional arguments\n got %q\nwant %q", got, want)
	}
}
