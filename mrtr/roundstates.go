package mrtr

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/stepkind"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// newRound is the Round the states of this run see.
func (rr *run[F]) newRound(ctx context.Context) *round {
	p, f := rr.p, rr.f
	r := &round{
		e: rr.e, d: rr.d, call: rr.call, req: &rr.req, inputs: rr.inputs,
		flow:       rr,
		argsDigest: rr.recordDigest, workflow: rr.call.WorkflowID, pHash: rr.pHash, hasRecord: rr.rec != nil,
		legacy: rr.resumed() && rr.env.legacy(),
		rec:    rr.rec,
	}
	rr.round = r
	if rr.resumed() {
		// Answers count only for the questions sent, as they were sent.
		env := rr.env
		if changed := env.pinQuestions(rr.d.State(env.state), p.Questions(f, env.state)); len(changed) > 0 {
			rr.call.Logger.InfoContext(ctx, "mrtr: questions changed since they were sent; asking them again", "requests", changed)
		}
		r.resumedAt, r.sent = env.state, env.sent
	}
	return r
}

// transients is implemented by a generated program whose spec declares
// transient values (continuation.transient): values only templates show,
// computed by a handler method before each render and never carried. The
// engine alone asks for it, so it is not a name of mrtrimpl.
type transients[F any] interface {
	RenderTransient(ctx context.Context, f F, s uint16) error
}

// renderTransient computes the transient values of the state a resumed
// round starts in, before newRound renders its questions to pin the
// answers: a question showing one is compared as it would be sent now. A
// failure fails the round as the state's step failing would.
func (rr *run[F]) renderTransient(ctx context.Context) (*Reply, bool, error) {
	tp, ok := any(rr.p).(transients[F])
	if !ok || !rr.resumed() {
		return nil, false, nil
	}
	info := rr.d.State(rr.env.state)
	if info == nil {
		return nil, false, nil // runStates reports the unknown state
	}
	err := tp.RenderTransient(ctx, rr.f, rr.env.state)
	if err == nil {
		return nil, false, nil
	}
	reply, err := rr.e.stepFailed(ctx, rr.rt, rr.d, rr.call, info, err)
	if reply != nil {
		reply.Path = []string{info.Name}
	}
	return reply, true, err
}

// runStates runs states until one asks for input or the workflow ends.
func (rr *run[F]) runStates(ctx context.Context) (*Reply, error) {
	e, d, p, f := rr.e, rr.d, rr.p, rr.f
	if reply, failed, err := rr.renderTransient(ctx); failed {
		return reply, err
	}
	r := rr.newRound(ctx)
	path := make([]string, 0, 8) // the states this round runs; most rounds run a few
	detached := false
	for steps := 0; ; steps++ {
		if r.effected && !detached {
			// A side effect happened: finish the round and record its reply
			// even if the client goes away now, or its retry would do the
			// effect again (or misreport it).
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), e.cfg.Lease)
			defer cancel() //nolint:gocritic // deferInLoop: once per round (detached guards it); the timeout lasts until Run returns
			detached = true
		}
		if err := ctx.Err(); err != nil {
			rr.rt.outcome = "cancelled"
			return nil, err
		}
		if steps >= e.cfg.MaxSteps {
			return nil, fmt.Errorf("mrtr: %s ran %d states in one round without asking for input (a loop?)", d.Name, steps)
		}
		cur := p.State(f)
		info := d.State(cur)
		if info == nil {
			return nil, fmt.Errorf("%w %d in %s", mrtrimpl.ErrUnknownState, cur, d.Name)
		}
		r.current = cur
		if rr.req.deferAt != 0 && cur == rr.req.deferAt {
			return rr.deferRound(ctx, r, path) // roundreply.go
		}
		if info.Kind.Interactive() {
			r.countRun(cur)
		}
		if info.Kind == vocab.StateCheck {
			r.flush(ctx) // a check may take long: an effect's outcome does not wait for it
		}
		st, err := p.Step(ctx, r, f)
		if err != nil {
			if s, ok := errors.AsType[*roundSettled](err); ok {
				return rr.settle(ctx, s)
			}
			reply, err := e.stepFailed(ctx, rr.rt, d, rr.call, info, err)
			if reply != nil {
				path = append(path, info.Name)
				reply.Path = path
				r.ended = true
			}
			return reply, err
		}
		rr.rt.visit(info.Name)
		path = append(path, info.Name)
		if st.Kind == stepkind.Goto {
			if !d.Allows(cur, st.Next, st.On) {
				return nil, fmt.Errorf("mrtr: %s: transition %s -(%s)-> %s is not in the table", d.Name, info.Name, st.On, stateName(d, st.Next))
			}
			if st.On == vocab.AskAgain {
				if r.reasked == nil {
					r.reasked = map[uint16]bool{}
				}
				r.reasked[st.Next] = true
			}
			p.SetState(f, st.Next)
			continue
		}
		return rr.endRound(ctx, r, info, st, path)
	}
}

