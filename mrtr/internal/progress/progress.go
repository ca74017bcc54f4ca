// Package progress is the progress reporter of one request: mrtr names it
// (mrtr.Progress and its errors, what handler authors see) and mrtrimpl
// hands it to generated code (mrtrimpl.Of); it lives here so that
// neither package exports it twice.
package progress

import (
	"context"
	"errors"
	"sync"
)

// ErrDone is what Reporter.Report returns once the request it
// belongs to has been answered: progress never outlives its request, nor
// reaches another one.
var ErrDone = errors.New("mrtr: progress reported after its request was answered")

// ErrBackwards is what Reporter.Report returns for a value below
// the last one sent: MCP progress only increases.
var ErrBackwards = errors.New("mrtr: progress went backwards")

// Sink sends one notifications/progress of the request a Reporter
// belongs to (its token is the sink's own).
type Sink func(ctx context.Context, progress, total float64, message string) error

// Reporter reports the progress of one request (one round of a workflow)
// on that request's progressToken. The handler methods of states that
// declare progress get it; it is safe for concurrent use. A nil Reporter,
// or one of a request without a token, sends nothing.
type Reporter struct {
	mu   sync.Mutex
	sink Sink // nil: the request has no token
	done bool
	sent bool
	last float64
}

// New returns the reporter of one request that sends through sink
// (nil: the request has no progressToken), and the function that ends it
// once the request is answered.
func New(sink Sink) (p *Reporter, end func()) {
	p = &Reporter{sink: sink}
	return p, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.done = true
	}
}

// Report sends progress (of total, 0 when unknown) with an optional message
// for the user. It returns ErrDone after the request was answered,
// ErrBackwards for a value below the last one, and the transport's
// error when the notification could not be sent; a value equal to the last
// one is not sent again. Progress is advisory: a handler may ignore these
// errors.
func (p *Reporter) Report(ctx context.Context, progress, total float64, message string) error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.done:
		return ErrDone
	case p.sink == nil:
		return nil
	case p.sent && progress < p.last:
		return ErrBackwards
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

// With returns ctx carrying p, the reporter of the request ctx
// belongs to.
func With(ctx context.Context, p *Reporter) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// Of returns the reporter of the request ctx belongs to, or nil
// (which sends nothing). Generated code passes it to the handler methods
// of states that declare progress.
func Of(ctx context.Context) *Reporter {
	p, _ := ctx.Value(progressKey{}).(*Reporter)
	return p
}
