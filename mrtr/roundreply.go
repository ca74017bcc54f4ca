package mrtr

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// replay returns a recorded reply to a retry. An input_required reply is
// sent only with the requests the retrying client can answer: one it no
// longer declares the capability of is left out when optional, and fails
// the round with -32021 when required (as a first reply would).
func (e *Engine) replay(d *mrtrimpl.Descriptor, caps *mcp.ClientCapabilities, reply *Reply) (*Reply, error) {
	if !reply.NeedsInput() || len(reply.InputRequests) == 0 {
		return reply, nil // finished, or handed to a task (deferRound)
	}
	var missing []vocab.Capability
	out := *reply
	out.InputRequests = mcp.InputRequestMap{}
	for key, params := range reply.InputRequests {
		q := d.Request(key)
		if q == nil || hasCapability(caps, q.Kind.Capability()) {
			out.InputRequests[key] = params
			continue
		}
		if !q.Optional && !slices.Contains(missing, q.Kind.Capability()) {
			missing = append(missing, q.Kind.Capability())
		}
	}
	if len(missing) > 0 || len(out.InputRequests) == 0 {
		if len(missing) == 0 {
			for key := range reply.InputRequests {
				if q := d.Request(key); q != nil && !slices.Contains(missing, q.Kind.Capability()) {
					missing = append(missing, q.Kind.Capability())
				}
			}
		}
		slices.Sort(missing)
		return nil, missingCapabilitiesError(missing)
	}
	return &out, nil
}

// askReply seals the continuation and builds the input_required reply,
// leaving out optional requests the client cannot answer and failing with
// -32021 when a required one cannot be sent.
func (e *Engine) askReply(ctx context.Context, d *mrtrimpl.Descriptor, b seal.Binding, env *envelope, pHash string, caps *mcp.ClientCapabilities, pending, questions []mrtrimpl.Pending, keep func(store.StateRecord)) (*Reply, error) {
	reqs := mcp.InputRequestMap{}
	var missing []vocab.Capability
	info := d.State(env.state)
	for _, p := range pending {
		capName := p.Kind.Capability()
		if !hasCapability(caps, capName) {
			if !p.Optional && !slices.Contains(missing, capName) {
				missing = append(missing, capName)
			}
			continue
		}
		params, err := e.publicParams(d, p)
		if err != nil {
			return nil, err
		}
		reqs[p.Key] = params
		if i := info.RequestIndex(p.Key); i >= 0 && i < 64 {
			env.sent |= 1 << i
		}
	}
	if len(missing) == 0 && len(reqs) == 0 {
		for _, p := range pending {
			if c := p.Kind.Capability(); !slices.Contains(missing, c) {
				missing = append(missing, c)
			}
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, missingCapabilitiesError(missing)
	}
	// The pins of the sent questions, as Questions renders them (without
	// the problems a re-ask adds): what the next round compares.
	for i, q := range info.Requests {
		if i >= 64 || env.sent&(1<<i) == 0 {
			continue
		}
		var digest uint64
		for _, now := range questions {
			if now.Key == q.Key {
				digest = pinnedDigest(info.Kind, now)
			}
		}
		env.digests = append(env.digests, digest)
	}
	token, err := e.sealState(ctx, d, b, env, pHash, keep)
	if err != nil {
		return nil, err
	}
	return &Reply{InputRequests: reqs, RequestState: token}, nil
}

// stateName is state s's name, or its number when the program has no such
// state (a bug the caller reports).
func stateName(d *mrtrimpl.Descriptor, s uint16) string {
	if info := d.State(s); info != nil {
		return info.Name
	}
	return fmt.Sprintf("state %d", s)
}

// deferRound ends the round before the task's start state runs: the
// continuation positioned there, no input requests (see addTaskTool).
func (rr *run[F]) deferRound(ctx context.Context, r *round, path []string) (*Reply, error) {
	e, d, p, f := rr.e, rr.d, rr.p, rr.f
	if problems := p.CheckContinuation(ctx, f); len(problems) > 0 {
		return nil, fmt.Errorf("mrtr: %s: at the task's start the continuation breaks the spec: %s", d.Name, strings.Join(problems, "; "))
	}
	next := &envelope{workflow: rr.env.workflow, args: rr.argsDigest, state: p.State(f), round: rr.env.round + 1, data: p.AppendContinuation(make([]byte, 0, 256), f)}
	keep := func(rec store.StateRecord) { r.nextState = &rec }
	reply, err := e.askReply(ctx, d, rr.binding, next, rr.pHash, rr.caps, nil, nil, keep)
	if err != nil {
		return nil, err
	}
	rr.rt.outcome = "task"
	reply.Path = path
	return reply, nil
}
