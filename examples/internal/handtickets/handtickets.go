// Package handtickets is close_support_ticket (examples/specs/tickets)
// written by hand on the go-sdk alone: the baseline that examples/server's
// benchmarks and examples/loadtest measure the generated tool against.
package handtickets

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Server is close_support_ticket written on the go-sdk alone (the
// same argument and answer validation, the same elicitation, the same
// state sealed with the same codec and binding, the same business calls)
// plus the store calls the engine makes for this tool's final round, each
// through the mrtr/store API:
//
//   - one batch (store.Apply) claiming the round record
//     (AUDIENCE/tools/call:close_support_ticket/round/WF/2, fingerprint of
//     the arguments and the answer, lease 30s) and, if that claim is
//     acquired, the effect record (close_support_ticket/close-ID, lease 30s);
//   - after the effect, one batch completing the effect record (retained
//     24h) and the round record with the JSON reply (retained 16m);
//   - a replayed round record answers its stored reply; a replayed effect
//     record skips the effect; a failed effect releases both claims.
//
// What it does not do, and the engine does: renew a lease while an effect
// runs, wait for and retry an in-flight claim (it answers a retryable
// error at once), record an outcome in the background when the store
// fails, report a takeover, bound each store call with its own timeout,
// log and trace each round. The first round makes no store call in
// either variant (the continuation is sealed).
//
// Without a Store it is the in-process and HTTP baseline of
// examples/server's benchmarks: the same work, no records.
type Server struct {
	// Audience binds the state to the server, as mrtr.Config.Audience.
	Audience string
	Codec    *seal.Codec
	Business Business
	// NoSecrets is the comment validator (the example's, for both).
	NoSecrets func(ctx context.Context, comment string) error
	// Store, when set, keeps the round and effect records as the engine
	// does (below); nil: none, so a retried final round closes again.
	Store store.Store
	Log   *slog.Logger
}

// Business is the work behind the tool.
type Business interface {
	// Subject is the open ticket's subject, or an error the user sees.
	Subject(id string) (string, error)
	// Close closes the ticket.
	Close(id, reason string, comment *string) error
}

const (
	handLease       = 30 * time.Second
	handRoundRetain = 16 * time.Minute // the token's 15m TTL, skew and a minute, as the engine
	handEffectKeep  = 24 * time.Hour
)

var (
	handTicketIDPattern = regexp.MustCompile(`^(?:[0-9]{1,12})$`)
	handReasons         = []string{"resolved", "duplicate", "cancelled"}
	InputSchema         = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["ticketId"],
		"properties":{"ticketId":{"type":"string","maxLength":12,"pattern":"^(?:[0-9]{1,12})$"}}}`)
	// The same form the generated tool sends.
	handReasonSchema = json.RawMessage(`{
  "properties": {
    "closeReason": {
      "oneOf": [
        {
          "const": "resolved",
          "title": "Issue resolved"
        },
        {
          "const": "duplicate",
          "title": "Duplicate of another ticket"
        },
        {
          "const": "cancelled",
          "title": "Cancelled by the customer"
        }
      ],
      "title": "Closing reason",
      "type": "string"
    },
    "comment": {
      "maxLength": 500,
      "title": "Comment for the customer",
      "type": "string"
    }
  },
  "required": [
    "closeReason"
  ],
  "type": "object"
}`)
)

func invalidParams(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// Serve is the hand-written round the benchmark measures the generated
// code against, written as a tool without mrtrgen is: every check of the
// round inline, in one function. Splitting it would make it a different
// baseline.
//
//nolint:funlen // the baseline is one function on purpose (above)
func (h *Server) Serve(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	// Arguments, on every round.
	var args map[string]any
	if raw := req.Params.Arguments; len(bytes.TrimSpace(raw)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			return errorResult("invalid arguments: arguments must be a JSON object"), nil //nolint:nilerr // a tool error is a result, not a Go error
		}
	}
	var problems []string
	for k := range args {
		if k != "ticketId" {
			problems = append(problems, k+": unknown argument")
		}
	}
	id, isString := args["ticketId"].(string)
	switch {
	case args["ticketId"] == nil:
		problems = append(problems, "ticketId: required")
	case !isString:
		problems = append(problems, "ticketId: expected a string")
	default:
		if n := utf8.RuneCountInString(id); n > 12 {
			problems = append(problems, fmt.Sprintf("ticketId: at most 12 characters (got %d)", n))
		}
		if !handTicketIDPattern.MatchString(id) {
			problems = append(problems, "ticketId: must match [0-9]{1,12}")
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		// A tool execution error, as the engine answers (a model reads it
		// and corrects its call).
		return errorResult("invalid arguments: " + strings.Join(problems, "; ")), nil
	}
	// The state is bound to the server, the tool, the (anonymous) caller
	// and the arguments, like the engine's.
	b := seal.Binding{Audience: h.Audience, Subject: seal.ToolSubject("close_support_ticket"),
		ArgsDigest: sha256.Sum256(binenc.AppendString([]byte("mrtrgen/args/v1\x00"), id))}

	if req.Params.RequestState == "" {
		subject, err := h.Business.Subject(id)
		if err != nil {
			return errorResult(err.Error()), nil
		}
		var wf [16]byte
		if _, err := rand.Read(wf[:]); err != nil {
			return nil, err
		}
		return h.ask(req, b, wf, id, subject, nil)
	}
	plain, err := h.Codec.Open(b, req.Params.RequestState)
	if err != nil {
		return nil, invalidParams(seal.PublicMessage)
	}
	wf, subject, err := decodeHandState(plain)
	if err != nil {
		return nil, invalidParams(seal.PublicMessage)
	}
	resp, _ := req.Params.InputResponses["reason"].(*mcp.ElicitResult)
	if resp == nil {
		return h.ask(req, b, wf, id, subject, nil)
	}
	switch resp.Action {
	case "decline", "cancel":
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "close_support_ticket was cancelled."}}}, nil
	case "accept":
	default:
		return h.ask(req, b, wf, id, subject, []string{fmt.Sprintf("unknown elicitation action %q", resp.Action)})
	}
	// The answer, validated.
	problems = problems[:0]
	reason, isString := resp.Content["closeReason"].(string)
	switch {
	case resp.Content["closeReason"] == nil:
		problems = append(problems, "closeReason: required")
	case !isString:
		problems = append(problems, "closeReason: expected a string")
	case !slices.Contains(handReasons, reason):
		problems = append(problems, "closeReason: must be one of resolved, duplicate, cancelled")
	}
	var comment *string
	if v, ok := resp.Content["comment"]; ok && v != nil {
		c, isString := v.(string)
		switch {
		case !isString:
			problems = append(problems, "comment: expected a string")
		case utf8.RuneCountInString(c) > 500:
			problems = append(problems, fmt.Sprintf("comment: at most 500 characters (got %d)", utf8.RuneCountInString(c)))
		default:
			if err := h.NoSecrets(ctx, c); err != nil {
				problems = append(problems, "comment: "+err.Error())
			}
			comment = &c
		}
	}
	if len(problems) > 0 {
		return h.ask(req, b, wf, id, subject, problems)
	}
	return h.effect(ctx, b, wf, id, reason, comment, resp.Content)
}

// effect closes the ticket behind the round record and the effect record,
// with the same two store batches as the engine.
func (h *Server) effect(ctx context.Context, b seal.Binding, wf [16]byte, id, reason string, comment *string, answer map[string]any) (*mcp.CallToolResult, error) {
	if h.Store == nil {
		if err := h.Business.Close(id, reason, comment); err != nil {
			return errorResult(err.Error()), nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Closed ticket " + id + " (" + reason + ")."}}}, nil
	}
	owner := newOwner()
	ans, err := json.Marshal(answer)
	if err != nil {
		return nil, err
	}
	rfp := sha256.New()
	rfp.Write(b.ArgsDigest[:])
	rfp.Write(ans)
	roundKey := fmt.Sprintf("%s/%s/round/%x/2", h.Audience, b.Subject, wf)
	effectKey := "close_support_ticket/close-" + id
	efp := sha256.Sum256(binenc.AppendString(append(append([]byte("close_support_ticket\x00"), wf[:]...), b.ArgsDigest[:]...), reason))
	res, err := store.Apply(ctx, h.Store, []store.Op{
		store.ClaimOp(store.ClaimRequest{Key: roundKey, Fingerprint: rfp.Sum(nil), Owner: owner, Lease: handLease}),
		store.ClaimOp(store.ClaimRequest{Key: effectKey, Fingerprint: efp[:], Owner: owner, Lease: handLease}).IfClaimed(),
	})
	if err != nil {
		h.release(roundKey, effectKey, owner)
		return nil, fmt.Errorf("store unavailable, retry: %w", err)
	}
	switch c := res[0].Claim; c.Status {
	case store.Replayed:
		var reply mcp.CallToolResult
		if err := json.Unmarshal(c.Result, &reply); err != nil {
			return nil, err
		}
		return &reply, nil
	case store.Mismatch:
		return nil, invalidParams("this requestState was already used with other input; start the operation again")
	case store.InFlight:
		return nil, errors.New("this round is being answered by another attempt; retry")
	}
	switch c := res[1].Claim; c.Status {
	case store.Acquired:
		if err := h.Business.Close(id, reason, comment); err != nil {
			h.release(roundKey, effectKey, owner)
			return errorResult(err.Error()), nil
		}
	case store.Replayed: // closed already, by this workflow: not again
	case store.InFlight:
		h.release(roundKey, "", owner)
		return nil, errors.New("the ticket is being closed by another attempt; retry")
	default:
		h.release(roundKey, "", owner)
		return errorResult("ticket " + id + " was closed by another workflow"), nil
	}
	reply := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Closed ticket " + id + " (" + reason + ")."}}}
	data, err := json.Marshal(reply)
	if err != nil {
		return nil, err
	}
	if _, err := store.Apply(context.WithoutCancel(ctx), h.Store, []store.Op{
		store.CompleteOp(effectKey, owner, []byte{1}, handEffectKeep),
		store.CompleteOp(roundKey, owner, data, handRoundRetain),
	}); err != nil {
		h.Log.Error("recording the round", "key", roundKey, "error", err)
	}
	return reply, nil
}

// release gives back the claims of a round that did not finish.
func (h *Server) release(roundKey, effectKey, owner string) {
	ops := []store.Op{store.ReleaseOp(roundKey, owner)}
	if effectKey != "" {
		ops = append(ops, store.ReleaseOp(effectKey, owner))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = store.Apply(ctx, h.Store, ops)
}

func newOwner() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ask seals the state and asks for the reason, the same question as the
// generated tool's.
func (h *Server) ask(req *mcp.CallToolRequest, b seal.Binding, wf [16]byte, id, subject string, problems []string) (*mcp.CallToolResult, error) {
	if caps := req.ClientCapabilities(); caps == nil || caps.Elicitation == nil {
		return nil, &jsonrpc.Error{Code: -32021, Message: "the client does not support elicitation"}
	}
	msg := "Provide the reason for closing ticket " + id + " (\"" + subject + "\")."
	for _, p := range problems {
		msg += "\n- " + p
	}
	token, err := h.Codec.Seal(b, 15*time.Minute, encodeHandState(wf, subject))
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{"reason": &mcp.ElicitParams{Message: msg, Mode: "form", RequestedSchema: handReasonSchema}},
		RequestState:  token,
	}, nil
}

// The hand-written state: version, workflow id, state, round and subject,
// what the engine's envelope holds for this tool.
func encodeHandState(wf [16]byte, subject string) []byte {
	p := make([]byte, 0, 32+len(subject))
	p = append(p, 1)
	p = append(p, wf[:]...)
	p = binenc.AppendUvarint(p, 2) // state askReason
	p = binenc.AppendUvarint(p, 2) // round
	return binenc.AppendString(p, subject)
}

func decodeHandState(p []byte) (wf [16]byte, subject string, err error) {
	if len(p) < 17 || p[0] != 1 {
		return wf, "", errors.New("malformed state")
	}
	copy(wf[:], p[1:17])
	r := binenc.NewReader(p[17:])
	if state, round := r.Uvarint(), r.Uvarint(); state != 2 || round != 2 {
		return wf, "", errors.New("malformed state")
	}
	subject = r.String()
	return wf, subject, r.Done()
}

// AddTo registers the tool on s.
func (h *Server) AddTo(s *mcp.Server) {
	s.AddTool(&mcp.Tool{Name: "close_support_ticket", Description: "Close a support ticket.", InputSchema: InputSchema}, h.Serve)
}
