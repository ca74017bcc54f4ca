package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Batches. A round of a workflow needs a few record operations at two
// moments: before its effect (claim the round record and the effect record,
// or claim the round record and read the continuation it resumes), and when
// it ends (record the effect's outcome, the round's reply, delete the
// workflow's continuations). Each operation on its own is one round trip to
// a shared store; a batch sends them together, so that a round pays one
// round trip per moment instead of one per operation.
//
// A batch is a list of Ops applied in order. An op marked IfAcquired runs
// only when every claim before it in the batch was Acquired, which is what
// lets one round trip say "take the round record, and the effect record
// only if the round is mine": a retry that finds the round already
// answered, or held by another attempt, touches nothing else.
//
// Batcher is optional: Apply falls back to one Store method call per op
// (ApplyEach) for a store that does not implement it, with the same
// results, so third-party stores keep working unchanged and only pay the
// round trips. The stores of this module implement it: memory under one
// lock, SQLite in one transaction, PostgreSQL as one pipelined implicit
// transaction, Redis as one Lua script.

// OpKind says what an Op does.
type OpKind uint8

const (
	OpClaim                OpKind = iota + 1 // Store.Claim(Claim)
	OpComplete                               // Store.Complete(Key, Owner, Result, Retain)
	OpRelease                                // Store.Release(Key, Owner)
	OpPutState                               // Store.PutState(State, TTL)
	OpGetState                               // Store.GetState(Ref)
	OpDeleteWorkflowStates                   // Store.DeleteWorkflowStates(Workflow)
)

var opKindNames = [...]string{"", "claim", "complete", "release", "put state", "get state", "delete workflow states"}

func (k OpKind) String() string {
	if int(k) < len(opKindNames) && k > 0 {
		return opKindNames[k]
	}
	return fmt.Sprintf("OpKind(%d)", uint8(k))
}

// Op is one operation of a batch: the arguments of the Store method its
// Kind names (the other fields are ignored).
type Op struct {
	Kind OpKind
	// IfAcquired makes the op conditional: it runs only when every OpClaim
	// before it in the batch returned Acquired (a claim that was itself
	// skipped counts as not acquired); otherwise it does nothing and its
	// result is Skipped.
	IfAcquired bool

	Claim    ClaimRequest  // OpClaim
	Key      string        // OpComplete, OpRelease
	Owner    string        // OpComplete, OpRelease
	Result   []byte        // OpComplete
	Retain   time.Duration // OpComplete
	State    StateRecord   // OpPutState
	TTL      time.Duration // OpPutState
	Ref      string        // OpGetState
	Workflow string        // OpDeleteWorkflowStates
}

// ClaimOp is Store.Claim(req) as an Op.
func ClaimOp(req ClaimRequest) Op { return Op{Kind: OpClaim, Claim: req} }

// CompleteOp is Store.Complete as an Op.
func CompleteOp(key, owner string, result []byte, retain time.Duration) Op {
	return Op{Kind: OpComplete, Key: key, Owner: owner, Result: result, Retain: retain}
}

// ReleaseOp is Store.Release as an Op.
func ReleaseOp(key, owner string) Op { return Op{Kind: OpRelease, Key: key, Owner: owner} }

// PutStateOp is Store.PutState as an Op.
func PutStateOp(rec StateRecord, ttl time.Duration) Op {
	return Op{Kind: OpPutState, State: rec, TTL: ttl}
}

// GetStateOp is Store.GetState as an Op.
func GetStateOp(ref string) Op { return Op{Kind: OpGetState, Ref: ref} }

// DeleteWorkflowStatesOp is Store.DeleteWorkflowStates as an Op.
func DeleteWorkflowStatesOp(workflow string) Op {
	return Op{Kind: OpDeleteWorkflowStates, Workflow: workflow}
}

// IfClaimed returns o marked IfAcquired.
func (o Op) IfClaimed() Op { o.IfAcquired = true; return o }

// OpResult is what one Op did.
type OpResult struct {
	// Skipped: an IfAcquired op whose condition did not hold; it did
	// nothing, and the other fields are zero.
	Skipped bool
	// Claim is the result of an OpClaim.
	Claim ClaimResult
	// State is the record an OpGetState found (when Err is nil).
	State StateRecord
	// Err is the op's own outcome, as its Store method would return it:
	// ErrLeaseLost for an OpComplete whose claim is no longer the owner's,
	// ErrNotFound for an OpGetState that found no live record; nil
	// otherwise. Such an outcome does not stop the batch.
	Err error
}

