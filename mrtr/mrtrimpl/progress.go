package mrtrimpl

import (
	"context"
	"errors"
	"sync"
)

// ErrProgressDone is what Progress.Report returns once the request it
// belongs to has been answered: progress never outlives its request, nor
// reaches another one.
var ErrProgressDone = errors.New("mrtr: progress reported after its request was answered")

// ErrProgressBackwards is what Progress.Report returns for a value below
// the last one sent: MCP progress only increases.
var ErrProgressBackwards = errors.New("mrtr: progress went backwards")

// ProgressSink sends one notifications/progress of the request a Progress
// belongs to (its token is the sink's own).
type ProgressSink func(ctx context.Context, progress, total float64, message string) error

// Progress reports the progress of one request (one round of a workflow)
// on that request's progressToken. The handler methods of states that
// declare progress get it; it is safe for concurrent use. A nil Progress,
// or one of a request without a token, sends nothing.
type Progress struct {
	mu   sync.Mutex
	sink ProgressSink // nil: the request has no token
	done bool
	sent bool
	last float64
}

// NewProgress returns the reporter of one request that sends through sink
// (nil: the request has no progressToken), and the function that ends it
// once the request is answered.
func NewProgress(sink ProgressSink) (p *Progress, end func()) {
	p = &Progress{sink: sink}
	return p, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.done = true
	}
}

// Report sends progress (of total, 0 when unknown) with an optional message
// for the user. It returns ErrProgressDone after the request was answered,
// ErrProgressBackwards for a value below the last one, and the transport's
// error when the notification could not be sent; a value equal to the last
// one is not sent again. Progress is advisory: a handler may ignore these
// errors.
func (p *Progress) Report(ctx context.Context, progress, total float64, message string) error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.done:
		return ErrProgressDone
	case p.sink == nil:
		return nil
	case p.sent && progress < p.last:
		return ErrProgressBackwards
	case p.sent && progress == p.last:
		return nil
	}
	// Under the lock: notifications of one request go out in order.
	if err := p.sink(ctx, progress, total, message); err != nil {
		return err
	}
	p.sent, p.last = true, progress
	return nil
}

type progressKey struct{}

// WithProgress returns ctx carrying p, the reporter of the request ctx
// belongs to.
func WithProgress(ctx context.Context, p *Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// ProgressOf returns the reporter of the request ctx belongs to, or nil
// (which sends nothing). Generated code passes it to the handler methods
// of states that declare progress.
func ProgressOf(ctx context.Context) *Progress {
	p, _ := ctx.Value(progressKey{}).(*Progress)
	return p
}
