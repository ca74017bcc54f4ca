// Package domain is the business data behind the example tools: support
// tickets, customers, invoices, teams, services and environments, orders
// and their refunds, staff, components and change tickets, kept in a tiny
// key-value store that several server instances share.
//
// This package holds the records and the in-memory store only, so the
// generated example packages and their tests link no database client.
// Package domainopen opens the shared stores from the same URL as the mrtr
// store (memory:, sqlite:PATH, postgres://…, redis://…).
//
// Every side effect of an example tool (closing a ticket, deleting a
// customer, charging an invoice, creating a workspace) changes a record with
// Swap and, in the same atomic step, increments the counter
// effects:<tool>:<id>, so tests can prove that an operation happened exactly
// once whatever the retries.
package domain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
)

// Store is a tiny key-value store of text values. Keys and values are
// non-empty UTF-8 strings; counters are values holding a decimal integer.
// All methods are safe for concurrent use, and several Stores opened on the
// same URL (in one process or many) see the same data.
type Store interface {
	// Get returns the value at key; ok is false when there is none.
	Get(ctx context.Context, key string) (value string, ok bool, err error)
	// Put sets key to value.
	Put(ctx context.Context, key, value string) error
	// Swap sets key to value if its current value is old ("" meaning that
	// key has no value) and reports whether it did. When it does and counter
	// is not "", the counter at that key is incremented by one in the same
	// atomic step: the change and its count are never seen apart.
	Swap(ctx context.Context, key, old, value, counter string) (bool, error)
	// Incr adds delta to the counter at key (absent counts as 0) and
	// returns the new count.
	Incr(ctx context.Context, key string, delta int64) (int64, error)
	// Close releases the store's resources.
	Close() error
}

// ErrEmpty reports an empty key or value.
var ErrEmpty = errors.New("domain: keys and values must not be empty")

// CheckKV returns ErrEmpty when key or value is empty: every Store
// implementation checks its arguments with it.
func CheckKV(key, value string) error {
	if key == "" || value == "" {
		return ErrEmpty
	}
	return nil
}

// Keys of the records.
func TicketKey(id string) string    { return "ticket:" + id }
func CustomerKey(id string) string  { return "customer:" + id }
func InvoiceKey(id string) string   { return "invoice:" + id }
func TeamKey(slug string) string    { return "team:" + slug }
func WorkspaceKey(id string) string { return "workspace:" + id }
func ChargeKey(id string) string    { return "charge:" + id }
func OutboxKey(id string) string    { return "outbox:" + id }
func OrderKey(id string) string     { return "order:" + id }
func RefundKey(id string) string    { return "refund:" + id }
func StaffKey(name string) string   { return "staff:" + name }
func ChangeKey(id string) string    { return "change:" + id }
func RolloutKey(id string) string   { return "rollout:" + id }

// ComponentKey is the key of a component of the rollout example.
func ComponentKey(name string) string { return "component:" + name }

// EffectKey is the counter of the side effects of tool on record id.
func EffectKey(tool, id string) string { return "effects:" + tool + ":" + id }

// Count reads the counter at key (0 when absent).
func Count(ctx context.Context, s Store, key string) (int64, error) {
	v, ok, err := s.Get(ctx, key)
	if err != nil || !ok {
		return 0, err
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("domain: %s is not a counter: %w", key, err)
	}
	return n, nil
}

// Effects reads how many times tool changed record id.
func Effects(ctx context.Context, s Store, tool, id string) (int64, error) {
	return Count(ctx, s, EffectKey(tool, id))
}

// Load reads the JSON record at key into a T; ok is false when there is
// none.
func Load[T any](ctx context.Context, s Store, key string) (rec T, ok bool, err error) {
	rec, _, ok, err = load[T](ctx, s, key)
	return rec, ok, err
}

func load[T any](ctx context.Context, s Store, key string) (rec T, raw string, ok bool, err error) {
	raw, ok, err = s.Get(ctx, key)
	if err != nil || !ok {
		return rec, "", ok, err
	}
	if err := json.Unmarshal([]byte(raw), &rec); err != nil {
		return rec, "", false, fmt.Errorf("domain: record %s: %w", key, err)
	}
	return rec, raw, true, nil
}

// Save writes rec as JSON at key.
func Save(ctx context.Context, s Store, key string, rec any) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return s.Put(ctx, key, string(b))
}

// ErrNotFound is returned by Update for a missing record.
var ErrNotFound = errors.New("domain: no such record")

// ErrUnchanged, returned by an Update function, leaves the record as it is
// (and counts nothing); Update then returns nil. Effects use it when a
// retry finds its own change already made.
var ErrUnchanged = errors.New("domain: unchanged")

// Update changes the JSON record at key with change, atomically: it reads
// the record, applies change to a copy and swaps it in only if nobody
// changed the record meanwhile (otherwise it starts again). When counter is
// not "", the swap increments that counter too. An error from change
// aborts the update and is returned as is (ErrUnchanged aborts it as a
// success).
func Update[T any](ctx context.Context, s Store, key, counter string, change func(*T) error) error {
	for attempt := 0; ; attempt++ {
		rec, raw, ok, err := load[T](ctx, s, key)
		if err != nil {
			return err
		}
		if !ok {
			return ErrNotFound
		}
		if err := change(&rec); err != nil {
			if errors.Is(err, ErrUnchanged) {
				return nil
			}
			return err
		}
		b, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		swapped, err := s.Swap(ctx, key, raw, string(b), counter)
		if err != nil || swapped {
			return err
		}
		if attempt >= maxUpdateAttempts {
			return fmt.Errorf("domain: %s keeps changing; gave up after %d attempts", key, attempt+1)
		}
		// Someone else changed the record: back off a little (randomly, so
		// that racing writers spread out) and start again.
		t := time.NewTimer(time.Duration(rand.Int64N(int64(100*time.Microsecond) << min(attempt, 7))))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// maxUpdateAttempts bounds Update's read-modify-swap loop.
const maxUpdateAttempts = 64

// Allowed is the access rule of the examples: a record that names the
// principals who may act on it (ticket assignees, account managers,
// billing contacts, team members) allows exactly those; a record that names
// nobody (the seeded demo records) allows everyone, anonymous callers
// included.
func Allowed(principal string, who []string) bool {
	return len(who) == 0 || (principal != "" && slices.Contains(who, principal))
}
