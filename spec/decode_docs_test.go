package spec

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// docKeys are the keys yaml.v3 decodes into a typed document: a field's
// tag, or its name in lower case.
func docKeys(doc any) []string {
	t := reflect.TypeOf(doc)
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		keys = append(keys, cmp.Or(key, strings.ToLower(f.Name)))
	}
	slices.Sort(keys)
	return keys
}

// Every key the schema allows in an object has a field in the typed
// document the decoder reads it into, under the same name, and no other:
// the two cannot drift. The exceptions are listed: keys read from the
// mapping itself, and keys of a document shared by two objects.
func TestDocsMatchSchema(t *testing.T) {
	for _, tc := range []struct {
		ptr        string // in the schema
		doc        any
		notDecoded []string // read from the mapping itself
		shared     []string // the other object's keys, of a shared document
	}{
		{"#", fileDoc{}, nil, nil},
		{"#/$defs/validator", validatorDoc{}, nil, nil},
		{"#/$defs/workflow", workflowDoc{}, nil, nil},
		{"#/$defs/workflow/properties/task", taskDoc{}, nil, nil},
		{"#/$defs/continuation", continuationDoc{}, nil, nil},
		{"#/$defs/approval", approvalDoc{}, nil, nil},
		{"#/$defs/approval/properties/escalate", escalateDoc{}, nil, nil},
		{"#/$defs/lint", lintDoc{}, nil, nil},
		{"#/$defs/field", fieldDoc{}, []string{"default", "example"}, nil},
		{"#/$defs/state", stateDoc{}, nil, nil},
		{"#/$defs/gate", gateDoc{}, nil, nil},
		{"#/$defs/idempotency", idempotencyDoc{}, nil, nil},
		{"#/$defs/promptMessage", promptMessageDoc{}, []string{"audio", "image", "resource", "resourceLink"}, nil},
		{"#/$defs/range", rangeDoc{}, nil, nil},
		{"#/$defs/askAgain", askAgainDoc{}, nil, nil},
		{"#/$defs/inputRequest", requestDoc{}, nil, nil},
		{"#/$defs/inputRequest/properties/elicit", elicitDoc{}, nil, []string{"url"}},
		{"#/$defs/inputRequest/properties/elicitUrl", elicitDoc{}, nil, []string{"fields"}},
		{"#/$defs/inputRequest/properties/sample", sampleDoc{}, nil, nil},
		{"#/$defs/inputRequest/properties/roots", rootsDoc{}, nil, nil},
	} {
		var node any = schemaDoc()
		for _, tok := range strings.Split(strings.TrimPrefix(strings.TrimPrefix(tc.ptr, "#"), "/"), "/") {
			if tok != "" {
				node = node.(map[string]any)[tok]
			}
		}
		props, _ := node.(map[string]any)["properties"].(map[string]any)
		want := slices.Clone(tc.shared)
		for k := range props {
			if !slices.Contains(tc.notDecoded, k) {
				want = append(want, k)
			}
		}
		slices.Sort(want)
		if got := docKeys(tc.doc); !slices.Equal(got, want) {
			t.Errorf("%s: %T decodes %v, the schema allows %v", tc.ptr, tc.doc, got, want)
		}
	}
}
