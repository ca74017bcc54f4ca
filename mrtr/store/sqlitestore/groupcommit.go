package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Group commit.
//
// Every write (Claim, Complete, Release, PutState, DeleteWorkflowStates,
// Apply) is handed to one writer goroutine, which owns the write path. It
// takes the first write waiting, begins a BEGIN IMMEDIATE transaction, and
// runs in it that write and every other write queued behind it meanwhile
// (up to maxGroup), each after the first inside its own savepoint, then
// commits them all with one COMMIT: one fsync of the WAL (synchronous=FULL) for the group
// instead of one per write. Under concurrent load the commit, not the
// statements, is what a write waits for, so this is where the throughput
// and the tail latency come from.
//
// What each caller is guaranteed is unchanged:
//   - A write returns nil only after the COMMIT that contains it returned:
//     it is as durable as a write committed alone.
//   - A write that fails is rolled back to its savepoint, so it leaves
//     nothing behind and does not affect the others in its group; the
//     caller gets its own error.
//   - If the transaction itself is lost (the COMMIT fails, or SQLite
//     rolled the whole transaction back on an I/O error), every write of
//     the group that had not failed on its own gets that error: none of
//     them was committed.
//   - The writes of a group run one after another on one connection that
//     holds the database's write lock: a claim reads and writes its row
//     atomically, and a write sees the writes before it in the group, as
//     if each had committed alone in that order.
//
// A caller may give up (its context ends) while its write is still
// queued: the write is then never run. Once the writer has taken a write,
// it runs to its outcome whatever happens to the caller's context (a
// statement interrupted halfway would roll back the whole group's
// transaction), and the caller waits for that outcome, which takes at
// most the group's statements and one COMMIT. The exception is the first
// write of a group, whose context also bounds the wait for the write lock
// (BEGIN IMMEDIATE waits while another process holds it).

// maxGroup bounds how many writes one transaction carries, so that one
// group's COMMIT does not wait on an unbounded amount of work. (Tests set
// Store.maxGroup to 1 to measure a commit per write.)
const maxGroup = 64

// errClosed is what a write queued on, or sent to, a closed store gets.
var errClosed = errors.New("sqlitestore: store is closed")

// A write is one caller's unit of work in a group: run does its statements
// inside tx and reports the caller's own failure.
type write struct {
	ctx  context.Context
	what string // for errors: "claim", "complete", ...
	run  func(ctx context.Context, tx *sql.Tx) error
	done chan error // buffered; receives the outcome once
}

// inWriteTx runs run inside the writer's transaction and returns once its
// outcome is known: nil only after the transaction that holds its writes
// has committed.
func (s *Store) inWriteTx(ctx context.Context, what string, run func(ctx context.Context, tx *sql.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w := &write{ctx: ctx, what: what, run: run, done: make(chan error, 1)}
	select {
	case s.writes <- w:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.closing:
		return errClosed
	}
	return <-w.done
}

// writeLoop is the writer goroutine: one group at a time until Close.
func (s *Store) writeLoop() {
	defer close(s.writerDone)
	for {
		select {
		case w := <-s.writes:
			s.commitGroup(w)
		case <-s.closing:
			return
		}
	}
}

// commitGroup runs first and the writes queued behind it in one
// transaction and tells each its outcome.
func (s *Store) commitGroup(first *write) {
	// The transaction lives on a context of its own: database/sql rolls a
	// transaction back when its context ends, and the group must not end
	// with its first caller. The first caller's context still bounds the
	// wait for the write lock.
	groupCtx, cancel := context.WithCancel(context.WithoutCancel(first.ctx))
	defer cancel()
	stop := context.AfterFunc(first.ctx, cancel)
	tx, err := s.w.BeginTx(groupCtx, nil) // BEGIN IMMEDIATE: holds the write lock
	if !stop() {
		// first's context ended while the transaction began: BeginTx
		// failed, or database/sql is rolling the transaction back.
		if err == nil {
			tx.Rollback()
		}
		first.done <- first.ctx.Err()
		return
	}
	if err != nil {
		first.done <- wrap(first.what, err)
		return
	}

	// The first write needs no savepoint: when it fails, the transaction
	// holds nothing else, and is rolled back whole. The writes queued
	// meanwhile wait for the next group.
	if err := first.run(groupCtx, tx); err != nil {
		tx.Rollback()
		first.done <- err
		return
	}
	group := []*write{first}
	outcomes := []error{nil}
	for i := 0; i < len(group); i++ {
		if i > 0 {
			if err := s.runInSavepoint(groupCtx, tx, group[i]); err != nil {
				var lost *lostTxError
				if errors.As(err, &lost) {
					tx.Rollback()
					outcomes[i] = lost.cause
					s.finishGroup(group, outcomes, lost.err)
					return
				}
				outcomes[i] = err
			}
		}
		if i+1 == len(group) && len(group) < s.maxGroup {
			select {
			case next := <-s.writes:
				group = append(group, next)
				outcomes = append(outcomes, nil)
			default:
			}
		}
	}
	err = wrap("commit", tx.Commit())
	if err == nil {
		s.groupsCommitted.Add(1)
	}
	s.finishGroup(group, outcomes, err)
}

// finishGroup tells each write of group its outcome: its own error if it
// failed, else txErr (nil when the group committed).
func (s *Store) finishGroup(group []*write, outcomes []error, txErr error) {
	for i, w := range group {
		if outcomes[i] == nil {
			outcomes[i] = txErr
		}
		w.done <- outcomes[i]
	}
}

// lostTxError is a write's failure after which the group's transaction is
// gone (SQLite rolled it back, or a savepoint could not be undone): err is
// what the other writes of the group get, cause what the write itself got.
type lostTxError struct{ cause, err error }

func (e *lostTxError) Error() string { return e.err.Error() }

// runInSavepoint runs w inside tx within a savepoint, rolled back when w
// fails, so that a failed write leaves nothing behind.
func (s *Store) runInSavepoint(ctx context.Context, tx *sql.Tx, w *write) error {
	if err := w.ctx.Err(); err != nil {
		return err // gave up while queued; nothing run
	}
	if _, err := tx.StmtContext(ctx, s.st.savepoint).ExecContext(ctx); err != nil {
		err = wrap(w.what, err)
		return &lostTxError{cause: err, err: err}
	}
	runErr := w.run(ctx, tx)
	if runErr == nil {
		if _, err := tx.StmtContext(ctx, s.st.releaseSavepoint).ExecContext(ctx); err != nil {
			err = wrap(w.what, err)
			return &lostTxError{cause: err, err: err}
		}
		return nil
	}
	// ROLLBACK TO fails when SQLite has already rolled the whole
	// transaction back (it does on some I/O and memory errors): then no
	// write of the group survives.
	if _, err := tx.StmtContext(ctx, s.st.rollbackSavepoint).ExecContext(ctx); err != nil {
		return &lostTxError{cause: runErr, err: fmt.Errorf("sqlitestore: transaction lost after a failed %s (%w): %w", w.what, runErr, err)}
	}
	if _, err := tx.StmtContext(ctx, s.st.releaseSavepoint).ExecContext(ctx); err != nil {
		err = wrap(w.what, err)
		return &lostTxError{cause: runErr, err: err}
	}
	return runErr
}
