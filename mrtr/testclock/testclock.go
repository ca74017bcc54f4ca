// Package testclock is a manually advanced clock for tests of the mrtr
// runtime and its stores. It imports nothing but the standard library, so a
// test binary that needs a clock (every generated test, through mrtrtest)
// links no database client; storetest.Clock and mrtrtest.Clock are this
// type.
package testclock

import (
	"sync"
	"time"
)

// Epoch is where every Clock starts: a fixed instant, so failures are
// reproducible and nothing depends on the wall clock.
var Epoch = time.Date(2026, time.July, 28, 12, 0, 0, 0, time.UTC)

// Clock is a manually advanced clock, safe for concurrent use. Pass its Now
// method as store.Options.Now.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// New returns a Clock reading Epoch.
func New() *Clock { return &Clock{now: Epoch} }

// Now returns the clock's current time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}