// endRound turns the step that stopped the round into its reply: the
// questions (with the next continuation sealed), or the workflow's result.
func (rr *run[F]) endRound(ctx context.Context, r *round, info *mrtrimpl.StateInfo, st mrtrimpl.Step, path []string) (*Reply, error) {
	e, d, p, f := rr.e, rr.d, rr.p, rr.f
	if reply := rr.refuseURIs(ctx, r, st); reply != nil {
		return reply, nil
	}
	switch st.Kind {
	case stepkind.Ask:
		if problems := p.CheckContinuation(ctx, f); len(problems) > 0 {
			return nil, fmt.Errorf("mrtr: %s: at state %s the continuation breaks the spec (a handler stored a value it does not allow): %s", d.Name, info.Name, strings.Join(problems, "; "))
		}
		cur := p.State(f)
		next := &envelope{workflow: rr.env.workflow, args: rr.argsDigest, state: cur, round: rr.env.round + 1, data: p.AppendContinuation(make([]byte, 0, 256), f)}
		keep := func(rec store.StateRecord) { r.nextState = &rec } // stored with the round's reply
		reply, err := e.askReply(ctx, d, rr.binding, next, rr.pHash, rr.caps, st.Ask, p.Questions(f, cur), keep)
		if err == nil {
			rr.rt.outcome = "input_required"
			reply.Path = path
		}
		return reply, err
	case stepkind.Finish:
		r.ended = true
		rr.rt.outcome = string(st.Final.Outcome)
		return &Reply{Final: st.Final, Path: path}, nil
	}
	return nil, fmt.Errorf("mrtr: %s: state %s returned no step", d.Name, info.Name)
}

// refuseURIs ends the workflow rejected when the step would send a URI that
// checkURI refuses: the uri of a result's content item, or the url
// of a URL-mode elicitation, rendered from values a caller chose. The
// client learns only that the URI was refused; the log says why.
func (rr *run[F]) refuseURIs(ctx context.Context, r *round, st mrtrimpl.Step) *Reply {
	var bad error
	switch st.Kind {
	case stepkind.Finish:
		items := st.Final.Content
		for _, m := range st.Final.Messages {
			if m.Content != nil {
				items = append(items[:len(items):len(items)], *m.Content)
			}
		}
		for _, c := range items {
			// An empty uri is a resource's own contents: the engine fills in
			// the URI that was read, which matched the resource's template.
			if c.URI != "" {
				if err := checkURI(c.URI, contentItemURI); err != nil {
					bad = err
					break
				}
			}
		}
	case stepkind.Ask:
		for _, p := range st.Ask {
			if ep, ok := p.Params.(*mcp.ElicitParams); ok && p.Kind == vocab.ElicitURL {
				if err := checkURI(ep.URL, elicitationURL); err != nil {
					bad = fmt.Errorf("input request %q: %w", p.Key, err)
					break
				}
			}
		}
	}
	if bad == nil {
		return nil
	}
	rr.call.Logger.WarnContext(ctx, "mrtr: a URI rendered from the workflow's values is refused", "reason", bad.Error())
	r.ended = true
	rr.rt.outcome = string(OutcomeRejected)
	return &Reply{Final: &Final{Outcome: OutcomeRejected, Text: rr.d.Name + ": a URI built from the values given is not allowed"}}
}
