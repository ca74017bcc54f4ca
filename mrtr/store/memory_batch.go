package store

import "context"

var _ Batcher = (*Memory)(nil)

// Apply implements [Batcher]: the whole batch under the store's lock, so
// that it is atomic like the shared stores' batches.
func (m *Memory) Apply(ctx context.Context, ops []Op) ([]OpResult, error) {
	if err := ValidateOps(ops); err != nil {
		return nil, err
	}
	if err := m.lock(ctx); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	results := make([]OpResult, len(ops))
	var gate BatchGate
	for i, op := range ops {
		if gate.Skip(op) {
			results[i].Skipped = true
			continue
		}
		res := &results[i]
		switch op.Kind {
		case OpClaim:
			res.Claim = m.claimLocked(op.Claim)
			gate.Claimed(res.Claim)
		case OpComplete:
			res.Err = m.completeLocked(op.Key, op.Owner, op.Result, op.Retain)
		case OpRelease:
			m.releaseLocked(op.Key, op.Owner)
		case OpPutState:
			m.putLocked(op.State, op.TTL)
		case OpGetState:
			if !ValidRef(op.Ref) {
				res.Err = ErrNotFound
				continue
			}
			res.State, res.Err = m.getLocked(op.Ref)
		case OpDeleteWorkflowStates:
			m.deleteLocked(op.Workflow)
		}
	}
	return results, nil
}
