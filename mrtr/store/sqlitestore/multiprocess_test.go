package sqlitestore

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

const helperEnv = "MRTR_SQLITESTORE_HELPER_DB"

// TestMultiProcessOneEffect runs several processes (this test binary
// re-executed), each with several goroutines, racing to perform the same
// operation on one database file: exactly one effect in total, one result
// everywhere. Each process also creates the schema concurrently.
func TestMultiProcessOneEffect(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "shared.db")
	const procs = 4
	outs := make([]string, procs)
	errs := make([]error, procs)
	var wg sync.WaitGroup
	for i := range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), helperEnv+"="+path, fmt.Sprintf("MRTR_HELPER_ID=%d", i))
			out, err := cmd.CombinedOutput()
			outs[i], errs[i] = string(out), err
		})
	}
	wg.Wait()
	effects := 0
	var result string
	for i := range procs {
		if errs[i] != nil {
			t.Fatalf("process %d: %v\n%s", i, errs[i], outs[i])
		}
		var n int
		var res string
		_, line, ok := strings.Cut(outs[i], "effects=")
		if !ok {
			t.Fatalf("process %d output %q: no effects=", i, outs[i])
		}
		line = "effects=" + line
		if _, err := fmt.Sscanf(line, "effects=%d result=%s", &n, &res); err != nil {
			t.Fatalf("process %d output %q: %v", i, outs[i], err)
		}
		effects += n
		if i == 0 {
			result = res
		} else if res != result {
			t.Fatalf("process %d holds result %s, process 0 holds %s", i, res, result)
		}
	}
	if effects != 1 {
		t.Fatalf("%d processes performed the effect %d times in total, want exactly once", procs, effects)
	}
}

func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper for TestMultiProcessOneEffect")
	}
	id := os.Getenv("MRTR_HELPER_ID")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const goroutines = 8
	var effects atomic.Int32
	results := make([][]byte, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			owner := fmt.Sprintf("proc%s-g%d", id, g)
			req := store.ClaimRequest{Key: "charge/order-1", Fingerprint: []byte("fp"), Owner: owner, Lease: time.Minute}
			for {
				r, err := s.Claim(ctx, req)
				if err != nil {
					t.Error(err)
					return
				}
				switch r.Status {
				case store.Acquired:
					effects.Add(1)
					res := []byte("charged by " + owner)
					if err := s.Complete(ctx, req.Key, owner, res, time.Hour); err != nil {
						t.Error(err)
					}
					results[g] = res
					return
				case store.Replayed:
					results[g] = r.Result
					return
				case store.InFlight:
					time.Sleep(time.Millisecond)
				default:
					t.Errorf("unexpected %v", r.Status)
					return
				}
			}
		})
	}
	wg.Wait()
	for g := range goroutines {
		if !bytes.Equal(results[g], results[0]) {
			t.Fatalf("goroutine %d: %q vs %q", g, results[g], results[0])
		}
	}
	fmt.Printf("effects=%d result=%s\n", effects.Load(), hex.EncodeToString(results[0]))
}
