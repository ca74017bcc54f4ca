package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Batches. Apply sends every statement of a batch in one pipeline (one
// write, one Sync): PostgreSQL runs them as one implicit transaction, so
// the batch is atomic, and each statement sees what the ones before it did.
// An IfAcquired op needs the outcome of the claims before it, which the
// client only learns from the reply: the claims record it on the server
// instead, in a transaction-local setting (set_config(…, true), gone when
// the transaction ends) that closes the gate for the rest of the batch
// when a claim is not acquired. Every statement returns one row, whose
// first column says whether it ran.
//
// A claim that meets a concurrent insert of its key gets no stable answer
// from its statement's snapshot (see Claim): then the ops still undecided
// (that claim and the ops it gates) are sent again, in a new transaction.
// Only that contended path takes more than one round trip, and only it is
// not atomic as a whole.

var _ store.Batcher = (*Store)(nil)

// gateSetting is the transaction-local setting of a batch's gate.
const gateSetting = "mrtr.batch_gate"

type batchQueries struct {
	claim, complete, release, putState, getState, deleteWorkflow string
}

// gate is a CTE: whether the statement runs. $n is its IfAcquired flag.
func gate(n int) string {
	return fmt.Sprintf(`g AS (SELECT NOT $%d::bool OR coalesce(current_setting('%s', true), '') <> 'closed' AS open)`, n, gateSetting)
}

func newBatchQueries(p string) batchQueries {
	ops, states := p+"ops", p+"states"
	return batchQueries{
		// $1 key, $2 fingerprint, $3 owner, $4 now, $5 lease expiry,
		// $6 record expiry, $7 IfAcquired. The claim statement of Claim,
		// made conditional, with its outcome closing the gate.
		claim: `WITH ` + gate(7) + `,
` + claimed(ops, `SELECT $1::text, $2::bytea, $3::text, false, $5::timestamptz, $6::timestamptz, NULL FROM g WHERE g.open`) + `,
found AS (
	SELECT true AS acquired, false AS done, false AS same_fp, false AS same_owner,
		NULL::timestamptz AS lease_expires, NULL::timestamptz AS expires_at, NULL::bytea AS result, taken_over
	FROM claimed
	UNION ALL
	SELECT false, o.done, o.fingerprint = $2, o.owner = $3, o.lease_expires, o.expires_at,
		CASE WHEN o.done AND o.fingerprint = $2 THEN o.result END, false
	FROM ` + ops + ` o, g WHERE g.open AND o.op_key = $1 AND NOT EXISTS (SELECT 1 FROM claimed)
)
SELECT g.open, f.acquired, f.done, f.same_fp, f.same_owner, f.lease_expires, f.expires_at, f.result, f.taken_over,
	set_config('` + gateSetting + `', CASE WHEN g.open AND coalesce(f.acquired, false)
		THEN coalesce(current_setting('` + gateSetting + `', true), '') ELSE 'closed' END, true)
FROM g LEFT JOIN found f ON true`,
		// $1 key, $2 owner, $3 result, $4 now, $5 expiry, $6 IfAcquired.
		// Complete and its check of a repeated Complete in one statement:
		// the second EXISTS reads the snapshot from before the UPDATE.
		complete: `WITH ` + gate(6) + `,
u AS (
	UPDATE ` + ops + ` o SET done = true, result = $3, lease_expires = NULL, expires_at = $5
	FROM g WHERE g.open AND o.op_key = $1 AND o.owner = $2 AND NOT o.done AND o.expires_at > $4
	RETURNING 1
)
SELECT g.open, EXISTS (SELECT 1 FROM u)
	OR EXISTS (SELECT 1 FROM ` + ops + ` o WHERE o.op_key = $1 AND o.owner = $2 AND o.done AND o.expires_at > $4)
FROM g`,
		// $1 key, $2 owner, $3 IfAcquired.
		release: `WITH ` + gate(3) + `,
d AS (DELETE FROM ` + ops + ` o USING g WHERE g.open AND o.op_key = $1 AND o.owner = $2 AND NOT o.done RETURNING 1)
SELECT g.open, (SELECT count(*) FROM d) FROM g`,
		// $1 ref … $6 expiry, $7 IfAcquired.
		putState: `WITH ` + gate(7) + `,
p AS (
	INSERT INTO ` + states + ` (ref, workflow, subject, principal, data, expires_at)
	SELECT $1::text, $2::text, $3::text, $4::text, $5::bytea, $6::timestamptz FROM g WHERE g.open
	ON CONFLICT (ref) DO UPDATE SET workflow = excluded.workflow, subject = excluded.subject,
		principal = excluded.principal, data = excluded.data, expires_at = excluded.expires_at
	RETURNING 1
)
SELECT g.open, (SELECT count(*) FROM p) FROM g`,
		// $1 ref, $2 now, $3 IfAcquired.
		getState: `WITH ` + gate(3) + `
SELECT g.open, s.ref IS NOT NULL, s.workflow, s.subject, s.principal, s.data
FROM g LEFT JOIN ` + states + ` s ON g.open AND s.ref = $1 AND s.expires_at > $2`,
		// $1 workflow, $2 IfAcquired.
		deleteWorkflow: `WITH ` + gate(2) + `,
d AS (DELETE FROM ` + states + ` s USING g WHERE g.open AND s.workflow = $1 RETURNING 1)
SELECT g.open, (SELECT count(*) FROM d) FROM g`,
	}
}

// Apply implements store.Batcher.
func (s *Store) Apply(ctx context.Context, ops []store.Op) ([]store.OpResult, error) {
	if err := s.begin(ctx, store.ValidateOps(ops)); err != nil {
		return nil, err
	}
	results := make([]store.OpResult, len(ops))
	decided := make([]bool, len(ops))
	for i, op := range ops {
		if op.Kind == store.OpGetState && !store.ValidRef(op.Ref) {
			// Like GetState: no record could have this ref; not sent.
			results[i].Err, decided[i] = store.ErrNotFound, true
		}
	}
	for range claimRetries {
		pending, err := s.applyOnce(ctx, ops, results, decided)
		if err != nil {
			return results[:decidedPrefix(decided)], err
		}
		if pending == 0 {
			return results, nil
		}
	}
	return results[:decidedPrefix(decided)], fmt.Errorf("pgstore: batch: no stable answer after %d attempts under contention", claimRetries)
}

func decidedPrefix(decided []bool) int {
	for i, d := range decided {
		if !d {
			return i
		}
	}
	return len(decided)
}

// applyOnce sends the undecided ops in one pipeline and decides what it
// can from the replies. It returns how many ops remain undecided.
func (s *Store) applyOnce(ctx context.Context, ops []store.Op, results []store.OpResult, decided []bool) (int, error) {
	now := s.opts.Now()
	b := &pgx.Batch{}
	var sent []int
	for i, op := range ops {
		if decided[i] {
			continue
		}
		sent = append(sent, i)
		s.queueOp(b, op, now)
	}
	if len(sent) == 0 {
		return 0, nil
	}
	br := s.pool.SendBatch(ctx, b)
	// closed: a claim before this op was decided not acquired (so the gate
	// stays closed whatever happens); unsure: one is undecided.
	closed, unsure, pending := false, false, 0
	for _, i := range sent {
		op := ops[i]
		res, ran, ok, err := s.scanOp(br, op, now)
		if err != nil {
			_ = br.Close()
			return 0, wrap("batch "+op.Kind.String(), err)
		}
		switch {
		case !ran && !closed && unsure:
			// Skipped because of an undecided claim: undecided too.
			ok = false
			res = store.OpResult{}
		case !ran:
			res, ok = store.OpResult{Skipped: true}, true
		}
		if op.Kind == store.OpClaim {
			switch {
			case !ok:
				unsure = true
			case res.Skipped || res.Claim.Status != store.Acquired:
				closed = true
			}
		}
		if ok {
			results[i], decided[i] = res, true
		} else {
			pending++
		}
	}
	if err := br.Close(); err != nil {
		return 0, wrap("batch", err)
	}
	return pending, nil
}

// queueOp adds the statement of op to b.
func (s *Store) queueOp(b *pgx.Batch, op store.Op, now time.Time) {
	q := s.bq
	switch op.Kind {
	case store.OpClaim:
		lease := now.Add(op.Claim.Lease)
		b.Queue(q.claim, op.Claim.Key, op.Claim.Fingerprint, op.Claim.Owner, now, lease, lease.Add(s.opts.AbandonAfter), op.IfAcquired)
	case store.OpComplete:
		b.Queue(q.complete, op.Key, op.Owner, nonNil(op.Result), now, now.Add(op.Retain), op.IfAcquired)
	case store.OpRelease:
		b.Queue(q.release, op.Key, op.Owner, op.IfAcquired)
	case store.OpPutState:
		rec := op.State
		b.Queue(q.putState, rec.Ref, rec.Workflow, rec.Subject, rec.Principal, nonNil(rec.Data), now.Add(op.TTL), op.IfAcquired)
	case store.OpGetState:
		b.Queue(q.getState, op.Ref, now, op.IfAcquired)
	case store.OpDeleteWorkflowStates:
		b.Queue(q.deleteWorkflow, op.Workflow, op.IfAcquired)
	}
}

// scanOp reads the reply to op's statement: whether it ran, its result,
// and whether that result is final (a claim whose snapshot missed a
// concurrent change is not).
func (s *Store) scanOp(br pgx.BatchResults, op store.Op, now time.Time) (res store.OpResult, ran, ok bool, err error) {
	row := br.QueryRow()
	switch op.Kind {
	case store.OpClaim:
		var (
			acquired, done, sameFP, sameOwner, takeover *bool
			leaseExpires, expiresAt                     *time.Time
			result                                      []byte
			setting                                     string
		)
		if err := row.Scan(&ran, &acquired, &done, &sameFP, &sameOwner, &leaseExpires, &expiresAt, &result, &takeover, &setting); err != nil {
			return res, false, false, err
		}
		if !ran {
			return res, false, true, nil
		}
		res.Claim, ok = claimOutcome(now, acquired, done, sameFP, sameOwner, takeover, leaseExpires, expiresAt, result)
		return res, true, ok, nil
	case store.OpComplete:
		var completed bool
		if err := row.Scan(&ran, &completed); err != nil {
			return res, false, false, err
		}
		if ran && !completed {
			res.Err = store.ErrLeaseLost
		}
		return res, ran, true, nil
	case store.OpGetState:
		var found bool
		var wf, sub, pr *string
		var data []byte
		if err := row.Scan(&ran, &found, &wf, &sub, &pr, &data); err != nil {
			return res, false, false, err
		}
		if ran && !found {
			res.Err = store.ErrNotFound
		}
		if ran && found {
			res.State = store.StateRecord{Ref: op.Ref, Workflow: *wf, Subject: *sub, Principal: *pr, Data: nonNil(data)}
		}
		return res, ran, true, nil
	default: // release, put state, delete workflow states
		var n int64
		if err := row.Scan(&ran, &n); err != nil {
			return res, false, false, err
		}
		return res, ran, true, nil
	}
}

// claimOutcome is Claim's decision on the row its statement returned; ok
// is false when the snapshot was stale and the claim must be sent again.
func claimOutcome(now time.Time, acquired, done, sameFP, sameOwner, takeover *bool, leaseExpires, expiresAt *time.Time, result []byte) (store.ClaimResult, bool) {
	is := func(b *bool) bool { return b != nil && *b }
	switch {
	case acquired == nil:
		return store.ClaimResult{}, false // a concurrent insert our snapshot does not show yet
	case is(acquired):
		return store.ClaimResult{Status: store.Acquired, Takeover: is(takeover)}, true
	case expiresAt == nil || !now.Before(*expiresAt):
		return store.ClaimResult{}, false // stale snapshot of a row that is dead by now
	case !is(sameFP):
		return store.ClaimResult{Status: store.Mismatch}, true
	case is(done):
		return store.ClaimResult{Status: store.Replayed, Result: nonNil(result)}, true
	case leaseExpires != nil && now.Before(*leaseExpires) && !is(sameOwner):
		return store.ClaimResult{Status: store.InFlight, LeaseExpires: *leaseExpires}, true
	}
	return store.ClaimResult{}, false // stale snapshot of a claim we could have taken
}

// nonNil is b, or an empty slice for nil: a nil []byte would be NULL
// (and a NULL read back would be a nil result).
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
