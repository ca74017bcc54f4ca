package mrtrtest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
)

// An Answer is one answer of a round as a client sends it: the input
// request key it answers and the response. The answer structs mrtrgen
// generates (CloseSupportTicketReasonAnswer...) implement it in the
// generated tests, so a test answers a form with the typed struct of its
// validated answer; Respond wraps any other response (a sampled text, a
// roots list).
type Answer interface {
	InputResponse() (key string, response mcp.InputResponse)
}

// Respond is response as the answer to request key.
func Respond(key string, response mcp.InputResponse) Answer { return keyed{key, response} }

type keyed struct {
	key      string
	response mcp.InputResponse
}

func (k keyed) InputResponse() (string, mcp.InputResponse) { return k.key, k.response }

// Answers collects answers by request key, as Fixtures.Answers and
// Variant.Answers take them.
func Answers(answers ...Answer) map[string]mcp.InputResponse {
	out := map[string]mcp.InputResponse{}
	for _, a := range answers {
		key, r := a.InputResponse()
		out[key] = r
	}
	return out
}

// Form accepts a form with content as a client sends it: through JSON, so
// that typed Go values (an enum type, an int64, a slice of enum values)
// arrive as a client's do (a string, a float64, a []any).
func Form(content map[string]any) *mcp.ElicitResult {
	b, err := json.Marshal(content)
	if err != nil {
		// The generated answer structs hold only JSON values.
		panic(fmt.Sprintf("mrtrtest.Form: content does not marshal: %v", err))
	}
	var sent map[string]any
	if err := json.Unmarshal(b, &sent); err != nil {
		panic(fmt.Sprintf("mrtrtest.Form: %v", err))
	}
	return Accept(sent)
}

// A Driver plays one workflow in a test round by round, as a client
// would: Drive sends the first round with typed arguments; Answer,
// Confirm, Refuse, Decline and Cancel send the next one; Want... check the
// last reply. A failure names the tool and the round, says what was wanted
// and what the handler did, and ends the test. A workflow gets at most the
// harness's MaxRounds rounds (DefaultMaxRounds): sending one more fails the
// test, showing what the last round asked, so a test that answers until
// the workflow ends cannot loop on a handler that keeps asking. The
// generated tests give each tool a typed drive<Tool>(t, h, args).
type Driver[F any] struct {
	t         testing.TB
	h         *Harness[F]
	d         *mrtrimpl.Descriptor
	args      any
	principal string
	round     int
	// The last round: what it sent and what came back.
	state string
	sent  mcp.InputResponseMap
	reply *mrtr.Reply
	err   error
	// before is the reply of the round before the last.
	before *mrtr.Reply
}

// Drive starts a workflow of h's program with args (the generated
// <Tool>Args, or any JSON-marshalable value) as h.Principal: round 1 runs.
func Drive[F any](t testing.TB, h *Harness[F], args any) *Driver[F] {
	t.Helper()
	d := &Driver[F]{t: t, h: h, d: h.Program.Descriptor(), args: args, principal: h.Principal}
	d.send("", nil)
	return d
}

// send runs the next round, failing the test instead when the workflow
// has had all the rounds of the harness's limit (Harness.MaxRounds): a
// test that answers until the workflow ends stops there.
func (d *Driver[F]) send(state string, responses mcp.InputResponseMap) {
	d.t.Helper()
	if limit := d.h.maxRounds(); d.round >= limit {
		d.t.Fatalf("%s, %v", d.d.Name, roundLimit(limit, d.reply, d.before, d.err, d.principal, ""))
	}
	d.round++
	d.before = d.reply
	d.state, d.sent = state, responses
	d.reply, d.err = d.h.callAs(context.Background(), d.principal, d.args, state, responses)
}

// fail ends the test: the round did not go as wanted.
func (d *Driver[F]) fail(want, hint string) {
	d.t.Helper()
	d.t.Fatalf("%s, %v", d.d.Name, &roundError{round: d.round, want: want, did: did(d.reply, d.err, d.principal), hint: hint})
}

// next is the requestState the next round continues, failing the test when
// the last round asked nothing.
func (d *Driver[F]) next(what string) string {
	d.t.Helper()
	if d.err != nil || !d.reply.NeedsInput() {
		d.fail("questions, to "+what, "")
	}
	return d.reply.RequestState
}

// As makes the next rounds come from principal (a caller removed from the
// resource meanwhile, another user replaying the requestState).
func (d *Driver[F]) As(principal string) *Driver[F] {
	d.principal = principal
	return d
}

// Answer sends the next round with answers: typed answer structs, or
// Respond for the others. A question left out is not answered.
func (d *Driver[F]) Answer(answers ...Answer) *Driver[F] {
	d.t.Helper()
	state := d.next(fmt.Sprintf("answer them with %d answers", len(answers)))
	d.send(state, mcp.InputResponseMap(Answers(answers...)))
	return d
}

// Confirm answers the confirmation gate asked yes.
func (d *Driver[F]) Confirm() *Driver[F] {
	d.t.Helper()
	return d.gate("confirm it", true)
}

