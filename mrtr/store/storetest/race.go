package storetest

import (
	"bytes"
	"sync"
)

// Races: n goroutines released at once on one store, each named i.

// together runs f(0) … f(n-1) in n goroutines released at the same moment,
// and waits for all of them.
func together(n int, f func(i int)) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			f(i)
		})
	}
	close(start)
	wg.Wait()
}

// oneResult fails unless every racer succeeded and holds the result racer
// 0 holds; who names a racer in the message ("goroutine", "copy").
func oneResult(fatalf func(string, ...any), who string, results [][]byte, errs []error) {
	for i := range results {
		if errs[i] != nil {
			fatalf("%s %d: %v", who, i, errs[i])
		}
		if !bytes.Equal(results[i], results[0]) {
			fatalf("%s %d holds %q, %s 0 holds %q", who, i, trunc(results[i]), who, trunc(results[0]))
		}
	}
}
