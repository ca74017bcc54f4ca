package mrtrtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// How the matrix and the Driver report a round that did not go as wanted:
// where (the scenario, and the part of it), which round, what was wanted
// and what the handler did, in words ("the handler's Authorize refused
// "bob" (...)"), never a struct dump; and, when the fixtures are the likely
// cause, what to change in them.

// tb is what the matrix needs of a test: testing.TB and named subtests.
// RunMatrix passes a *testing.T; this package's own tests pass a recorder,
// to check the messages a broken handler gets.
type tb interface {
	testing.TB
	sub(name string, f func(tb))
}

// testT adapts a *testing.T to tb.
type testT struct{ *testing.T }

func (t testT) sub(name string, f func(tb)) {
	t.Run(name, func(t *testing.T) { f(testT{t}) })
}

// roundError is a round that did not go as a scenario needs.
type roundError struct {
	round     int
	want, did string
	// hint says what to change in the fixtures, when they are the likely
	// cause.
	hint string
	// limit marks a workflow stopped at the round limit (roundLimit).
	limit bool
	// refused are the questions asked again because validation refused
	// the fixtures' answers to them (refusedAnswers), when that is what
	// went wrong.
	refused mcp.InputRequestMap
}

// roundLimit is the error of a workflow stopped after limit rounds whose
// last round (last, or its error) still asked: it shows the questions of
// that round, and whether the round before asked the same.
func roundLimit(limit int, last, before *mrtr.Reply, lastErr error, principal, how string) *roundError {
	askedBefore := ""
	if before != nil && last != nil && before.NeedsInput() && last.NeedsInput() &&
		slices.Equal(keys(before.InputRequests), keys(last.InputRequests)) {
		askedBefore = fmt.Sprintf(", as round %d did", limit-1)
	}
	return &roundError{round: limit, limit: true,
		want: fmt.Sprintf("the workflow to end within %d rounds%s (the limit of mrtrtest.WithMaxRounds, or Harness.MaxRounds)", limit, how),
		did:  did(last, lastErr, principal) + askedBefore,
		hint: "The handler keeps asking: the answers sent never end its loop (see which answer or check outcome should leave it, and what Fixtures.Answers sends); " +
			"for a workflow that really needs more rounds, raise the limit with mrtrtest.WithMaxRounds"}
}

func (e *roundError) Error() string {
	msg := fmt.Sprintf("round %d: want %s; %s", e.round, e.want, e.did)
	if e.hint != "" {
		msg += ". " + e.hint
	}
	return msg
}

// did says what a round did: how it ended, what it asks, or how the call
// failed. principal is who sent it.
func did(reply *mrtr.Reply, err error, principal string) string {
	switch {
	case err != nil:
		return callFailed(err)
	case reply == nil:
		return "the call returned neither a reply nor an error"
	case reply.NeedsInput():
		return "it asked for " + questions(reply.InputRequests)
	}
	f, at := reply.Final, ""
	if n := len(reply.Path); n > 0 {
		at = " at state " + reply.Path[n-1]
	}
	switch f.Outcome {
	case mrtr.OutcomeUnauthorized:
		return fmt.Sprintf("the handler's Authorize refused %s (%q)", caller(principal), f.Text)
	case mrtr.OutcomeRejected:
		return fmt.Sprintf("it was refused%s (mrtr.Reject: %q)", at, f.Text)
	case mrtr.OutcomeError:
		return fmt.Sprintf("it ended with a dependency failure%s (%q)", at, f.Text)
	case mrtr.OutcomeInvalidArguments:
		return fmt.Sprintf("the arguments were refused (%q)", f.Text)
	}
	if f.Text == "" && len(f.Messages) > 0 {
		return fmt.Sprintf("it ended %s%s with %d prompt messages", f.Outcome, at, len(f.Messages))
	}
	return fmt.Sprintf("it ended %s%s (%q)", f.Outcome, at, f.Text)
}

