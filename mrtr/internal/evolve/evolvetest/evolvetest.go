// Package evolvetest drives workflows across two builds of one spec, the
// build before a deploy (../before) and the build after it (../after): a
// workflow started on one build finishes on the other when the change
// between them is compatible, and is refused with the log reason of
// docs/evolution.md when it is not. The runtime's test (in-process, one
// store) and the two-server test (two binaries, SQLite and PostgreSQL)
// play the same cases with the same driver.
package evolvetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/seal"
)

// The builds.
const (
	Before = "before"
	After  = "after"
)

// Case is one change of docs/evolution.md, shown by one tool.
type Case struct {
	// Name says what changed; Rule is the rule id of an incompatible
	// change ("" for a compatible one).
	Name, Rule string
	Tool       string
	Args       map[string]any
	// Start holds the answers of the rounds on the build that starts the
	// workflow, after its first round (each round must ask again); Start
	// on After, when set, replaces it for a workflow that starts there.
	Start, StartOnAfter []mcp.InputResponseMap
	// Finish holds the answers of the rounds on the other build: every one
	// but the last must ask again, the last must end the workflow.
	Finish []mcp.InputResponseMap
	// Asks, when set, holds the keys each round of Finish but the last
	// must ask (by default the question it answered, asked again).
	Asks [][]string
	// Says, when set, is what the message of a question asked again on the
	// other build must contain: the problem the answer had there.
	Says string
	// Reason is the log reason with which the other build refuses the
	// workflow's first round there ("" when it continues it).
	Reason string
	// Want is the result text by the build that finishes.
	Want map[string]string
	// onlyFrom, when set, is the one build the case can start on: the
	// value that strands the workflow exists only there (the build after
	// has no enum value high, and refuses a long note up front).
	onlyFrom string
}

