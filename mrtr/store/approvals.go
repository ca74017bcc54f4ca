package store

import (
	"context"
	"errors"
	"time"
)

// Approval records. Package approval keeps each approval a gate waits for
// as one record: its data is opaque to the store (package approval encodes
// it), the store only indexes it by id, by the digest of the action it
// approves, and by the time its next timer is due. Every change is a
// compare-and-swap on the record's version, so two instances deciding,
// expiring or consuming the same approval never both win.

// ApprovalRow is one approval record as the store keeps it.
type ApprovalRow struct {
	// ID is the record's random id (at least 128 bits, encoded).
	ID string
	// Digest is the hex SHA-256 of the action the record approves. The
	// digest index points at the latest record inserted for a digest.
	Digest string
	// Open is true until a workflow consumed the record's outcome (passed
	// the gate, or ended declined or expired by it). Only an open record
	// keeps its digest: InsertApproval for the digest of an open record
	// fails with ErrExists.
	Open bool
	// Due is when the record's next timer fires (a reminder, an
	// escalation, the deadline); zero when it has none.
	Due time.Time
	// KeepUntil is when the record may be swept (its retention after it
	// closed or expired). Sweep removes rows whose KeepUntil passed.
	KeepUntil time.Time
	// Version counts the row's writes: 1 when inserted, incremented by
	// every ReplaceApproval.
	Version int64
	// Data is the record, as package approval encoded it.
	Data []byte
}

// ApprovalStore keeps approval records. Memory and the SQLite,
// PostgreSQL and Redis stores implement it beside Store, in the same
// database, so an approval survives every instance of the server.
type ApprovalStore interface {
	// InsertApproval inserts row (Version is set to 1) and points its
	// digest at it. It fails with ErrExists when the digest points at an
	// open record, and with ErrExists when a row with the id exists.
	InsertApproval(ctx context.Context, row ApprovalRow) error
	// LoadApproval returns the row with id, or ErrNotFound (also for a row
	// past its KeepUntil, swept or not).
	LoadApproval(ctx context.Context, id string) (ApprovalRow, error)
	// LatestApproval returns the row the digest points at (open or not),
	// or ErrNotFound.
	LatestApproval(ctx context.Context, digest string) (ApprovalRow, error)
	// ReplaceApproval writes row over the stored row of the same id if its
	// version is still row.Version, and returns the new version
	// (row.Version+1). A row written meanwhile fails it with ErrConflict;
	// a missing row with ErrNotFound. ID and Digest never change.
	ReplaceApproval(ctx context.Context, row ApprovalRow) (int64, error)
	// DueApprovals returns the ids of up to limit rows whose Due is set and
	// not after now, earliest first.
	DueApprovals(ctx context.Context, now time.Time, limit int) ([]string, error)
}

var (
	// ErrExists reports an insert of an approval whose digest has an open
	// record, or whose id is taken.
	ErrExists = errors.New("store: an open approval exists for this action")
	// ErrConflict reports a ReplaceApproval that lost to another write.
	ErrConflict = errors.New("store: the approval changed meanwhile")
)
