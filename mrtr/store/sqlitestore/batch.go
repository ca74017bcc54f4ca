package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

var _ store.Batcher = (*Store)(nil)

// Apply implements store.Batcher: the whole batch is one write of a group
// (groupcommit.go), so it is atomic across processes (BEGIN IMMEDIATE on
// the write connection, its own savepoint) and shares one commit (one
// fsync of the WAL with synchronous(FULL)) with the writes queued beside
// it, instead of one commit per operation.
func (s *Store) Apply(ctx context.Context, ops []store.Op) ([]store.OpResult, error) {
	if err := store.ValidateOps(ops); err != nil {
		return nil, err
	}
	results := make([]store.OpResult, len(ops))
	err := s.inWriteTx(ctx, "batch", func(ctx context.Context, tx *sql.Tx) error {
		var gate store.BatchGate
		for i, op := range ops {
			if gate.Skip(op) {
				results[i].Skipped = true
				continue
			}
			if err := s.applyOp(ctx, tx, op, &results[i]); err != nil {
				return err
			}
			if op.Kind == store.OpClaim {
				gate.Claimed(results[i].Claim)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// applyOp runs one op of a batch inside tx.
func (s *Store) applyOp(ctx context.Context, tx *sql.Tx, op store.Op, res *store.OpResult) error {
	var err error
	switch op.Kind {
	case store.OpClaim:
		res.Claim, err = s.claim(ctx, tx, op.Claim)
	case store.OpComplete:
		err = s.complete(ctx, tx, op.Key, op.Owner, op.Result, op.Retain)
		if errors.Is(err, store.ErrLeaseLost) {
			res.Err, err = err, nil
		}
	case store.OpRelease:
		_, err = tx.StmtContext(ctx, s.st.release).ExecContext(ctx, op.Key, op.Owner)
		err = wrap("release", err)
	case store.OpPutState:
		err = s.putState(ctx, tx, op.State, op.TTL)
	case store.OpGetState:
		if !store.ValidRef(op.Ref) {
			res.Err = store.ErrNotFound
			return nil
		}
		rec := store.StateRecord{Ref: op.Ref}
		err = tx.StmtContext(ctx, s.st.getStateW).QueryRowContext(ctx, op.Ref, s.now()).
			Scan(&rec.Workflow, &rec.Subject, &rec.Principal, &rec.Data)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			res.Err, err = store.ErrNotFound, nil
		case err == nil:
			rec.Data = nonNil(rec.Data)
			res.State = rec
		default:
			err = wrap("get state", err)
		}
	case store.OpDeleteWorkflowStates:
		_, err = tx.StmtContext(ctx, s.st.deleteWorkflow).ExecContext(ctx, op.Workflow)
		err = wrap("delete workflow states", err)
	}
	return err
}
