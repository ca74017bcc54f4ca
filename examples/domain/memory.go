package domain

import (
	"context"
	"errors"
	"strconv"
	"sync"
)

// Memory is the in-process Store (for memory: URLs and tests): nothing is
// shared with other processes and nothing survives a restart.
type Memory struct {
	mu     sync.Mutex
	m      map[string]string
	closed bool
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty in-process store.
func NewMemory() *Memory { return &Memory{m: map[string]string{}} }

var errClosed = errors.New("domain: store is closed")

func (s *Memory) Get(ctx context.Context, key string) (string, bool, error) {
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", false, errClosed
	}
	v, ok := s.m[key]
	return v, ok, nil
}

func (s *Memory) Put(ctx context.Context, key, value string) error {
	if err := CheckKV(key, value); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	s.m[key] = value
	return nil
}

func (s *Memory) Swap(ctx context.Context, key, old, value, counter string) (bool, error) {
	if err := CheckKV(key, value); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, errClosed
	}
	if s.m[key] != old { // an absent key reads as "", which is what old = "" means
		return false, nil
	}
	if counter != "" {
		if _, err := s.incr(counter, 1); err != nil {
			return false, err
		}
	}
	s.m[key] = value
	return true, nil
}

func (s *Memory) Incr(ctx context.Context, key string, delta int64) (int64, error) {
	if key == "" {
		return 0, ErrEmpty
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, errClosed
	}
	return s.incr(key, delta)
}

func (s *Memory) incr(key string, delta int64) (int64, error) {
	var n int64
	if v, ok := s.m[key]; ok {
		var err error
		if n, err = strconv.ParseInt(v, 10, 64); err != nil {
			return 0, errors.New("domain: " + key + " is not a counter")
		}
	}
	n += delta
	s.m[key] = strconv.FormatInt(n, 10)
	return n, nil
}

func (s *Memory) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}