// callFailed says how a call failed.
func callFailed(err error) string {
	switch {
	case IsInvalidState(err):
		return "the requestState was refused with the restart error"
	case errors.Is(err, context.Canceled):
		return "the call returned context.Canceled"
	}
	return "the call failed: " + err.Error()
}

func caller(principal string) string {
	if principal == "" {
		return "the anonymous caller"
	}
	return fmt.Sprintf("%q", principal)
}

// questions lists the requests of a round, each with its message.
func questions(m mcp.InputRequestMap) string {
	var out []string
	for _, key := range keys(m) {
		if msg := messageOf(m[key]); msg != "" {
			out = append(out, fmt.Sprintf("%q (%q)", key, msg))
		} else {
			out = append(out, fmt.Sprintf("%q", key))
		}
	}
	return strings.Join(out, " and ")
}

// messageOf is the text a request shows the user: a form's message, a
// sampling request's first text; "" for a roots request.
func messageOf(r mcp.InputRequest) string {
	switch q := r.(type) {
	case *mcp.ElicitParams:
		return q.Message
	//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; the test kit answers as a client does
	case *mcp.CreateMessageParams:
		for _, m := range q.Messages {
			if tc, ok := m.Content.(*mcp.TextContent); ok {
				return tc.Text
			}
		}
	}
	return ""
}

// responseText says what an answer sends: a form's action and content, a
// sampled text, a list of roots.
func responseText(r mcp.InputResponse) string {
	switch a := r.(type) {
	case *mcp.ElicitResult:
		if a.Action != "accept" {
			return a.Action
		}
		b, _ := json.Marshal(a.Content)
		return "accept " + string(b)
	//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; the test kit answers as a client does
	case *mcp.CreateMessageWithToolsResult:
		for _, c := range a.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				return fmt.Sprintf("the sampled text %q", tc.Text)
			}
		}
	//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; the test kit answers as a client does
	case *mcp.ListRootsResult:
		var uris []string
		for _, root := range a.Roots {
			uris = append(uris, root.URI)
		}
		return fmt.Sprintf("the roots %v", uris)
	}
	return fmt.Sprintf("a %T", r)
}

// replyDiff says how two replies of the same round differ ("" when they
// do not), field by field.
func replyDiff(a, b *mrtr.Reply) string {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	if bytes.Equal(x, y) {
		return ""
	}
	switch {
	case a.NeedsInput() != b.NeedsInput():
		return fmt.Sprintf("one %s, the other %s", did(a, nil, ""), did(b, nil, ""))
	case !a.NeedsInput() && a.Final.Outcome != b.Final.Outcome:
		return fmt.Sprintf("outcome %s, then %s", a.Final.Outcome, b.Final.Outcome)
	case !a.NeedsInput() && a.Final.Text != b.Final.Text:
		return fmt.Sprintf("text %q, then %q", a.Final.Text, b.Final.Text)
	case !a.NeedsInput() && !bytes.Equal(a.Final.Structured, b.Final.Structured):
		return fmt.Sprintf("the same outcome and text, the structured result %s, then %s", orNone(a.Final.Structured), orNone(b.Final.Structured))
	case !a.NeedsInput():
		return "the same outcome and text, other prompt messages"
	case strings.Join(keys(a.InputRequests), ",") != strings.Join(keys(b.InputRequests), ","):
		return fmt.Sprintf("questions %v, then %v", keys(a.InputRequests), keys(b.InputRequests))
	case a.RequestState != b.RequestState:
		return "the same questions, another requestState"
	}
	return fmt.Sprintf("the questions differ: %s, then %s", questions(a.InputRequests), questions(b.InputRequests))
}

// jsonText is v as compact JSON, for messages.
func jsonText(v any) string {
	b, err := marshalArgs(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// orNone is a structured result for messages.
func orNone(b []byte) string {
	if b == nil {
		return "(none)"
	}
	return string(b)
}
