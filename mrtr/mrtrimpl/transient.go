package mrtrimpl

import "context"

// Transients is implemented by a generated program whose spec declares
// transient values (continuation.transient): values only templates show,
// computed by a handler method before each render and never carried. The
// engine calls RenderTransient for the state a resumed round starts in
// before it renders that state's questions to pin the answers to them, so
// the questions it compares are the ones the user would be sent now. An
// error fails the round as a dependency failure.
type Transients[F any] interface {
	RenderTransient(ctx context.Context, f F, s uint16) error
}
