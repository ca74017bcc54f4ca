package mrtrimpl

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/vocab"
)

func TestTypedSame(t *testing.T) {
	for _, tc := range []struct {
		typed, want string
		same        bool
	}{
		{"rel-42", "rel-42", true},
		{" rel-42\n", "rel-42", true},
		{"\trel-42 \r\n", "rel-42", true},
		{"REL-42", "rel-42", false},
		{"rel -42", "rel-42", false},
		{"rel-4", "rel-42", false},
		{"rel-42x", "rel-42", false},
		{"", "", false},
		{" ", "", false},
		{"e\u0301", "\u00e9", false}, // no Unicode normalisation
		{"rel\u00a0-42", "rel -42", false},
	} {
		if got := typedSame(tc.typed, tc.want); got != tc.same {
			t.Errorf("typedSame(%q, %q) = %v", tc.typed, tc.want, got)
		}
	}
}

func TestConfirmTyped(t *testing.T) {
	const want = "rel-42"
	request := func(problems Problems) Pending {
		return Pending{Key: "confirm", Kind: vocab.Elicit, Params: &mcp.ElicitParams{Message: X.WithProblems("Type rel-42 to deploy.", problems), RequestedSchema: X.TypedSchema("confirm", want)}}
	}
	answered := func(v any) response { return response{Status: accepted, Content: map[string]any{"confirm": v}} }
	round := func(resp response) Round {
		return &fakeRound{info: RequestInfo{Key: "confirm", Kind: vocab.Elicit}, resp: resp}
	}
	for _, tc := range []struct {
		name       string
		resp       response
		before     uint8
		on         vocab.Edge
		after      uint8
		explain    string // in the question asked again
		noQuestion bool
	}{
		{name: "match", resp: answered("rel-42"), on: vocab.Next, noQuestion: true},
		{name: "match with a trailing newline", resp: answered("rel-42\n"), before: 2, on: vocab.Next, after: 2, noQuestion: true},
		{name: "first mismatch", resp: answered("rel-24"), after: 1, explain: "confirm: that is not “rel-42”; type it exactly as shown (2 attempts left)"},
		{name: "second mismatch", resp: answered("REL-42"), before: 1, after: 2, explain: "(1 attempt left)"},
		{name: "last mismatch", resp: answered("rel"), before: 2, on: vocab.Decline, after: 3, noQuestion: true},
		{name: "a boolean instead", resp: answered(true), before: 1, after: 1, explain: "confirm: type “rel-42” to confirm"},
		{name: "no field", resp: response{Status: accepted, Content: map[string]any{}}, explain: "type “rel-42”"},
		{name: "decline", resp: response{Status: declined}, on: vocab.Decline, noQuestion: true},
		{name: "cancel", resp: response{Status: cancelled}, before: 1, on: vocab.Cancel, after: 1, noQuestion: true},
		{name: "malformed", resp: response{Status: malformed, Problem: "expected an elicitation result"}, explain: "expected an elicitation result"},
		{name: "not answered", resp: response{}, explain: "Type rel-42 to deploy."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.before
			on, ask := X.ConfirmTyped(round(tc.resp), "confirm", "confirm", want, &n, 3, request)
			if on != tc.on || n != tc.after {
				t.Fatalf("got %q with %d mismatches, want %q with %d", on, n, tc.on, tc.after)
			}
			if tc.noQuestion {
				if ask.Params != nil {
					t.Fatalf("asked again: %v", ask.Params)
				}
				return
			}
			p, ok := ask.Params.(*mcp.ElicitParams)
			if !ok || !strings.Contains(p.Message, tc.explain) {
				t.Fatalf("asked %#v, want it to say %q", ask.Params, tc.explain)
			}
			if got, ok := X.TypedWant(p.RequestedSchema, "confirm"); !ok || got != want {
				t.Fatalf("TypedWant = %q, %v", got, ok)
			}
		})
	}
	// An empty text to type (a value that was not set) is never confirmed:
	// every answer is a mismatch, and the last refuses.
	n := uint8(0)
	for i := range 3 {
		on, _ := X.ConfirmTyped(round(answered("")), "confirm", "confirm", "", &n, 3, request)
		if (i < 2 && on != "") || (i == 2 && on != vocab.Decline) {
			t.Fatalf("answer %d with nothing to type: %q", i+1, on)
		}
	}
}

func TestTypedWant(t *testing.T) {
	for _, want := range []string{"rel-42", "a “quoted” id", "\u201d to confirm", "x"} {
		got, ok := X.TypedWant(X.TypedSchema("typed", want), "typed")
		if !ok || got != want {
			t.Errorf("X.TypedWant(X.TypedSchema(%q)) = %q, %v", want, got, ok)
		}
	}
	for _, s := range []any{
		map[string]any{"properties": map[string]any{"typed": map[string]any{"type": "boolean", "title": "Confirm"}}},
		map[string]any{"properties": map[string]any{"other": map[string]any{"type": "string", "title": typedPrefix + "x" + typedSuffix}}},
		"not a schema", make(chan int),
	} {
		if got, ok := X.TypedWant(s, "typed"); ok {
			t.Errorf("X.TypedWant(%v) = %q, want nothing", s, got)
		}
	}
}
