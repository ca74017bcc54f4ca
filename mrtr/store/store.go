// Package store defines the durable state a multi-round tool needs between
// rounds and across server instances: idempotency records for side effects,
// and server-side continuation data for workflows whose state is too
// sensitive to travel in a sealed token.
//
// Implementations live in sub-packages (memory here, sqlitestore,
// pgstore, redisstore) and all pass the same conformance suite in
// storetest. A store may also apply several operations in one round trip
// (Batcher, batch.go); the engine sends every round's operations that way,
// and falls back to one call per operation for a store that cannot.
package store

import (
	"context"
	"errors"
	"time"
)

// ClaimStatus is the outcome of [Store.Claim].
type ClaimStatus int

const (
	// Acquired: no live record existed (or the same operation's lease had
	// lapsed and the caller took it over, or the caller already held the
	// claim and its lease was renewed); the caller now holds a pending claim
	// with a lease and must perform the effect, then Complete or Release.
	Acquired ClaimStatus = iota + 1
	// Replayed: the operation already completed with the same fingerprint;
	// ClaimResult.Result holds the stored result (non-nil, possibly empty).
	// The effect must not run again.
	Replayed
	// InFlight: another owner holds a live lease on the operation. Retry
	// later (or wait until ClaimResult.LeaseExpires).
	InFlight
	// Mismatch: a record exists for the key with a different fingerprint,
	// pending (even with a lapsed lease, until it is abandoned: see
	// Options.AbandonAfter) or completed (until its retention ends). The same
	// operation id was reused for a different operation (or by a different
	// workflow); the effect must not run and no result is returned.
	Mismatch
)

func (s ClaimStatus) String() string {
	switch s {
	case Acquired:
		return "acquired"
	case Replayed:
		return "replayed"
	case InFlight:
		return "in-flight"
	case Mismatch:
		return "mismatch"
	}
	return "unknown"
}

// ClaimRequest asks for the right to perform one side effect.
type ClaimRequest struct {
	// Key is the operation id, already namespaced by the caller
	// (for example "close_support_ticket/ticket-12345"). Keys, owners, refs
	// and workflow ids are text: valid UTF-8, no NUL, at most MaxIDLen bytes.
	Key string
	// Fingerprint identifies what the operation is: a digest of the tool,
	// workflow id, arguments and state it runs with. Same key with another
	// fingerprint is a Mismatch, never a replay. Must not be empty.
	Fingerprint []byte
	// Owner is a random id of this claimant (one per attempt); only the
	// owner may Complete or Release the pending claim. A Claim by the owner
	// of a live pending claim (a retry whose reply was lost) is Acquired
	// again with a renewed lease.
	Owner string
	// Lease is how long a pending claim blocks others. After it lapses,
	// another claimant of the same operation (same fingerprint) may take it
	// over (at-least-once for effects that crash mid-way). Must be positive;
	// the shared stores keep millisecond precision.
	Lease time.Duration
}

// ClaimResult reports what Claim found.
type ClaimResult struct {
	Status ClaimStatus
	// Result is the stored result when Status is Replayed.
	Result []byte
	// LeaseExpires is when the live lease ends when Status is InFlight.
	LeaseExpires time.Time
	// Takeover is set with Acquired when the caller took over a pending
	// claim of another owner whose lease had lapsed: an earlier attempt
	// started the operation and never recorded an outcome (its process
	// died, or lost the store), so the effect may already have happened.
	// A fresh claim, or the same owner renewing its own, is not a takeover.
	Takeover bool
}

// StateRecord is continuation data kept server-side and referenced from a
// sealed token by an unguessable Ref.
type StateRecord struct {
	Ref       string // random reference (at least 128 bits, encoded)
	Workflow  string // workflow id the data belongs to
	Subject   string // tool or prompt the data belongs to ("tools/call:close_ticket")
	Principal string // salted hash of the principal, never the raw identity
	Data      []byte
}

// Store is the durable state shared by every instance of a server.
// All methods are safe for concurrent use.
type Store interface {
	// Claim atomically inserts a pending record for req.Key if none is live,
	// or reports the existing record's status. Records past their retention
	// and abandoned claims count as absent, swept or not.
	Claim(ctx context.Context, req ClaimRequest) (ClaimResult, error)
	// Complete turns the owner's pending claim into a completed record
	// holding result, retained for retain from now (then it is gone: a
	// later Claim is Acquired). It fails with ErrLeaseLost when the claim is
	// no longer the owner's (taken over, released, abandoned, never made).
	// The owner may complete after its lease lapsed as long as nobody took
	// the claim over: recording the effect beats running it twice. A
	// repeated Complete by the owner of the completed record succeeds and
	// keeps the first result and retention.
	Complete(ctx context.Context, key, owner string, result []byte, retain time.Duration) error
	// Release drops the owner's pending claim without a result, so that a
	// retry may perform the effect (used when the effect failed cleanly).
	// Releasing a claim the owner no longer holds is not an error; a
	// completed record is never released.
	Release(ctx context.Context, key, owner string) error

	// PutState stores a continuation record that expires after ttl,
	// replacing any record with the same Ref.
	PutState(ctx context.Context, rec StateRecord, ttl time.Duration) error
	// GetState returns the live record for ref, or ErrNotFound (also for a
	// ref no record could have, such as a tampered one). It does not check
	// Subject or Principal: the caller compares them with the request.
	GetState(ctx context.Context, ref string) (StateRecord, error)
	// DeleteWorkflowStates removes every continuation record of a workflow
	// (called when the workflow completes: references are single-workflow,
	// consumed on completion).
	DeleteWorkflowStates(ctx context.Context, workflow string) error

	// Sweep deletes expired records (completed operations past retention,
	// continuation records past their TTL, pending claims whose lease lapsed
	// more than Options.AbandonAfter ago) and reports how many it removed.
	// Run it periodically (RunSweeper); expired records are already
	// invisible to the other methods, Sweep reclaims their space.
	Sweep(ctx context.Context) (int, error)
	// Close releases the store's resources; later calls fail. Closing
	// twice is not an error.
	Close() error
}

var (
	// ErrNotFound reports a missing or expired continuation record.
	ErrNotFound = errors.New("store: record not found or expired")
	// ErrLeaseLost reports a Complete by an owner whose claim was taken over
	// after its lease lapsed, released, abandoned, or never existed.
	ErrLeaseLost = errors.New("store: claim lease lost")
)
