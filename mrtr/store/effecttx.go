package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Transactional effects. An effect whose own writes go to the same SQL
// database as the store can commit them together with its effect record:
// then a crash can never split them. Either both are committed (a retry
// replays the effect) or neither is (the database rolls the transaction
// back with the dead connection, and the retry that takes the claim over
// runs the effect for the first time, as far as the database can tell).
// That is exactly once for what the transaction covers.
//
// The engine opens an EffectScope around every effect method; the method
// asks its store package for the transaction (pgstore.EffectTx,
// sqlitestore.EffectTx), which begins it on first use. After the method
// returns, the engine completes the effect record in that transaction and
// commits, or rolls back when the method failed.

// EffectTx is a database transaction an effect's writes and its record
// share.
type EffectTx interface {
	// Complete is Store.Complete inside the transaction.
	Complete(ctx context.Context, key, owner string, result []byte, retain time.Duration) error
	// PutState is Store.PutState inside the transaction.
	PutState(ctx context.Context, rec StateRecord, ttl time.Duration) error
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// TxBeginner is implemented by stores that can begin an EffectTx
// (pgstore, sqlitestore; not Redis or memory).
type TxBeginner interface {
	BeginEffectTx(ctx context.Context) (EffectTx, error)
}

// ErrNoEffectTx is returned when an effect asks for a transaction outside an
// effect method, or with an engine whose store cannot begin one.
var ErrNoEffectTx = errors.New("store: no effect transaction here (only inside an effect method, with a SQL store)")

// EffectScope holds the transaction of one effect method, begun lazily.
type EffectScope struct {
	begin func(context.Context) (EffectTx, error)

	mu  sync.Mutex
	tx  EffectTx
	err error
}

// NewEffectScope returns a scope whose transaction s begins; s may be nil
// or not a TxBeginner (then asking for the transaction fails).
func NewEffectScope(s Store) *EffectScope {
	sc := &EffectScope{}
	if b, ok := s.(TxBeginner); ok {
		sc.begin = b.BeginEffectTx
	}
	return sc
}

// Tx returns the transaction begun in the scope, or nil.
func (sc *EffectScope) Tx() EffectTx {
	if sc == nil {
		return nil
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.tx
}

type scopeKey struct{}

// WithEffectScope returns ctx carrying sc.
func WithEffectScope(ctx context.Context, sc *EffectScope) context.Context {
	return context.WithValue(ctx, scopeKey{}, sc)
}

// BeginEffectTx returns the transaction of the effect running with ctx,
// beginning it on the first call. Store packages wrap it with their typed
// accessor.
func BeginEffectTx(ctx context.Context) (EffectTx, error) {
	sc, _ := ctx.Value(scopeKey{}).(*EffectScope)
	if sc == nil || sc.begin == nil {
		return nil, ErrNoEffectTx
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.tx == nil && sc.err == nil {
		sc.tx, sc.err = sc.begin(ctx)
	}
	return sc.tx, sc.err
}

// EffectTxOf is BeginEffectTx for a store package's own transaction type:
// it fails with ErrNoEffectTx when the engine's store is another kind
// (named by backend in the message).
func EffectTxOf[E EffectTx](ctx context.Context, backend string) (E, error) {
	var zero E
	tx, err := BeginEffectTx(ctx)
	if err != nil {
		return zero, err
	}
	e, ok := tx.(E)
	if !ok {
		return zero, fmt.Errorf("%w: the engine's store is not %s", ErrNoEffectTx, backend)
	}
	return e, nil
}
