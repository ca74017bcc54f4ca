package mrtr

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// regionsByCaller completes from the regions each caller may see, as a
// completion method with `complete: {from: ...}` would.
type regionsByCaller struct{ calls int }

func (c *regionsByCaller) Complete(ctx context.Context, _, value string, _ map[string]string) ([]string, error) {
	c.calls++
	who, ok := PrincipalFromContext(ctx)
	if !ok {
		return nil, errors.New("no principal in the completion's context")
	}
	visible := map[string][]string{"alice": {"emea", "east"}, "bob": {"west"}}[who]
	var out []string
	for _, r := range visible {
		if len(r) >= len(value) && r[:len(value)] == value {
			out = append(out, r)
		}
	}
	return out, nil
}

// completion/complete authenticates its caller before any completion
// method runs, and the method sees who asks: alice and bob are never
// offered each other's regions, an anonymous caller is offered nothing, and
// a caller whose authentication fails gets -32602 without the method
// running.
func TestCompletionsAuthenticateTheirCaller(t *testing.T) {
	ring, err := seal.NewRing(seal.Key{ID: 1, Secret: make([]byte, 32)})
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(Config{
		Audience: "a", Codec: seal.New(ring, seal.Options{}),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Authenticate: func(_ context.Context, extra *mcp.RequestExtra) (string, error) {
			switch who := extra.Header.Get("X-User"); who {
			case "mallory":
				return "", errors.New("bad credentials")
			default:
				return who, nil
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	c := &regionsByCaller{}
	e.addCompleter(vocab.KindPrompt, "report", c)
	complete := func(who, value string) ([]string, error) {
		req := &mcp.CompleteRequest{
			Params: &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "report"},
				Argument: mcp.CompleteParamsArgument{Name: "region", Value: value}},
			Extra: &mcp.RequestExtra{Header: http.Header{"X-User": {who}}},
		}
		res, err := e.Complete(context.Background(), req)
		if err != nil {
			return nil, err
		}
		return res.Completion.Values, nil
	}
	for _, tc := range []struct {
		who, value string
		want       []string
	}{
		{"alice", "", []string{"emea", "east"}},
		{"alice", "w", []string{}},
		{"bob", "", []string{"west"}},
		{"bob", "e", []string{}},
		{"", "", []string{}},
	} {
		got, err := complete(tc.who, tc.value)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q completing %q: %v %v, want %v", tc.who, tc.value, got, err, tc.want)
		}
	}
	calls := c.calls
	_, err = complete("mallory", "")
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != codeInvalidParams || je.Message != "not authenticated" {
		t.Errorf("a caller whose authentication fails: %v, want -32602 not authenticated", err)
	}
	if c.calls != calls {
		t.Error("the completion method ran for a caller whose authentication failed")
	}
	if _, ok := PrincipalFromContext(context.Background()); ok {
		t.Error("PrincipalFromContext outside a completion reported a principal")
	}
}
