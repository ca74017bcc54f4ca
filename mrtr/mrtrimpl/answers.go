package mrtrimpl

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/mrtrgen/mrtrgen/mrtr/problem"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Bind is a request builder of a generated program with the flow bound:
// what Take calls to build the request, with the problems of a previous
// answer (nil the first time).
func Bind[F any](build func(F, Problems) Pending, f F) func(Problems) Pending {
	return func(problems Problems) Pending { return build(f, problems) }
}

// Decoder validates one answer: the typed answer, or the problems the user
// must correct; an error is a custom validator that could not check a value
// (a dependency failure).
type Decoder[A any] func(ctx context.Context, resp response) (*A, Problems, error)

// Form, Text and URIs adapt a generated answer decoder of a form
// (elicitation), a sampled text and a roots list to a Decoder.
func Form[A any](decode func(context.Context, map[string]any) (*A, Problems, error)) Decoder[A] {
	return func(ctx context.Context, resp response) (*A, Problems, error) { return decode(ctx, resp.Content) }
}

// Text adapts the decoder of a sampled answer; see Form.
func Text[A any](decode func(context.Context, string) (*A, Problems, error)) Decoder[A] {
	return func(ctx context.Context, resp response) (*A, Problems, error) {
		return decode(ctx, resp.Text)
	}
}

// Opened is the Decoder of a URL-mode elicitation's answer: the user
// accepted opening the URL, which says nothing about whether they completed
// the step there (the check after the ask asks the domain).
func (Export) Opened() Decoder[urlStep] { return opened }

func opened(context.Context, response) (*urlStep, Problems, error) { return &urlStep{}, nil, nil }

// URIs adapts the decoder of a roots answer; see Form.
func URIs[A any](decode func(context.Context, []string) (*A, Problems)) Decoder[A] {
	return func(ctx context.Context, resp response) (*A, Problems, error) {
		a, p := decode(ctx, resp.URIs)
		return a, p, nil
	}
}

// Take reads this round's answer to request key, which the program's
// descriptor describes (its kind, whether it is optional, its sensitive
// fields). It returns the validated answer when the client gave one.
// Otherwise it appends to pending what to send: the request as first asked,
// or asked again saying what to correct (a form keeps its valid fields
// filled in, but never a sensitive one); an optional request only when the
// client can answer it. For a form the user may also leave: Take then
// returns vocab.Decline or vocab.Cancel and the state goes where the spec
// says. An error is a custom validator that could not check a value.
func Take[A any](ctx context.Context, r Round, key string, request func(Problems) Pending, decode Decoder[A], pending *[]Pending) (*A, vocab.Edge, error) {
	q := r.Request(key)
	if q == nil {
		return nil, "", fmt.Errorf("%w: no input request %q", ErrUnknownState, key)
	}
	ask := func(p Pending) {
		if !q.Optional || r.Can(q.Kind) {
			*pending = append(*pending, p)
		}
	}
	resp := r.Response(q.Key, q.Kind)
	switch resp.Status {
	case accepted:
		answer, problems, err := decode(ctx, resp)
		switch {
		case err != nil:
			return nil, "", err
		case len(problems) == 0:
			return answer, "", nil
		case q.Kind == vocab.Elicit:
			ask(withPrefill(request(problems), resp.Content, problems, q.Sensitive...))
		default:
			ask(request(problems))
		}
	case declined, cancelled:
		if q.Kind.Elicitation() {
			if resp.Status == declined {
				return nil, vocab.Decline, nil
			}
			return nil, vocab.Cancel, nil
		}
		ask(request(nil))
	case malformed:
		ask(request(Problems{resp.Problem}))
	default:
		ask(request(nil))
	}
	return nil, "", nil
}

// Confirm reads this round's answer to confirmation gate key, whose form has
// the one boolean field: vocab.Next when the user accepted the question
// shown with field set to true,
// vocab.Decline when they answered false or declined, vocab.Cancel when
// they cancelled. Otherwise (no answer yet, a malformed one, a form without
// its boolean) it returns "" and the request to ask, saying what was wrong.
func (Export) Confirm(r Round, key, field string, request func(Problems) Pending) (vocab.Edge, Pending) {
	return gateAnswer(r, key, request, func(content map[string]any) (vocab.Edge, Pending) {
		yes, found := X.FormBool(content, field)
		switch {
		case found != Present:
			return "", request(Problems{problem.NotABoolean(field)})
		case yes:
			return vocab.Next, Pending{}
		}
		return vocab.Decline, Pending{}
	})
}

// gateAnswer reads this round's answer to confirmation gate key (Confirm,
// ConfirmTyped): onAccept's reading of an accepted form; vocab.Decline
// when the user declined, vocab.Cancel when they cancelled; otherwise ""
// and the request to ask, saying what was wrong with a malformed answer.
func gateAnswer(r Round, key string, request func(Problems) Pending, onAccept func(content map[string]any) (vocab.Edge, Pending)) (vocab.Edge, Pending) {
	resp := r.Response(key, vocab.Elicit)
	switch resp.Status {
	case accepted:
		return onAccept(resp.Content)
	case declined:
		return vocab.Decline, Pending{}
	case cancelled:
		return vocab.Cancel, Pending{}
	case malformed:
		return "", request(Problems{resp.Problem})
	}
	return "", request(nil)
}

// URLValue escapes a value rendered into the url of a URL-mode
// elicitation: everything but unreserved characters is percent-encoded
// (a space as %20), so the value stays one path segment or one query
// value, wherever the template puts it.
func (Export) URLValue(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}
