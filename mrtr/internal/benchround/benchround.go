// Package benchround is the unit of work of the store benchmarks
// (storetest's, sqlitestore's group commit): the record operations of one
// final round with an effect, a claim and its completion.
package benchround

import (
	"context"
	"fmt"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Final claims key for owner (a one-minute lease, fingerprint fp) and
// completes it with result, kept an hour. A claim that is not acquired is
// an error.
func Final(ctx context.Context, s store.Store, key, owner string, fp, result []byte) error {
	r, err := s.Claim(ctx, store.ClaimRequest{Key: key, Fingerprint: fp, Owner: owner, Lease: time.Minute})
	if err != nil {
		return fmt.Errorf("claim: %w", err)
	}
	if r.Status != store.Acquired {
		return fmt.Errorf("claim: %v, want acquired", r.Status)
	}
	return s.Complete(ctx, key, owner, result, time.Hour)
}
