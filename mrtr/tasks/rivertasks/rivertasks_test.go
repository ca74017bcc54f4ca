package rivertasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

// backend makes executors that share one fresh database (PostgreSQL: a
// schema of its own; SQLite: a temporary file), as instances of one
// deployment do.
type backend struct {
	name string
	// env describes the database to a child process (kill_test.go).
	env []string
	// open returns a new executor on the database, with its own pool or
	// connection, stopped at the test's end.
	open func(t *testing.T, opts Options) *Executor
	// attempts returns the attempt counts of the jobs in River's table.
	attempts func(t *testing.T) []int
}

// eachBackend runs test on PostgreSQL and on SQLite, in parallel.
func eachBackend(t *testing.T, test func(t *testing.T, b backend)) {
	for _, b := range []string{"postgres", "sqlite"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			switch b {
			case "postgres":
				test(t, postgresBackend(t))
			default:
				test(t, sqliteBackend(t))
			}
		})
	}
}

func postgresBackend(t *testing.T) backend {
	url := storetest.PostgresURL(t)
	schema := "rivertasks_" + randomHex(6)
	ctx := context.Background()
	admin, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
		}
		admin.Close()
	})
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	return backend{
		name: "postgres",
		env:  []string{childDriverEnv + "=postgres", childDSNEnv + "=" + url, childSchemaEnv + "=" + schema},
		open: func(t *testing.T, opts Options) *Executor {
			opts.Schema = schema
			return openPostgres(t, url, opts)
		},
		attempts: func(t *testing.T) []int {
			rows, err := admin.Query(context.Background(), "SELECT attempt FROM "+schema+".river_job ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			n, err := pgx.CollectRows(rows, pgx.RowTo[int])
			if err != nil {
				t.Fatal(err)
			}
			return n
		},
	}
}

func openPostgres(t testing.TB, url string, opts Options) *Executor {
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return cleanupExecutor(t, must(NewPostgres(pool, withTestDefaults(opts))))
}

func sqliteBackend(t *testing.T) backend {
	path := filepath.Join(t.TempDir(), "river.db")
	return backend{
		name: "sqlite",
		env:  []string{childDriverEnv + "=sqlite", childDSNEnv + "=" + path},
		open: func(t *testing.T, opts Options) *Executor { return openSQLite(t, path, opts) },
		attempts: func(t *testing.T) []int {
			db, err := OpenSQLite(path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			rows, err := db.Query("SELECT attempt FROM river_job ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var n []int
			for rows.Next() {
				var a int
				if err := rows.Scan(&a); err != nil {
					t.Fatal(err)
				}
				n = append(n, a)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			return n
		},
	}
}

func openSQLite(t testing.TB, path string, opts Options) *Executor {
	db, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return cleanupExecutor(t, must(NewSQLite(db, withTestDefaults(opts))))
}

// withTestDefaults logs River's warnings and errors to stderr only.
func withTestDefaults(opts Options) Options {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return opts
}

func cleanupExecutor(t testing.TB, e *Executor) *Executor {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := e.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return e
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// call is one RunStep of a fakeRunner.
type call struct {
	instance string
	taskID   string
	step     int
	at       time.Time
}

// fakeRunner records its calls (shared by the instances of a test) and
// answers them with run, nil by default.
type fakeRunner struct {
	instance string
	log      *callLog
	run      func(ctx context.Context, taskID string, step int) error
}

func (r *fakeRunner) RunStep(ctx context.Context, taskID string, step int) error {
	r.log.add(call{instance: r.instance, taskID: taskID, step: step, at: time.Now()})
	if r.run == nil {
		return nil
	}
	return r.run(ctx, taskID, step)
}

type callLog struct {
	mu    sync.Mutex
	calls []call
	added chan struct{} // closed and replaced at each call
}

func newCallLog() *callLog { return &callLog{added: make(chan struct{})} }

func (l *callLog) add(c call) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c)
	close(l.added)
	l.added = make(chan struct{})
}

// snapshot returns the calls so far and a channel closed at the next.
func (l *callLog) snapshot() ([]call, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls), l.added
}

// waitFor waits up to timeout for the calls to satisfy ok and returns
// them; it fails t if they do not.
func (l *callLog) waitFor(t testing.TB, timeout time.Duration, what string, ok func([]call) bool) []call {
	t.Helper()
	deadline := time.After(timeout)
	for {
		calls, added := l.snapshot()
		if ok(calls) {
			return calls
		}
		select {
		case <-added:
		case <-deadline:
			t.Fatalf("after %v, still waiting for %s; calls: %+v", timeout, what, calls)
		}
	}
}

func count(calls []call, taskID string, step int) int {
	n := 0
	for _, c := range calls {
		if c.taskID == taskID && c.step == step {
			n++
		}
	}
	return n
}

func start(t testing.TB, e *Executor, r *fakeRunner) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := e.Start(ctx, r); err != nil {
		t.Fatal(err)
	}
}

func enqueue(t testing.TB, e *Executor, taskID string, step int) {
	t.Helper()
	if err := e.Enqueue(context.Background(), taskID, step); err != nil {
		t.Fatal(err)
	}
}

