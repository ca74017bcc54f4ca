package redisstore

import (
	"context"
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

// TestBatchRoundTrips: every batch the engine sends is one script call.
func TestBatchRoundTrips(t *testing.T) {
	var c storetest.Wire
	rdb := testClient(t, &c)
	s := newTestStore(t, rdb, nil)
	if err := rdb.Ping(context.Background()).Err(); err != nil { // dial and handshake now
		t.Fatal(err)
	}
	storetest.BatchRoundTrips(t, s, c.Reset, c.Writes.Load)
}
