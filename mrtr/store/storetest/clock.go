// Package storetest is the conformance suite every store.Store
// implementation runs (memory, sqlitestore, pgstore, redisstore), plus
// helpers that locate the PostgreSQL and Redis test services.
package storetest

import "github.com/mrtrgen/mrtrgen/mrtr/testclock"

// Epoch is where every Clock starts (testclock.Epoch).
var Epoch = testclock.Epoch

// Clock is a manually advanced clock, safe for concurrent use. Pass its Now
// method as store.Options.Now. It is testclock.Clock: import that package
// for a clock without this one's database clients.
type Clock = testclock.Clock

// NewClock returns a Clock reading Epoch.
func NewClock() *Clock { return testclock.New() }
