package mrtr

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// Resource-not-found has the code of the request's revision, with the
// URI in data; an unknown revision gets the current one, as go-sdk does.
func TestResourceNotFoundByRevision(t *testing.T) {
	for _, c := range []struct {
		version string
		code    int64
	}{{"2026-07-28", -32602}, {"", -32602}, {"2025-11-25", -32002}, {"2025-06-18", -32002}, {"2024-11-05", -32002}} {
		var je *jsonrpc.Error
		if err := resourceNotFound("a://b c", c.version, ""); !errors.As(err, &je) || je.Code != c.code ||
			je.Message != "Resource not found" || string(je.Data) != `{"uri":"a://b c"}` {
			t.Errorf("%q: %v (data %s), want code %d", c.version, err, je.Data, c.code)
		}
	}
}

// A round record keeps a final's notFound: the replay of a read that
// ended at a notFound terminal is not found again, not -32000.
func TestFinalNotFoundSurvivesTheRecord(t *testing.T) {
	b, err := json.Marshal(Final{Outcome: vocab.OutcomeFailed, Text: "gone", NotFound: true})
	if err != nil {
		t.Fatal(err)
	}
	var back Final
	if err := json.Unmarshal(b, &back); err != nil || !back.NotFound {
		t.Fatalf("%s read back as %+v, %v", b, back, err)
	}
}
