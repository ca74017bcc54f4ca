package store

import (
	"bytes"
	"context"
	"sync"
	"time"
)

// Memory is an in-process Store guarded by one mutex. It is the reference
// semantics every other implementation is checked against (storetest) and
// the store for tests and single-process demos. Nothing survives the
// process.
type Memory struct {
	opts Options

	mu        sync.Mutex
	ops       map[string]*memOp
	states    map[string]*memState
	workflows map[string]map[string]struct{} // workflow → refs
	approvals memApprovals
	closed    bool
}

type memOp struct {
	fingerprint  []byte
	owner        string
	done         bool
	leaseExpires time.Time // pending only
	expiresAt    time.Time // pending: leaseExpires+AbandonAfter; done: completion+retain
	result       []byte
}

type memState struct {
	rec       StateRecord
	expiresAt time.Time
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty in-memory store.
func NewMemory(opts Options) *Memory {
	return &Memory{
		opts:      opts.WithDefaults(),
		ops:       make(map[string]*memOp),
		states:    make(map[string]*memState),
		workflows: make(map[string]map[string]struct{}),
	}
}

func (m *Memory) lock(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	return nil
}

// Claim implements [Store.Claim].
func (m *Memory) Claim(ctx context.Context, req ClaimRequest) (ClaimResult, error) {
	if err := ValidateClaim(req); err != nil {
		return ClaimResult{}, err
	}
	if err := m.lock(ctx); err != nil {
		return ClaimResult{}, err
	}
	defer m.mu.Unlock()
	return m.claimLocked(req), nil
}

// claimLocked is Claim with m.mu held.
func (m *Memory) claimLocked(req ClaimRequest) ClaimResult {
	now := m.opts.Now()
	op, ok := m.ops[req.Key]
	if ok && !now.Before(op.expiresAt) {
		ok = false // expired: retention passed or claim abandoned
	}
	switch {
	case !ok:
		// fresh claim
	case !bytes.Equal(op.fingerprint, req.Fingerprint):
		return ClaimResult{Status: Mismatch}
	case op.done:
		return ClaimResult{Status: Replayed, Result: clone(op.result)}
	case now.Before(op.leaseExpires) && op.owner != req.Owner:
		return ClaimResult{Status: InFlight, LeaseExpires: op.leaseExpires}
	default:
		// lapsed lease of the same operation (takeover), or the same owner
		// claiming again (lease renewed)
	}
	takeover := ok && op.owner != req.Owner
	lease := now.Add(req.Lease)
	m.ops[req.Key] = &memOp{
		fingerprint:  clone(req.Fingerprint),
		owner:        req.Owner,
		leaseExpires: lease,
		expiresAt:    lease.Add(m.opts.AbandonAfter),
	}
	return ClaimResult{Status: Acquired, Takeover: takeover}
}

// Complete implements [Store.Complete].
func (m *Memory) Complete(ctx context.Context, key, owner string, result []byte, retain time.Duration) error {
	if err := ValidateComplete(key, owner, retain); err != nil {
		return err
	}
	if err := m.lock(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	return m.completeLocked(key, owner, result, retain)
}

// completeLocked is Complete with m.mu held.
func (m *Memory) completeLocked(key, owner string, result []byte, retain time.Duration) error {
	now := m.opts.Now()
	op, ok := m.ops[key]
	if !ok || !now.Before(op.expiresAt) || op.owner != owner {
		return ErrLeaseLost
	}
	if op.done {
		return nil // repeated Complete by the same owner: keep the first result
	}
	op.done = true
	op.result = clone(result)
	op.leaseExpires = time.Time{}
	op.expiresAt = now.Add(retain)
	return nil
}

// Release implements [Store.Release].
func (m *Memory) Release(ctx context.Context, key, owner string) error {
	if err := ValidateRelease(key, owner); err != nil {
		return err
	}
	if err := m.lock(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	m.releaseLocked(key, owner)
	return nil
}

func (m *Memory) releaseLocked(key, owner string) {
	if op, ok := m.ops[key]; ok && !op.done && op.owner == owner {
		delete(m.ops, key)
	}
}

// PutState implements [Store.PutState].
func (m *Memory) PutState(ctx context.Context, rec StateRecord, ttl time.Duration) error {
	if err := ValidateState(rec, ttl); err != nil {
		return err
	}
	if err := m.lock(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	m.putLocked(rec, ttl)
	return nil
}

func (m *Memory) putLocked(rec StateRecord, ttl time.Duration) {
	if old, ok := m.states[rec.Ref]; ok {
		m.unindex(old.rec)
	}
	rec.Data = clone(rec.Data)
	m.states[rec.Ref] = &memState{rec: rec, expiresAt: m.opts.Now().Add(ttl)}
	refs := m.workflows[rec.Workflow]
	if refs == nil {
		refs = make(map[string]struct{})
		m.workflows[rec.Workflow] = refs
	}
	refs[rec.Ref] = struct{}{}
}

// GetState implements [Store.GetState].
func (m *Memory) GetState(ctx context.Context, ref string) (StateRecord, error) {
	if err := ctx.Err(); err != nil {
		return StateRecord{}, err
	}
	if !ValidRef(ref) {
		return StateRecord{}, ErrNotFound
	}
	if err := m.lock(ctx); err != nil {
		return StateRecord{}, err
	}
	defer m.mu.Unlock()
	return m.getLocked(ref)
}

func (m *Memory) getLocked(ref string) (StateRecord, error) {
	st, ok := m.states[ref]
	if !ok || !m.opts.Now().Before(st.expiresAt) {
		return StateRecord{}, ErrNotFound
	}
	rec := st.rec
	rec.Data = clone(rec.Data)
	return rec, nil
}

// DeleteWorkflowStates implements [Store.DeleteWorkflowStates].
func (m *Memory) DeleteWorkflowStates(ctx context.Context, workflow string) error {
	if err := ValidateWorkflow(workflow); err != nil {
		return err
	}
	if err := m.lock(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	m.deleteLocked(workflow)
	return nil
}

func (m *Memory) deleteLocked(workflow string) {
	for ref := range m.workflows[workflow] {
		delete(m.states, ref)
	}
	delete(m.workflows, workflow)
}

// Sweep implements [Store.Sweep].
func (m *Memory) Sweep(ctx context.Context) (int, error) {
	if err := m.lock(ctx); err != nil {
		return 0, err
	}
	defer m.mu.Unlock()
	now := m.opts.Now()
	n := 0
	for key, op := range m.ops {
		if !now.Before(op.expiresAt) {
			delete(m.ops, key)
			n++
		}
	}
	for ref, st := range m.states {
		if !now.Before(st.expiresAt) {
			delete(m.states, ref)
			m.unindex(st.rec)
			n++
		}
	}
	n += m.approvals.sweep(now)
	return n, nil
}

// Close implements [Store.Close]. Later calls fail with ErrClosed.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.ops, m.states, m.workflows = nil, nil, nil
	m.approvals = memApprovals{}
	return nil
}

func (m *Memory) unindex(rec StateRecord) {
	refs := m.workflows[rec.Workflow]
	delete(refs, rec.Ref)
	if len(refs) == 0 {
		delete(m.workflows, rec.Workflow)
	}
}

// clone copies b, turning nil into an empty non-nil slice so that stored
// empty results replay as empty (not absent) results.
func clone(b []byte) []byte {
	return append([]byte{}, b...)
}