// Refuse answers the confirmation gate asked no.
func (d *Driver[F]) Refuse() *Driver[F] {
	d.t.Helper()
	return d.gate("refuse it", false)
}

func (d *Driver[F]) gate(what string, yes bool) *Driver[F] {
	d.t.Helper()
	state := d.next("a confirmation gate, to " + what)
	for _, key := range keys(d.reply.InputRequests) {
		if q := requestNamed(d.d, key); q != nil && q.GateField != "" {
			d.send(state, mcp.InputResponseMap{key: gateAnswer(q, d.reply.InputRequests[key], yes)})
			return d
		}
	}
	d.fail("a confirmation gate, to "+what, "")
	return d
}

// Decline declines the form key.
func (d *Driver[F]) Decline(key string) *Driver[F] {
	d.t.Helper()
	return d.leave(key, "decline", Decline())
}

// Cancel cancels the form key.
func (d *Driver[F]) Cancel(key string) *Driver[F] {
	d.t.Helper()
	return d.leave(key, "cancel", Cancel())
}

func (d *Driver[F]) leave(key, how string, r mcp.InputResponse) *Driver[F] {
	d.t.Helper()
	state := d.next(fmt.Sprintf("%s %q", how, key))
	if d.reply.InputRequests[key] == nil {
		d.fail(fmt.Sprintf("%q asked, to %s it", key, how), "")
	}
	d.send(state, mcp.InputResponseMap{key: r})
	return d
}

// Replay sends the last round again, as a client retrying it does, and
// fails unless it gets the same reply: an effect is not run twice, a
// question is asked alike.
func (d *Driver[F]) Replay() *Driver[F] {
	d.t.Helper()
	if d.round == 1 {
		d.t.Fatalf("%s, round 1: a first round cannot be replayed (a retried first call starts a new workflow)", d.d.Name)
	}
	prev, prevErr, before := d.reply, d.err, d.before
	d.round--
	d.send(d.state, d.sent)
	d.before = before
	switch {
	case prevErr != nil || d.err != nil:
		if prevErr == nil || d.err == nil || prevErr.Error() != d.err.Error() {
			d.fail(fmt.Sprintf("the replay to end as the round did (%s)", did(prev, prevErr, d.principal)), "")
		}
	case replyDiff(prev, d.reply) != "":
		d.fail(fmt.Sprintf("the replay to get the round's reply (%s); got %s", did(prev, nil, d.principal), replyDiff(prev, d.reply)), "")
	}
	return d
}

// WantAsks checks that the last round asked for exactly the requests
// named.
func (d *Driver[F]) WantAsks(requests ...string) *Driver[F] {
	d.t.Helper()
	want := slices.Sorted(slices.Values(requests))
	if d.err != nil || !d.reply.NeedsInput() || !slices.Equal(want, keys(d.reply.InputRequests)) {
		d.fail(fmt.Sprintf("it to ask for %s", strings.Join(quoted(want), " and ")), "")
	}
	return d
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// WantQuestion checks that the last round asked for key, showing the user
// a message that contains text.
func (d *Driver[F]) WantQuestion(key, text string) *Driver[F] {
	d.t.Helper()
	want := fmt.Sprintf("it to ask for %q with a message containing %q", key, text)
	if d.err != nil || !d.reply.NeedsInput() || d.reply.InputRequests[key] == nil {
		d.fail(want, "")
	}
	if !strings.Contains(messageOf(d.reply.InputRequests[key]), text) {
		d.fail(want, "")
	}
	return d
}

// Question is the message the last round shows for key ("" when it did
// not ask for key).
func (d *Driver[F]) Question(key string) string {
	if d.reply == nil || !d.reply.NeedsInput() {
		return ""
	}
	return messageOf(d.reply.InputRequests[key])
}

// WantEnd checks that the last round ended the workflow with outcome, and
// a text that contains text.
func (d *Driver[F]) WantEnd(outcome mrtr.Outcome, text string) *Driver[F] {
	d.t.Helper()
	want := "the workflow to end " + string(outcome)
	if text != "" {
		want += fmt.Sprintf(" with a text containing %q", text)
	}
	if d.err != nil || d.reply.NeedsInput() || d.reply.Final.Outcome != outcome || !strings.Contains(d.reply.Final.Text, text) {
		d.fail(want, "")
	}
	return d
}

// WantRestart checks that the last round was refused with the restart
// error a client gets for a requestState it may not use.
func (d *Driver[F]) WantRestart() *Driver[F] {
	d.t.Helper()
	if !IsInvalidState(d.err) {
		d.fail(restartError, "")
	}
	return d
}

// Reply is the last round's reply (nil when the call failed), and Err its
// error.
func (d *Driver[F]) Reply() *mrtr.Reply { return d.reply }

// Err is the last round's error.
func (d *Driver[F]) Err() error { return d.err }

// Round is the number of the last round sent, from 1.
func (d *Driver[F]) Round() int { return d.round }
