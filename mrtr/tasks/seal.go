package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Sealer seals the user's data a task record carries before it is stored
// (Config.Sealer): the input requests, the answers, the result, the error
// and the checkpoint. Sealed bytes are bound to the task id, so a record's
// data does not open as another task's. Implementations must be safe for
// concurrent use; mrtr.TaskSealer is one built from the engine's keys.
type Sealer interface {
	// Seal encrypts and authenticates plaintext for task taskID; the
	// result need not open after ttl (the record has expired by then).
	Seal(taskID string, ttl time.Duration, plaintext []byte) ([]byte, error)
	// Open returns the plaintext sealed for taskID, or an error if sealed
	// was altered, sealed for another task, or expired.
	Open(taskID string, sealed []byte) ([]byte, error)
}

// sealedFields are the fields of a Record a Sealer seals.
type sealedFields struct {
	Pending    map[string]json.RawMessage `json:"pending,omitempty"`
	Answers    map[string]json.RawMessage `json:"answers,omitempty"`
	Result     json.RawMessage            `json:"result,omitempty"`
	Error      *WireError                 `json:"error,omitempty"`
	Checkpoint []byte                     `json:"checkpoint,omitempty"`
}

// sealedStore is a Store that seals records on the way in and opens them
// on the way out, so callers see plain records and the store never does.
type sealedStore struct {
	Store
	sealer Sealer
	now    func() time.Time
}

// sealMargin keeps sealed data openable a little past the record's expiry
// (clock differences between instances).
const sealMargin = time.Minute

func (s sealedStore) seal(r *Record) (*Record, error) {
	f := sealedFields{Pending: r.Pending, Answers: r.Answers, Result: r.Result, Error: r.Error, Checkpoint: r.Checkpoint}
	out := *r
	out.Pending, out.Answers, out.Result, out.Error, out.Checkpoint, out.Sealed = nil, nil, nil, nil, nil, nil
	if f.Pending == nil && f.Answers == nil && f.Result == nil && f.Error == nil && f.Checkpoint == nil {
		return &out, nil
	}
	b, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	ttl := max(r.ExpiresAt().Sub(s.now()), 0) + sealMargin
	if out.Sealed, err = s.sealer.Seal(r.ID, ttl, b); err != nil {
		return nil, fmt.Errorf("tasks: sealing task %s: %w", r.ID, err)
	}
	return &out, nil
}

func (s sealedStore) open(r *Record) error {
	if r.Sealed == nil {
		return nil
	}
	b, err := s.sealer.Open(r.ID, r.Sealed)
	if err != nil {
		return fmt.Errorf("tasks: opening task %s: %w", r.ID, err)
	}
	var f sealedFields
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("tasks: opening task %s: %w", r.ID, err)
	}
	r.Pending, r.Answers, r.Result, r.Error, r.Checkpoint, r.Sealed = f.Pending, f.Answers, f.Result, f.Error, f.Checkpoint, nil
	return nil
}

func (s sealedStore) Create(ctx context.Context, rec *Record) error {
	sealed, err := s.seal(rec)
	if err != nil {
		return err
	}
	return s.Store.Create(ctx, sealed)
}

func (s sealedStore) Get(ctx context.Context, id string) (*Record, error) {
	r, err := s.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.open(r); err != nil {
		return nil, err
	}
	return r, nil
}

func (s sealedStore) Update(ctx context.Context, id string, fn func(*Record) error) (*Record, error) {
	var plain *Record
	_, err := s.Store.Update(ctx, id, func(r *Record) error {
		if err := s.open(r); err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
		sealed, err := s.seal(r)
		if err != nil {
			return err
		}
		opened := *r
		plain = &opened
		*r = *sealed
		return nil
	})
	if err != nil {
		return nil, err
	}
	return plain, nil
}
