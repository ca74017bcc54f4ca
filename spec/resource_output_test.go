package spec

import (
	"os"
	"strings"
	"testing"
)

// TestResourceOutputIsRefused: output is a tool's structured result; on a
// resource state it would make a handler method nothing ever sends.
func TestResourceOutputIsRefused(t *testing.T) {
	b, err := os.ReadFile("../examples/specs/status.mrtr.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(b), "        terminal: success\n        contents:\n", "        terminal: success\n        output:\n          build: {type: string, maxLength: 20}\n        contents:\n", 1)
	if src == string(b) {
		t.Fatal("the status spec changed: no success state with contents to add output to")
	}
	f, ds := Parse("status.mrtr.yaml", []byte(src), Options{})
	if f != nil || !strings.Contains(ds.Error(), "output is for tools") {
		t.Fatalf("resource output accepted: %v", ds)
	}
}
