// Package taskrecording is a test fixture of mrtr and mrtr/tasks: a task
// store that keeps every record it receives, so that a test can look for
// what reached it in clear.
package taskrecording

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// Store is a tasks.Store that keeps every record, marshalled, as it is
// created or updated, before passing it on to the embedded Store.
type Store struct {
	tasks.Store
	mu  sync.Mutex
	raw [][]byte
}

// Records returns the records kept so far, in the order they came.
func (s *Store) Records() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.raw)
}

func (s *Store) keep(rec *tasks.Record) {
	b, _ := json.Marshal(rec)
	s.mu.Lock()
	s.raw = append(s.raw, b)
	s.mu.Unlock()
}

// Create implements tasks.Store.
func (s *Store) Create(ctx context.Context, rec *tasks.Record) error {
	s.keep(rec)
	return s.Store.Create(ctx, rec)
}

// Update implements tasks.Store.
func (s *Store) Update(ctx context.Context, id string, fn func(*tasks.Record) error) (*tasks.Record, error) {
	return s.Store.Update(ctx, id, func(rec *tasks.Record) error {
		if err := fn(rec); err != nil {
			return err
		}
		s.keep(rec)
		return nil
	})
}
