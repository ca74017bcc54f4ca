package store_test

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

func TestMemoryConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, clock *storetest.Clock) store.Store {
		s := store.NewMemory(store.Options{Now: clock.Now})
		t.Cleanup(func() { s.Close() })
		return s
	})
}