// quiet is how long a test waits, after the calls it expects, for calls it
// does not.
const quiet = 1500 * time.Millisecond

// TestRunsOnceAcrossInstances: steps enqueued on A run once each, across A
// and B working the same queue.
func TestRunsOnceAcrossInstances(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		log := newCallLog()
		a, bb := b.open(t, Options{}), b.open(t, Options{})
		start(t, a, &fakeRunner{instance: "A", log: log})
		start(t, bb, &fakeRunner{instance: "B", log: log})
		const steps = 20
		for i := range steps {
			enqueue(t, a, fmt.Sprintf("task-%d", i), 1+i%3)
		}
		log.waitFor(t, 15*time.Second, "every step", func(c []call) bool { return len(c) >= steps })
		time.Sleep(quiet)
		calls, _ := log.snapshot()
		for i := range steps {
			if n := count(calls, fmt.Sprintf("task-%d", i), 1+i%3); n != 1 {
				t.Errorf("task-%d step %d ran %d times, want 1", i, 1+i%3, n)
			}
		}
		byInstance := map[string]int{}
		for _, c := range calls {
			byInstance[c.instance]++
		}
		t.Logf("%s: %d steps ran on A %d, B %d", b.name, len(calls), byInstance["A"], byInstance["B"])
	})
}

// TestDuplicateEnqueueRunsOnce: enqueueing a step again, from either
// instance, while it waits, runs or after it completed, runs it once.
func TestDuplicateEnqueueRunsOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		log := newCallLog()
		release := make(chan struct{})
		a, bb := b.open(t, Options{}), b.open(t, Options{})
		slow := func(ctx context.Context, _ string, _ int) error {
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		start(t, a, &fakeRunner{instance: "A", log: log, run: slow})
		start(t, bb, &fakeRunner{instance: "B", log: log, run: slow})
		for range 3 {
			enqueue(t, a, "dup", 2)
			enqueue(t, bb, "dup", 2)
		}
		log.waitFor(t, 10*time.Second, "the step", func(c []call) bool { return len(c) >= 1 })
		enqueue(t, a, "dup", 2) // while it runs
		close(release)
		time.Sleep(quiet)
		enqueue(t, bb, "dup", 2) // after it completed
		time.Sleep(quiet)
		if calls, _ := log.snapshot(); len(calls) != 1 {
			t.Errorf("step ran %d times, want 1: %+v", len(calls), calls)
		}
	})
}

// TestErrorIsRetried: a step whose RunStep fails runs again, after a
// second then two (retryPolicy), until it succeeds.
func TestErrorIsRetried(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		log := newCallLog()
		a := b.open(t, Options{})
		failures := 2
		var mu sync.Mutex
		start(t, a, &fakeRunner{instance: "A", log: log, run: func(context.Context, string, int) error {
			mu.Lock()
			defer mu.Unlock()
			if failures > 0 {
				failures--
				return errors.New("store unavailable")
			}
			return nil
		}})
		enqueue(t, a, "flaky", 1)
		calls := log.waitFor(t, 15*time.Second, "three runs", func(c []call) bool { return len(c) >= 3 })
		time.Sleep(quiet)
		if calls, _ := log.snapshot(); len(calls) != 3 {
			t.Errorf("step ran %d times, want 3 (two failures, one success)", len(calls))
		}
		first, second := calls[1].at.Sub(calls[0].at), calls[2].at.Sub(calls[1].at)
		t.Logf("%s: retries after %v and %v", b.name, first.Round(time.Millisecond), second.Round(time.Millisecond))
		if first < 800*time.Millisecond || second < 1600*time.Millisecond {
			t.Errorf("retries after %v and %v, want about 1 s and 2 s", first, second)
		}
	})
}

// abandoningRunner is a fakeRunner that is told when a step is given up.
type abandoningRunner struct {
	*fakeRunner
	abandoned chan string
}

func (r abandoningRunner) AbandonStep(_ context.Context, taskID string, step int, reason error) error {
	r.abandoned <- fmt.Sprintf("%s/%d: %v", taskID, step, reason)
	return nil
}

// TestGivenUpStepIsAbandoned: a step that fails MaxAttempts times is
// discarded by River, and the runner is told (tasks.Abandoner), once,
// after the last attempt: its task must not stay "working" until its TTL.
func TestGivenUpStepIsAbandoned(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		log := newCallLog()
		a := b.open(t, Options{MaxAttempts: 2})
		r := abandoningRunner{&fakeRunner{instance: "A", log: log, run: func(context.Context, string, int) error {
			return errors.New("tool not registered")
		}}, make(chan string, 4)}
		if err := a.Start(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		enqueue(t, a, "doomed", 3)
		select {
		case got := <-r.abandoned:
			if !strings.HasPrefix(got, "doomed/3: ") || !strings.Contains(got, "tool not registered") {
				t.Errorf("abandoned %q", got)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("the step was not abandoned after its last attempt")
		}
		time.Sleep(quiet)
		if calls, _ := log.snapshot(); len(calls) != 2 {
			t.Errorf("step ran %d times, want MaxAttempts (2)", len(calls))
		}
		if len(r.abandoned) != 0 {
			t.Errorf("abandoned more than once")
		}
	})
}

