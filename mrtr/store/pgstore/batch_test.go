package pgstore

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

// TestBatchRoundTrips: every batch the engine sends is one pipeline, one
// round trip once pgx has prepared its statements.
func TestBatchRoundTrips(t *testing.T) {
	var c storetest.Wire
	s := newTestStore(t, testPool(t, 1, &c), nil)
	storetest.BatchRoundTrips(t, s, c.Reset, c.Writes.Load)
}
