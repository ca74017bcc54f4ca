package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// EffectTx returns the transaction of the effect method running with ctx,
// beginning it on the first call: write the effect's own rows with it (in
// the store's database), and the engine commits them together with the
// effect's record after the method returns, or rolls them back when it
// fails. A crash can then never split the two: exactly once for what the
// transaction covers. Do not commit or roll it back yourself.
//
// It fails with store.ErrNoEffectTx outside an effect method, and when the
// engine's store is not a pgstore.Store.
func EffectTx(ctx context.Context) (pgx.Tx, error) {
	et, err := store.EffectTxOf[*effectTx](ctx, "PostgreSQL")
	if err != nil {
		return nil, err
	}
	return et.tx, nil
}

// BeginEffectTx implements store.TxBeginner.
func (s *Store) BeginEffectTx(ctx context.Context) (store.EffectTx, error) {
	if err := s.begin(ctx, nil); err != nil {
		return nil, err
	}
	tx, err := s.pool.Begin(context.WithoutCancel(ctx))
	if err != nil {
		return nil, wrap("begin effect transaction", err)
	}
	return &effectTx{s: s, tx: tx}, nil
}

type effectTx struct {
	s  *Store
	tx pgx.Tx
}

func (t *effectTx) Complete(ctx context.Context, key, owner string, result []byte, retain time.Duration) error {
	if err := store.ValidateComplete(key, owner, retain); err != nil {
		return err
	}
	return t.s.complete(ctx, t.tx, key, owner, result, retain)
}

func (t *effectTx) PutState(ctx context.Context, rec store.StateRecord, ttl time.Duration) error {
	if err := store.ValidateState(rec, ttl); err != nil {
		return err
	}
	return t.s.putState(ctx, t.tx, rec, ttl)
}

func (t *effectTx) Commit(ctx context.Context) error { return wrap("commit effect", t.tx.Commit(ctx)) }

func (t *effectTx) Rollback(ctx context.Context) error {
	if err := t.tx.Rollback(ctx); err != nil && !errors.Is(err, pgx.ErrTxClosed) {
		return wrap("roll back effect", err)
	}
	return nil
}
