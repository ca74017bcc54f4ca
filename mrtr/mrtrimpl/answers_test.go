package mrtrimpl

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/handlertypes"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// fakeRound answers its one request (info) with resp; the client can
// answer it when canKind.
type fakeRound struct {
	info    RequestInfo
	resp    response
	canKind bool
}

func (f *fakeRound) Request(key string) *RequestInfo {
	if key != f.info.Key {
		return nil
	}
	return &f.info
}

func (f *fakeRound) Response(string, vocab.RequestKind) response { return f.resp }
func (f *fakeRound) Can(vocab.RequestKind) bool                  { return f.canKind }
func (f *fakeRound) Goto(uint16, vocab.Edge) (Step, error)       { return Step{}, nil }
func (f *fakeRound) Ask([]Pending) (Step, error)                 { return Step{}, nil }
func (f *fakeRound) Finish(final) (Step, error)                  { return Step{}, nil }
func (f *fakeRound) Effect(context.Context, string, time.Duration, uint16, func(context.Context) error) (Step, error) {
	return Step{}, nil
}

type note struct{ Text string }

func TestTake(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"pin":{"type":"string"}}}`)
	request := func(problems Problems) Pending {
		return Pending{Key: "note", Kind: vocab.Elicit, Params: &mcp.ElicitParams{Message: X.WithProblems("Note?", problems), RequestedSchema: schema}}
	}
	decode := func(_ context.Context, m map[string]any) (*note, Problems, error) {
		switch v, st := X.FormString(m, "text"); {
		case st != Present:
			return nil, Problems{"text: required"}, nil
		case v == "backend":
			return nil, nil, errors.New("validator backend down")
		default:
			return &note{Text: v}, nil, nil
		}
	}
	answered := func(m map[string]any) response { return response{Status: accepted, Content: m} }
	cases := []struct {
		name      string
		resp      response
		optional  bool
		can       bool
		want      *note
		left      vocab.Edge
		err       bool
		asked     int
		asksAgain string // a text the re-asked message holds
	}{
		{name: "valid answer", resp: answered(map[string]any{"text": "hi"}), can: true, want: &note{"hi"}},
		{name: "no answer yet", resp: response{Status: missing}, can: true, asked: 1},
		{name: "invalid answer asks again saying why", resp: answered(map[string]any{"pin": "1234"}), can: true, asked: 1, asksAgain: "Please correct: text: required."},
		{name: "validator down", resp: answered(map[string]any{"text": "backend"}), can: true, err: true},
		{name: "declined", resp: response{Status: declined}, can: true, left: vocab.Decline},
		{name: "cancelled", resp: response{Status: cancelled}, can: true, left: vocab.Cancel},
		{name: "malformed", resp: response{Status: malformed, Problem: "content: not an object"}, can: true, asked: 1, asksAgain: "content: not an object"},
		{name: "optional and the client cannot answer", resp: response{Status: missing}, optional: true},
		{name: "optional and the client can answer", resp: response{Status: missing}, optional: true, can: true, asked: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var pending []Pending
			info := RequestInfo{Key: "note", Kind: vocab.Elicit, Optional: c.optional, Sensitive: []string{"pin"}}
			got, left, err := Take(context.Background(), &fakeRound{info: info, resp: c.resp, canKind: c.can}, "note", request, Form(decode), &pending)
			if (err != nil) != c.err {
				t.Fatalf("err = %v, want error %v", err, c.err)
			}
			if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
				t.Errorf("answer = %v, want %v", got, c.want)
			}
			if left != c.left {
				t.Errorf("left = %q, want %q", left, c.left)
			}
			if len(pending) != c.asked {
				t.Fatalf("asked %d requests, want %d", len(pending), c.asked)
			}
			if c.asksAgain != "" {
				ep := pending[0].Params.(*mcp.ElicitParams)
				if !strings.Contains(ep.Message, c.asksAgain) {
					t.Errorf("asked again with %q, want it to say %q", ep.Message, c.asksAgain)
				}
				if schemaHolds(t, ep.RequestedSchema, "1234") {
					t.Errorf("a sensitive field came back as a default: %s", ep.RequestedSchema)
				}
			}
		})
	}
}

// A sampled answer cannot be declined: the request is asked again.
func TestTakeTextIsNotLeft(t *testing.T) {
	var pending []Pending
	request := func(Problems) Pending { return Pending{Key: "summary", Kind: vocab.Sample} }
	decode := func(_ context.Context, text string) (*handlertypes.Sampled, Problems, error) {
		return &handlertypes.Sampled{Text: text}, nil, nil
	}
	round := &fakeRound{info: RequestInfo{Key: "summary", Kind: vocab.Sample}, resp: response{Status: declined}, canKind: true}
	got, left, err := Take(context.Background(), round, "summary", request, Text(decode), &pending)
	if got != nil || left != "" || err != nil || len(pending) != 1 {
		t.Fatalf("got %v, %q, %v, %d pending; want the request asked again", got, left, err, len(pending))
	}
}

func schemaHolds(t *testing.T, schema any, text string) bool {
	t.Helper()
	b, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(b), text)
}

// A key the descriptor does not have is a bug of the generated code, not an
// answer to wait for.
func TestTakeUnknownKey(t *testing.T) {
	var pending []Pending
	request := func(Problems) Pending { return Pending{} }
	decode := func(context.Context, map[string]any) (*note, Problems, error) { return nil, nil, nil }
	_, _, err := Take(context.Background(), &fakeRound{info: RequestInfo{Key: "note"}}, "other", request, Form(decode), &pending)
	if !errors.Is(err, ErrUnknownState) || len(pending) != 0 {
		t.Fatalf("err = %v, %d pending; want ErrUnknownState and nothing asked", err, len(pending))
	}
}

func TestConfirm(t *testing.T) {
	request := func(problems Problems) Pending {
		return Pending{Key: "go", Kind: vocab.Elicit, Params: &mcp.ElicitParams{Message: X.WithProblems("Deploy?", problems)}}
	}
	cases := []struct {
		name string
		resp response
		on   vocab.Edge
		says string // what the gate asked again says; "" when it is not asked
	}{
		{"yes", response{Status: accepted, Content: map[string]any{"confirm": true}}, vocab.Next, ""},
		{"no", response{Status: accepted, Content: map[string]any{"confirm": false}}, vocab.Decline, ""},
		{"declined", response{Status: declined}, vocab.Decline, ""},
		{"cancelled", response{Status: cancelled}, vocab.Cancel, ""},
		{"a form without the boolean", response{Status: accepted, Content: map[string]any{"confirm": "yes"}}, "", "confirm: answer true or false"},
		{"malformed", response{Status: malformed, Problem: "expected an elicitation result"}, "", "expected an elicitation result"},
		{"not answered yet", response{Status: missing}, "", "Deploy?"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			on, ask := X.Confirm(&fakeRound{info: RequestInfo{Key: "go", GateField: "confirm"}, resp: c.resp}, "go", "confirm", request)
			if on != c.on {
				t.Errorf("on = %q, want %q", on, c.on)
			}
			switch msg := ""; {
			case c.says == "" && ask.Key != "":
				t.Errorf("asked again (%v) after an answer that decides", ask)
			case c.says != "":
				if ask.Params != nil {
					msg = ask.Params.(*mcp.ElicitParams).Message
				}
				if !strings.Contains(msg, c.says) {
					t.Errorf("asked %q, want it to say %q", msg, c.says)
				}
			}
		})
	}
}