// Batcher is implemented by stores that apply a batch in one round trip.
//
// A type that wraps a store by embedding it and overrides some of its
// methods (to count or fail calls) must override Apply too, or hide it by
// embedding the Store interface instead: an Apply promoted from the
// embedded store would bypass the overrides.
type Batcher interface {
	// Apply applies ops in order, each with the semantics of its Store
	// method, and returns one result per op. Ops are validated first: an
	// invalid one fails the whole batch with ErrInvalidArgument before
	// anything is applied.
	//
	// On any other error (the store failed, the context ended), results
	// holds the results of the ops known to have been applied, a prefix of
	// ops (none for an atomic implementation); the others may or may not
	// have been. Every op is safe to apply again with the same arguments (a
	// claim by its owner renews it, or replays the owner's own result; a
	// repeated Complete by the owner succeeds; Release, PutState and
	// DeleteWorkflowStates are idempotent), so a caller may retry the rest.
	//
	// The stores of this module apply a batch atomically: all of it or
	// none.
	Apply(ctx context.Context, ops []Op) ([]OpResult, error)
}

// Apply applies ops with s: in one call when s is a Batcher, otherwise one
// Store method call per op (ApplyEach), with the same results. See
// Batcher.Apply for the contract.
func Apply(ctx context.Context, s Store, ops []Op) ([]OpResult, error) {
	if len(ops) == 0 {
		return nil, nil
	}
	if b, ok := s.(Batcher); ok {
		return b.Apply(ctx, ops)
	}
	return ApplyEach(ctx, s, ops)
}

// ApplyEach applies ops one Store method call at a time, in order: the
// fallback of Apply for stores that are not Batchers, and the reference
// semantics of a batch. It is not atomic: on an error, the results of the
// ops applied before it are returned with it.
func ApplyEach(ctx context.Context, s Store, ops []Op) ([]OpResult, error) {
	if err := ValidateOps(ops); err != nil {
		return nil, err
	}
	results := make([]OpResult, 0, len(ops))
	var gate BatchGate
	for _, op := range ops {
		if gate.Skip(op) {
			results = append(results, OpResult{Skipped: true})
			continue
		}
		var res OpResult
		var err error
		switch op.Kind {
		case OpClaim:
			res.Claim, err = s.Claim(ctx, op.Claim)
			gate.Claimed(res.Claim)
		case OpComplete:
			res.Err = s.Complete(ctx, op.Key, op.Owner, op.Result, op.Retain)
			err, res.Err = splitOpErr(res.Err, ErrLeaseLost)
		case OpRelease:
			err = s.Release(ctx, op.Key, op.Owner)
		case OpPutState:
			err = s.PutState(ctx, op.State, op.TTL)
		case OpGetState:
			res.State, res.Err = s.GetState(ctx, op.Ref)
			err, res.Err = splitOpErr(res.Err, ErrNotFound)
		case OpDeleteWorkflowStates:
			err = s.DeleteWorkflowStates(ctx, op.Workflow)
		}
		if err != nil {
			return results, err
		}
		results = append(results, res)
	}
	return results, nil
}

// splitOpErr separates an op's own outcome (want) from a failure of the
// store.
func splitOpErr(err, want error) (failure, outcome error) {
	if err == nil {
		return nil, nil
	}
	if errors.Is(err, want) {
		return nil, err
	}
	return err, nil
}

// ValidateOps checks every op of a batch as its Store method would;
// implementations of Batcher call it first.
func ValidateOps(ops []Op) error {
	for i, op := range ops {
		var err error
		switch op.Kind {
		case OpClaim:
			err = ValidateClaim(op.Claim)
		case OpComplete:
			err = ValidateComplete(op.Key, op.Owner, op.Retain)
		case OpRelease:
			err = ValidateRelease(op.Key, op.Owner)
		case OpPutState:
			err = ValidateState(op.State, op.TTL)
		case OpGetState:
			// Like GetState: a ref no record could have is ErrNotFound, not
			// invalid.
		case OpDeleteWorkflowStates:
			err = ValidateWorkflow(op.Workflow)
		default:
			err = invalid("unknown op kind %d", op.Kind)
		}
		if err != nil {
			return fmt.Errorf("batch op %d (%v): %w", i, op.Kind, err)
		}
	}
	return nil
}

// BatchGate tracks the IfAcquired condition while a batch is applied:
// whether every claim so far was acquired. Batcher implementations in Go
// use it (the zero value is open).
type BatchGate struct{ closed bool }

// Skip reports whether op must be skipped. A skipped claim counts as not
// acquired: the gate, already closed, stays closed.
func (g *BatchGate) Skip(op Op) bool { return op.IfAcquired && g.closed }

// Claimed records the result of a claim that ran.
func (g *BatchGate) Claimed(r ClaimResult) {
	if r.Status != Acquired {
		g.closed = true
	}
}