func form(content map[string]any) mcp.InputResponse {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

// answer is one elicitation answer: request key, then field and value.
func answer(key, field string, value any) mcp.InputResponseMap {
	return mcp.InputResponseMap{key: form(map[string]any{field: value})}
}

func rounds(answers ...mcp.InputResponseMap) []mcp.InputResponseMap { return answers }

func both(s string) map[string]string { return map[string]string{Before: s, After: s} }

// The answers of the two asks most tools share.
var (
	first  = answer("first", "text", "one")
	second = answer("second", "text", "two")
)

// reason answers the closing reason of the pending_enum tools.
func reason(value string) mcp.InputResponseMap { return answer("reason", "closeReason", value) }

// Cases are the changes, compatible ones first.
var Cases = []Case{
	{Name: "enum values appended, inserted and reordered", Tool: "enum_values", Args: map[string]any{"id": "r1"},
		Start: rounds(answer("size", "pick", "m")), Finish: rounds(answer("note", "text", "hi")),
		Want: both("Tier silver, size m, note hi.")},
	{Name: "states added before and between the asks", Tool: "states_added", Args: map[string]any{"id": "r1"},
		Start: rounds(first), StartOnAfter: rounds(first, answer("extra", "text", "more")), Finish: rounds(second),
		Want: both("Answers one and two.")},
	{Name: "an optional continuation field and an optional form field added", Tool: "optional_fields", Args: map[string]any{"id": "r1"},
		Start:        rounds(answer("name", "given", "Ada")),
		StartOnAfter: rounds(mcp.InputResponseMap{"name": form(map[string]any{"given": "Ada", "nickname": "A"})}),
		Finish:       rounds(answer("note", "text", "hi")), Want: both("Count 7, name Ada, note hi.")},
	{Name: "a continuation field removed", Tool: "field_removed", Args: map[string]any{"id": "r1"},
		Start: rounds(first), Finish: rounds(second), Want: both("Kept kept, answers one and two.")},
	{Name: "messages, titles, descriptions and key order changed (the pending question is asked again)", Tool: "messages_changed",
		Args: map[string]any{"id": "r1"}, Start: rounds(answer("name", "given", "Ada")),
		Finish: rounds(answer("age", "years", 36), answer("age", "years", 36)),
		Want:   map[string]string{Before: "Ada is 36.", After: "Ada is 36 years old."}},
	{Name: "an optional argument added", Tool: "optional_argument", Args: map[string]any{"id": "r1"},
		Start: rounds(first), Finish: rounds(second), Want: both("Answers one and two for r1.")},
	{Name: "an enum value removed that the workflow does not hold", Tool: "enum_removed", Args: map[string]any{"want": "low"},
		Start: rounds(first), Finish: rounds(second), Want: both("Level low.")},
	{Name: "a constraint narrowed that the carried value still meets", Tool: "constraint_narrowed", Args: map[string]any{"id": "r1"},
		Start: rounds(answer("note", "text", "ok")), Finish: rounds(second), Want: both("Note ok.")},

	// The question the workflow waits in changed: an answer valid for the
	// question as the other build asks it counts there, in both directions
	// (the user is not asked twice); one that build refuses is asked again,
	// with the problem, and never strands the workflow.
	{Name: "an enum value appended to the question the workflow waits in", Tool: "pending_enum_appended", Args: map[string]any{"id": "r1"},
		Start: rounds(first), Finish: rounds(reason("duplicate")), Want: both("Closed r1 (duplicate) after one.")},
	{Name: "the appended enum value answered to the build without it (asked again)", Tool: "pending_enum_appended", Args: map[string]any{"id": "r1"},
		Start: rounds(first), Finish: rounds(reason("wontfix"), reason("duplicate")),
		Says: "closeReason: must be one of resolved, duplicate, cancelled.", Want: both("Closed r1 (duplicate) after one."), onlyFrom: After},
	{Name: "an enum value removed from the question the workflow waits in, an answer both allow", Tool: "pending_enum_narrowed", Args: map[string]any{"id": "r1"},
		Start: rounds(first), Finish: rounds(reason("duplicate")), Want: both("Closed r1 (duplicate) after one.")},
	{Name: "an enum value removed from the question the workflow waits in, the answer holding it (asked again)", Tool: "pending_enum_narrowed", Args: map[string]any{"id": "r1"},
		Start: rounds(first), Finish: rounds(reason("cancelled"), reason("duplicate")),
		Says: "closeReason: must be one of resolved, duplicate.", Want: both("Closed r1 (duplicate) after one."), onlyFrom: Before},
	{Name: "an answer to a question the workflow was never shown (not taken)", Tool: "pending_enum_appended", Args: map[string]any{"id": "r1"},
		Finish: rounds(mcp.InputResponseMap{"first": first["first"], "reason": reason("duplicate")["reason"]}, reason("resolved")),
		Asks:   [][]string{{"reason"}}, Want: both("Closed r1 (resolved) after one.")},

	{Name: "the state the workflow waits in renamed", Rule: "state-removed", Tool: "state_renamed", Args: map[string]any{"id": "r1"},
		Start: rounds(first), Finish: rounds(answer("code", "digits", "1234")), Reason: "state_removed"},
	{Name: "the state the workflow waits in made a gate", Rule: "state-kind-changed", Tool: "state_kind_changed", Args: map[string]any{"id": "r1"},
		Start: rounds(first), Finish: rounds(answer("ok", "yes", true)), Reason: "state_changed"},
	{Name: "a carried integer made a string", Rule: "carried-type-changed", Tool: "type_changed", Args: map[string]any{"id": "r1"},
		Start: rounds(first), Finish: rounds(second), Reason: "field_type_changed"},
	{Name: "an enum value removed that the workflow holds", Rule: "enum-value-removed", Tool: "enum_removed", Args: map[string]any{"want": "high"},
		Start: rounds(first), Finish: rounds(second), Reason: "enum_value_removed", onlyFrom: Before},
	{Name: "a constraint narrowed that the carried value breaks", Rule: "constraint-narrowed", Tool: "constraint_narrowed", Args: map[string]any{"id": "r1"},
		Start: rounds(answer("note", "text", "a long note")), Finish: rounds(second), Reason: "constraint_narrowed", onlyFrom: Before},
	{Name: "what a passed gate confirms changed", Rule: "gate-changed", Tool: "gate_changed", Args: map[string]any{"id": "r1"},
		Start: rounds(answer("confirm", "confirm", true)), Finish: rounds(answer("reason", "text", "old")), Reason: "gate_changed"},
	{Name: "storage switched between sealed and reference", Rule: "storage-changed", Tool: "storage_changed", Args: map[string]any{"id": "r1"},
		Start: rounds(first), Finish: rounds(second), Reason: "storage_changed"},
	{Name: "an argument retyped", Rule: "argument-changed", Tool: "argument_retyped", Args: map[string]any{"qty": 3},
		Start: rounds(first), Finish: rounds(second), Reason: "binding"},
}

func (c Case) from() []string {
	if c.onlyFrom != "" {
		return []string{c.onlyFrom}
	}
	return []string{Before, After}
}

// Build is one build as the driver sees it: a client session to it, and
// the reasons it logged for the requestStates it rejected.
type Build struct {
	Name    string
	Session *mcp.ClientSession
	// Rejections returns the reasons logged so far for rejected
	// requestStates of tool, oldest first.
	Rejections func(tool string) []string
}

// Directions returns the (start, finish) pairs c is played in.
func (c Case) Directions(before, after *Build) [][2]*Build {
	var out [][2]*Build
	for _, from := range c.from() {
		if from == Before {
			out = append(out, [2]*Build{before, after})
		} else {
			out = append(out, [2]*Build{after, before})
		}
	}
	return out
}

// Play starts c's workflow on from and finishes it on to, and says how the
// result differs from what docs/evolution.md promises.
func Play(ctx context.Context, c Case, from, to *Build) error {
	start := c.Start
	if from.Name == After && c.StartOnAfter != nil {
		start = c.StartOnAfter
	}
	res, err := call(ctx, from, c, "", nil)
	if err != nil || !res.NeedsInput() {
		return fmt.Errorf("round 1 on %s: %s", from.Name, describe(res, err))
	}
	for i, answers := range start {
		if res, err = call(ctx, from, c, res.RequestState, answers); err != nil || !res.NeedsInput() {
			return fmt.Errorf("round %d on %s: %s", i+2, from.Name, describe(res, err))
		}
	}
	before := len(to.Rejections(c.Tool))
	for i, answers := range c.Finish {
		asked := keys(res.InputRequests)
		res, err = call(ctx, to, c, res.RequestState, answers)
		if c.Reason != "" {
			return refusedWith(to, c, before, res, err)
		}
		if err != nil {
			return fmt.Errorf("round %d, on %s: %w", len(start)+2+i, to.Name, err)
		}
		if err := finishRound(c, to, i, res, answers, asked); err != nil {
			return err
		}
	}
	return nil
}

// finishRound says how round i of the finishing rounds on to differs from
// what c promises: a round before the last asks what c.Asks lists (or the
// changed question asked again, saying c.Says); the last ends with
// c.Want's result.
func finishRound(c Case, to *Build, i int, res *mcp.CallToolResult, answers mcp.InputResponseMap, asked []string) error {
	if i == len(c.Finish)-1 {
		switch {
		case res.NeedsInput():
			return fmt.Errorf("on %s: the workflow did not end: %s", to.Name, describe(res, nil))
		case res.IsError || resultText(res) != c.Want[to.Name]:
			return fmt.Errorf("on %s: %s, want %q", to.Name, describe(res, nil), c.Want[to.Name])
		}
		return nil
	}
	switch {
	case c.Asks != nil && (!res.NeedsInput() || !slices.Equal(keys(res.InputRequests), c.Asks[i])):
		return fmt.Errorf("on %s: answering %v: %s, want it to ask for %v", to.Name, keys(answers), describe(res, nil), c.Asks[i])
	case c.Asks == nil && (!res.NeedsInput() || !slices.Equal(keys(res.InputRequests), asked)):
		return fmt.Errorf("on %s: the changed question %v was not asked again: %s", to.Name, asked, describe(res, nil))
	case c.Says != "" && !strings.Contains(message(res, asked), c.Says):
		return fmt.Errorf("on %s: asked again with %q, want it to say %q", to.Name, message(res, asked), c.Says)
	}
	return nil
}

// refusedWith checks that to refused the workflow's round with c.Reason.
func refusedWith(to *Build, c Case, before int, res *mcp.CallToolResult, err error) error {
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || je.Message != seal.PublicMessage {
		return fmt.Errorf("on %s: %s, want the opaque -32602 refusal", to.Name, describe(res, err))
	}
	got := to.Rejections(c.Tool)
	if len(got) != before+1 || got[len(got)-1] != c.Reason {
		return fmt.Errorf("on %s: logged reasons %v (after %d), want %s", to.Name, got, before, c.Reason)
	}
	return nil
}

func call(ctx context.Context, b *Build, c Case, state string, answers mcp.InputResponseMap) (*mcp.CallToolResult, error) {
	return b.Session.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args, RequestState: state, InputResponses: answers})
}

