package mrtrimpl

import (
	"errors"
	"testing"
)

func TestStructuredOutput(t *testing.T) {
	type out struct {
		ID   string `json:"id,omitzero"`
		Done *bool  `json:"done,omitzero"`
	}
	b, err := X.StructuredOutput("found", "FoundOutput", nil, &out{ID: "a"})
	if err != nil || string(b) != `{"id":"a"}` {
		t.Fatalf("StructuredOutput = %s, %v", b, err)
	}
	_, err = X.StructuredOutput("found", "FoundOutput", Problems{X.OutputNotSet("done", "Done")}, &out{ID: "a"})
	var oe *outputError
	if !errors.Is(err, errOutput) || !errors.As(err, &oe) || oe.State != "found" {
		t.Fatalf("error %v", err)
	}
	const want = "state found: the output FoundOutput filled breaks the spec: output field done is required but not set (set out.Done)"
	if err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
}
