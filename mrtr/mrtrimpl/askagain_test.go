package mrtrimpl

import (
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/failure"
	"github.com/mrtrgen/mrtrgen/vocab"
)

func TestAskingAgain(t *testing.T) {
	err := fmt.Errorf("check: %w", &failure.AskAgainError{Message: "pick another"})
	if why, ok := X.AskingAgain(err); !ok || why != "pick another" {
		t.Fatalf("X.AskingAgain(%v) = %q, %v", err, why, ok)
	}
	if _, ok := X.AskingAgain(errors.New("down")); ok {
		t.Fatal("a dependency failure asks again")
	}
}

// explained adds why to the question a request shows, and leaves the
// request it was given alone (Questions renders the same builders).
func TestExplained(t *testing.T) {
	form := &mcp.ElicitParams{Message: "Which ticket?", Mode: "form"}
	p := explained(Pending{Key: "ticket", Kind: vocab.Elicit, Params: form}, "CHG-1 is not approved; pick another")
	if got := p.Params.(*mcp.ElicitParams).Message; got != "Which ticket?\n\nCHG-1 is not approved; pick another" {
		t.Fatalf("form message %q", got)
	}
	if form.Message != "Which ticket?" {
		t.Fatalf("the original request was changed: %q", form.Message)
	}
	//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; its prompt says why it is asked again
	sample := &mcp.CreateMessageParams{Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarise."}}}}
	p = explained(Pending{Key: "s", Kind: vocab.Sample, Params: sample}, "too long")
	//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window
	if got := p.Params.(*mcp.CreateMessageParams).Messages[0].Content.(*mcp.TextContent).Text; got != "Summarise.\n\ntoo long" {
		t.Fatalf("prompt %q", got)
	}
	if got := sample.Messages[0].Content.(*mcp.TextContent).Text; got != "Summarise." {
		t.Fatalf("the original prompt was changed: %q", got)
	}
	roots := Pending{Key: "r", Kind: vocab.Roots, Params: &mcp.ListRootsParams{}} //lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window
	if got := explained(roots, "why"); got.Params != roots.Params {
		t.Fatal("a roots request changed")
	}
	if got := explained(Pending{Params: form}, ""); got.Params != form {
		t.Fatal("no reason changed the request")
	}
}