func keys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// message is the text of the questions of res for keys.
func message(res *mcp.CallToolResult, keys []string) string {
	var parts []string
	for _, k := range keys {
		if ep, ok := res.InputRequests[k].(*mcp.ElicitParams); ok {
			parts = append(parts, ep.Message)
		}
	}
	return strings.Join(parts, "\n")
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func describe(res *mcp.CallToolResult, err error) string {
	switch {
	case err != nil:
		return "error: " + err.Error()
	case res == nil:
		return "no result"
	case res.NeedsInput():
		return fmt.Sprintf("asks for %v", keys(res.InputRequests))
	case res.IsError:
		return fmt.Sprintf("error result %q", resultText(res))
	}
	return fmt.Sprintf("result %q", resultText(res))
}

// Connect opens a 2026-07-28 client session to the MCP endpoint url that
// drives rounds itself and can answer elicitations.
func Connect(ctx context.Context, url string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "evolvetest", Version: "test"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		// Declares elicitation; the driver answers in inputResponses.
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("evolvetest answers input requests itself")
		},
	})
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
}

// RejectionLog is a slog handler that keeps, per tool, the reasons of the
// requestStates the engine rejected ("mrtr: requestState rejected").
type RejectionLog struct {
	mu      sync.Mutex
	reasons map[string][]string
}

// Reasons returns the reasons logged for tool so far.
func (l *RejectionLog) Reasons(tool string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reasons[tool])
}

func (l *RejectionLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *RejectionLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *RejectionLog) WithGroup(string) slog.Handler            { return l }

func (l *RejectionLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != rejected {
		return nil
	}
	var tool, reason string
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "tool":
			tool = a.Value.String()
		case "reason":
			reason = a.Value.String()
		}
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.reasons == nil {
		l.reasons = map[string][]string{}
	}
	l.reasons[tool] = append(l.reasons[tool], reason)
	return nil
}

const rejected = "mrtr: requestState rejected"

// ReasonsInJSONLog reads the reasons logged for tool's rejected
// requestStates from a JSON log (slog.JSONHandler lines).
func ReasonsInJSONLog(log []byte, tool string) []string {
	var out []string
	for _, line := range bytes.Split(log, []byte("\n")) {
		var rec struct {
			Msg, Tool, Reason string
		}
		if json.Unmarshal(line, &rec) == nil && rec.Msg == rejected && rec.Tool == tool {
			out = append(out, rec.Reason)
		}
	}
	return out
}
