// Package domaintest provides a domain.Store for tests of the example
// handlers: seeded demo data that can be put back (Reset), effect counters
// that survive resets, and writes that can be made to fail (BreakWrites).
package domaintest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// ErrBroken is what writes return while the store is broken.
var ErrBroken = errors.New("domaintest: the domain store is down")

// Store is an in-memory domain.Store. Counters (keys effects:…) live apart
// from the records, so that Reset gives back fresh demo records while the
// counts keep adding up (the MRTR matrix compares counts across fresh
// harnesses).
type Store struct {
	mu       sync.Mutex
	records  *domain.Memory
	counters *domain.Memory
	broken   bool
}

var _ domain.Store = (*Store)(nil)

// New returns a seeded store.
func New(t testing.TB) *Store {
	t.Helper()
	s := &Store{counters: domain.NewMemory()}
	s.Reset(t)
	return s
}

// Reset puts back the demo data: every record as seeded, nothing else.
func (s *Store) Reset(t testing.TB) {
	t.Helper()
	m := domain.NewMemory()
	if err := domain.Seed(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.records = m
	s.mu.Unlock()
}

// Harness is an mrtrtest option that resets the demo data whenever a
// harness is built, so that every scenario of the matrix starts from it.
func (s *Store) Harness(t testing.TB) mrtrtest.Option {
	return mrtrtest.WithStore(func(c *mrtrtest.Clock) store.Store {
		s.Reset(t)
		return store.NewMemory(store.Options{Now: c.Now})
	})
}

// BreakWrites makes every write fail until restore is called: reads (the
// access rules, the checks) still work, effects fail.
func (s *Store) BreakWrites() (restore func()) {
	s.mu.Lock()
	s.broken = true
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.broken = false
		s.mu.Unlock()
	}
}

// Effects returns a function counting the effects of tool on record id.
func (s *Store) Effects(tool, id string) func() int {
	return func() int {
		n, err := domain.Effects(context.Background(), s, tool, id)
		if err != nil {
			panic(err)
		}
		return int(n)
	}
}

func (s *Store) pick(key string) *domain.Memory {
	if strings.HasPrefix(key, "effects:") {
		return s.counters
	}
	return s.records
}

func (s *Store) Get(ctx context.Context, key string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pick(key).Get(ctx, key)
}

func (s *Store) Put(ctx context.Context, key, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken {
		return ErrBroken
	}
	return s.pick(key).Put(ctx, key, value)
}

func (s *Store) Swap(ctx context.Context, key, old, value, counter string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken {
		return false, ErrBroken
	}
	ok, err := s.pick(key).Swap(ctx, key, old, value, "")
	if err != nil || !ok || counter == "" {
		return ok, err
	}
	_, err = s.pick(counter).Incr(ctx, counter, 1)
	return true, err
}

func (s *Store) Incr(ctx context.Context, key string, delta int64) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken {
		return 0, ErrBroken
	}
	return s.pick(key).Incr(ctx, key, delta)
}

func (s *Store) Close() error { return nil }
