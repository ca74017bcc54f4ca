package mrtrimpl

import (
	"encoding/json"
	"strings"

	"github.com/mrtrgen/mrtrgen/mrtr/problem"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// typedSame reports whether typed, the text a user typed to confirm, is
// want: equal byte for byte once spaces, tabs and line breaks around it are
// removed (strings.TrimSpace: a paste often brings a newline), with case,
// inner spaces and Unicode forms as they are. An empty want matches
// nothing: a confirmation of nothing cannot be given.
func typedSame(typed, want string) bool {
	return want != "" && strings.TrimSpace(typed) == want
}

// ConfirmTyped reads this round's answer to typed confirmation gate key,
// whose form has the one string field: vocab.Next when the user typed want
// (typedSame), vocab.Decline when they declined or typed something else
// for the max-th time, vocab.Cancel when they cancelled. A text that is not
// want counts one more in mismatches (carried in the continuation) and asks
// again saying so; a form without its text asks again without counting.
func (Export) ConfirmTyped(r Round, key, field, want string, mismatches *uint8, maxAttempts int, request func(Problems) Pending) (vocab.Edge, Pending) {
	return gateAnswer(r, key, request, func(content map[string]any) (vocab.Edge, Pending) {
		typed, found := X.FormString(content, field)
		switch {
		case found != Present:
			return "", request(Problems{problem.NotTyped(field, want)})
		case typedSame(typed, want):
			return vocab.Next, Pending{}
		}
		if *mismatches < 255 {
			*mismatches++
		}
		if int(*mismatches) >= maxAttempts {
			return vocab.Decline, Pending{}
		}
		return "", request(Problems{problem.TypedMismatch(field, want, maxAttempts-int(*mismatches))})
	})
}

// typedPrefix and typedSuffix frame what a typed confirmation asks for in
// the title of its field: Type “release-42” to confirm.
const (
	typedPrefix = "Type \u201c"
	typedSuffix = "\u201d to confirm"
)

// TypedSchema is the form of a typed confirmation: one required string
// field, titled with the text to type. (The text is the message's too; it
// is no secret, and the title lets a client show it by the input.)
func (Export) TypedSchema(field, want string) json.RawMessage {
	schema := map[string]any{
		"type":     "object",
		"required": []string{field},
		"properties": map[string]any{field: map[string]any{
			"type":  "string",
			"title": typedPrefix + want + typedSuffix,
		}},
	}
	b, err := json.Marshal(schema)
	if err != nil {
		panic(err) // strings only
	}
	return b
}

// TypedWant is the text a typed confirmation's form asks for (its field's
// title, TypedSchema), for test harnesses answering it; ok is false for any
// other schema.
func (Export) TypedWant(schema any, field string) (string, bool) {
	var raw []byte
	switch s := schema.(type) {
	case json.RawMessage:
		raw = s
	default:
		b, err := json.Marshal(s)
		if err != nil {
			return "", false
		}
		raw = b
	}
	var parsed struct {
		Properties map[string]struct {
			Type  string `json:"type"`
			Title string `json:"title"`
		} `json:"properties"`
	}
	if json.Unmarshal(raw, &parsed) != nil {
		return "", false
	}
	p, ok := parsed.Properties[field]
	if !ok || p.Type != "string" || !strings.HasPrefix(p.Title, typedPrefix) || !strings.HasSuffix(p.Title, typedSuffix) || len(p.Title) < len(typedPrefix)+len(typedSuffix) {
		return "", false
	}
	return p.Title[len(typedPrefix) : len(p.Title)-len(typedSuffix)], true
}
