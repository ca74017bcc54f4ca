// Package closetest is how the tests of mrtr's stores close what they
// open: when the test ends, a failed Close being an error of the test.
package closetest

import (
	"io"
	"testing"
)

// AtEnd closes c when t ends; a failed Close is an error of t.
func AtEnd(t testing.TB, c io.Closer) {
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
}
