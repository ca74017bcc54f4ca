package mrtrimpl

import (
	"context"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// Question is one input request of an ask state, as Take reads its answer.
type Question struct {
	Key  string
	Kind vocab.RequestKind
	// Optional requests are sent only to clients that can answer them.
	Optional bool
	// Request builds the request, with the problems of a previous answer
	// (nil the first time).
	Request func(Problems) Pending
	// Sensitive lists form fields that are never sent back as the defaults
	// of a form asked again.
	Sensitive []string
}

// Decoder validates one answer: the typed answer, or the problems the user
// must correct; an error is a custom validator that could not check a value
// (a dependency failure).
type Decoder[A any] func(ctx context.Context, resp Response) (*A, Problems, error)

// Form, Text and URIs adapt a generated answer decoder of a form
// (elicitation), a sampled text and a roots list to a Decoder.
func Form[A any](decode func(context.Context, map[string]any) (*A, Problems, error)) Decoder[A] {
	return func(ctx context.Context, resp Response) (*A, Problems, error) { return decode(ctx, resp.Content) }
}

// Text adapts the decoder of a sampled answer; see Form.
func Text[A any](decode func(context.Context, string) (*A, Problems)) Decoder[A] {
	return func(ctx context.Context, resp Response) (*A, Problems, error) {
		a, p := decode(ctx, resp.Text)
		return a, p, nil
	}
}

// URIs adapts the decoder of a roots answer; see Form.
func URIs[A any](decode func(context.Context, []string) (*A, Problems)) Decoder[A] {
	return func(ctx context.Context, resp Response) (*A, Problems, error) {
		a, p := decode(ctx, resp.URIs)
		return a, p, nil
	}
}

// Take reads this round's answer to q. It returns the validated answer when
// the client gave one. Otherwise it appends to pending what to send: the
// request as first asked, or asked again saying what to correct (a form
// keeps its valid fields filled in). For a form the user may also leave:
// Take then returns vocab.Decline or vocab.Cancel and the state goes where
// the spec says.
func Take[A any](ctx context.Context, r Round, q Question, decode Decoder[A], pending *[]Pending) (*A, vocab.Edge, error) {
	ask := func(p Pending) {
		if !q.Optional || r.Can(q.Kind) {
			*pending = append(*pending, p)
		}
	}
	resp := r.Response(q.Key, q.Kind)
	switch resp.Status {
	case Accepted:
		answer, problems, err := decode(ctx, resp)
		switch {
		case err != nil:
			return nil, "", err
		case len(problems) == 0:
			return answer, "", nil
		case q.Kind == vocab.Elicit:
			ask(Prefilled(q.Request(problems), resp.Content, problems, q.Sensitive...))
		default:
			ask(q.Request(problems))
		}
	case Declined, Cancelled:
		if q.Kind == vocab.Elicit {
			if resp.Status == Declined {
				return nil, vocab.Decline, nil
			}
			return nil, vocab.Cancel, nil
		}
		ask(q.Request(nil))
	case Malformed:
		ask(q.Request(Problems{resp.Problem}))
	default:
		ask(q.Request(nil))
	}
	return nil, "", nil
}