// TestStopCutsOffAndAnotherRuns: Stop on A while a step runs ends the
// step's context; B, on the same queue, runs it again.
func TestStopCutsOffAndAnotherRuns(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		log := newCallLog()
		a, bb := b.open(t, Options{}), b.open(t, Options{})
		returned := make(chan error, 1)
		start(t, a, &fakeRunner{instance: "A", log: log, run: func(ctx context.Context, _ string, _ int) error {
			<-ctx.Done()
			returned <- ctx.Err()
			// Not context.Canceled itself (which River puts back in the
			// queue by itself), as when the step's store write failed
			// because ctx ended.
			return fmt.Errorf("recording the step's end: %v", ctx.Err()) //nolint:errorlint // not wrapped on purpose
		}})
		enqueue(t, a, "cut", 1)
		log.waitFor(t, 10*time.Second, "A running the step", func(c []call) bool { return len(c) >= 1 })
		start(t, bb, &fakeRunner{instance: "B", log: log})

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		stopped := time.Now()
		if err := a.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-returned:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("A's step ended with %v, want context.Canceled", err)
			}
		default:
			t.Fatal("Stop returned before A's step did")
		}
		calls := log.waitFor(t, 15*time.Second, "B running the step", func(c []call) bool {
			return len(c) >= 2 && c[1].instance == "B"
		})
		t.Logf("%s: B ran the step %v after A's Stop began", b.name, calls[1].at.Sub(stopped).Round(time.Millisecond))
		// The cut-off run was snoozed back, not failed: B's run is the
		// job's first attempt (River counts the attempt as the job is
		// fetched, and sets it back on a snooze).
		time.Sleep(quiet) // for B's completion to be written
		if got := b.attempts(t); !slices.Equal(got, []int{1}) {
			t.Errorf("job attempts %v, want [1]", got)
		}
	})
}

// TestConcurrentStartsMigrate: instances starting at once on a fresh
// database all migrate River's tables without error, and work.
func TestConcurrentStartsMigrate(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		log := newCallLog()
		const n = 4
		execs := make([]*Executor, n)
		for i := range execs {
			execs[i] = b.open(t, Options{})
		}
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i, e := range execs {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				errs[i] = e.Start(ctx, &fakeRunner{instance: fmt.Sprint(i), log: log})
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("Start of instance %d: %v", i, err)
			}
		}
		enqueue(t, execs[0], "after-migrations", 1)
		log.waitFor(t, 10*time.Second, "the step", func(c []call) bool { return len(c) >= 1 })
	})
}

// TestEnqueueToRunLatency: how long from Enqueue on A (which does not
// work jobs) to RunStep on B, one step at a time.
func TestEnqueueToRunLatency(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		log := newCallLog()
		bb := b.open(t, Options{})
		start(t, bb, &fakeRunner{instance: "B", log: log})
		a := b.open(t, Options{}) // never started: an instance that only enqueues
		const n = 20
		var lat []time.Duration
		for i := range n {
			at := time.Now()
			enqueue(t, a, "latency", i+1)
			calls := log.waitFor(t, 10*time.Second, "the step", func(c []call) bool { return len(c) > i })
			lat = append(lat, calls[i].at.Sub(at))
		}
		slices.Sort(lat)
		t.Logf("%s: Enqueue on A → RunStep on B over %d steps: min %v, median %v, max %v", b.name, n,
			lat[0].Round(time.Microsecond), lat[n/2].Round(time.Microsecond), lat[n-1].Round(time.Microsecond))
	})
}

func TestOptions(t *testing.T) {
	for _, o := range []Options{
		{Queue: "has space"},
		{Queue: string(make([]byte, 129))},
		{Workers: -1},
		{JobTimeout: -time.Second},
		{JobTimeout: time.Minute, RescueAfter: time.Minute},
		{MaxAttempts: -1},
	} {
		if _, err := o.withDefaults(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	o, err := Options{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.Queue != DefaultQueue || o.Workers != DefaultWorkers || o.JobTimeout != DefaultJobTimeout ||
		o.RescueAfter != DefaultJobTimeout+time.Minute || o.MaxAttempts != DefaultMaxAttempts || o.Logger == nil {
		t.Errorf("defaults: %+v", o)
	}
}

func TestEnqueueRejectsBadStep(t *testing.T) {
	e := openSQLite(t, filepath.Join(t.TempDir(), "river.db"), Options{})
	if err := e.Enqueue(context.Background(), "", 1); err == nil {
		t.Error("empty task id: no error")
	}
	if err := e.Enqueue(context.Background(), "t", 0); err == nil {
		t.Error("step 0: no error")
	}
}

func TestRetryDelay(t *testing.T) {
	for failures, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second,
		5: 16 * time.Second, 6: 30 * time.Second, 100: 30 * time.Second, 10_000: 30 * time.Second} {
		for range 20 {
			if d := retryDelay(failures); d < want*9/10 || d > want*11/10 {
				t.Errorf("retryDelay(%d) = %v, want %v ±10%%", failures, d, want)
			}
		}
	}
}
