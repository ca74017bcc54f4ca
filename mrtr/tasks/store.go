package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Store holds task records. Every instance of a server that shares a
// Store can answer tasks/get, tasks/update and tasks/cancel for any task.
// All methods are safe for concurrent use.
type Store interface {
	// Create inserts a new record; its id is fresh (an existing id is an
	// error, never an overwrite).
	Create(ctx context.Context, rec *Record) error
	// Get returns a copy of the live record, or ErrNotFound (also for an
	// expired one, swept or not).
	Get(ctx context.Context, id string) (*Record, error)
	// Update applies fn to a copy of the live record and stores the
	// result atomically with respect to other Updates of the same id; an
	// error of fn leaves the record unchanged and is returned. fn may run
	// more than once, each time on a fresh copy (an optimistic store such
	// as redistasks retries it after a conflicting write): it must only
	// change the record it is given.
	Update(ctx context.Context, id string, fn func(*Record) error) (*Record, error)
	// Sweep deletes expired records and reports how many.
	Sweep(ctx context.Context, now time.Time) (int, error)
}

// MemoryStore is a Store in the memory of one process: tasks do not
// survive it and other instances do not see them. For tests and single
// instances.
type MemoryStore struct {
	mu   sync.Mutex
	now  func() time.Time
	recs map[string][]byte // JSON, so callers never share memory with the store
}

// NewMemoryStore returns an empty MemoryStore; now may be nil (time.Now).
func NewMemoryStore(now func() time.Time) *MemoryStore {
	if now == nil {
		now = time.Now
	}
	return &MemoryStore{now: now, recs: map[string][]byte{}}
}

func (m *MemoryStore) Create(_ context.Context, rec *Record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.recs[rec.ID]; ok {
		return fmt.Errorf("tasks: task %q exists", rec.ID)
	}
	m.recs[rec.ID] = b
	return nil
}

func (m *MemoryStore) load(id string) (*Record, error) {
	b, ok := m.recs[id]
	if !ok {
		return nil, ErrNotFound
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	if !m.now().Before(r.ExpiresAt()) {
		return nil, ErrNotFound
	}
	return &r, nil
}

func (m *MemoryStore) Get(_ context.Context, id string) (*Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.load(id)
}

func (m *MemoryStore) Update(_ context.Context, id string, fn func(*Record) error) (*Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.load(id)
	if err != nil {
		return nil, err
	}
	if err := fn(r); err != nil {
		return nil, err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	m.recs[id] = b
	return r, nil
}

func (m *MemoryStore) Sweep(_ context.Context, now time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for id, b := range m.recs {
		var r Record
		if json.Unmarshal(b, &r) != nil || !now.Before(r.ExpiresAt()) {
			delete(m.recs, id)
			n++
		}
	}
	return n, nil
}
