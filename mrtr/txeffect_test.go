package mrtr_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/pgstore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/sqlitestore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

// Transactional effects: an effect that writes its own rows through the
// store's transaction (pgstore.EffectTx, sqlitestore.EffectTx) commits
// them with its record. The proof is a crash: a child process runs the
// final round, its effect writes its row and the process is SIGKILLed
// before the engine commits; the retry on another engine takes the claim
// over and runs the effect again. With the transaction the row is there
// once (the database rolled the dead process's work back); written outside
// it, twice (at least once, as documented).

// txEnv says how the parent and the child reach the same database.
type txEnv struct {
	backend, dsn, prefix string // prefix: the store's and the notes table's
	transactional        bool
}

func (x txEnv) environ() []string {
	return []string{"MRTR_TX_CHILD=1", "MRTR_TX_BACKEND=" + x.backend, "MRTR_TX_DSN=" + x.dsn,
		"MRTR_TX_PREFIX=" + x.prefix, fmt.Sprintf("MRTR_TX_TRANSACTIONAL=%t", x.transactional)}
}

func txEnvFromOS() txEnv {
	return txEnv{backend: os.Getenv("MRTR_TX_BACKEND"), dsn: os.Getenv("MRTR_TX_DSN"),
		prefix: os.Getenv("MRTR_TX_PREFIX"), transactional: os.Getenv("MRTR_TX_TRANSACTIONAL") == "true"}
}

// open opens the store and creates the notes table (the effect's own data,
// in the same database, its name unique to the test), and returns a count
// of its rows.
func (x txEnv) open(t testing.TB) (store.Store, func(ctx context.Context) (int, error)) {
	ctx := context.Background()
	notes := x.prefix + "notes"
	switch x.backend {
	case "sqlite":
		st, err := sqlitestore.Open(ctx, x.dsn, sqlitestore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", x.dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if _, err := db.Exec(`PRAGMA busy_timeout = 5000; CREATE TABLE IF NOT EXISTS ` + notes + ` (workflow TEXT, text TEXT)`); err != nil {
			t.Fatal(err)
		}
		return st, func(ctx context.Context) (n int, err error) {
			err = db.QueryRowContext(ctx, `SELECT count(*) FROM `+notes).Scan(&n)
			return n, err
		}
	case "postgres":
		st, err := pgstore.Open(ctx, x.dsn, pgstore.Options{TablePrefix: x.prefix})
		if err != nil {
			t.Fatal(err)
		}
		pool := st.Pool()
		if _, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+notes+` (workflow text, text text)`); err != nil {
			t.Fatal(err)
		}
		return st, func(ctx context.Context) (n int, err error) {
			err = pool.QueryRow(ctx, `SELECT count(*) FROM `+notes).Scan(&n)
			return n, err
		}
	}
	t.Fatalf("backend %q", x.backend)
	return nil, nil
}

// txNotify sends a note by writing a row, through the effect's
// transaction or straight to the database. With hang set it signals on
// stdout once the row is written and waits to be killed.
type txNotify struct {
	x        txEnv
	st       store.Store
	hang     bool
	fail     error // returned after the row is written
	attempts []mrtr.Attempt
}

func (h *txNotify) Authorize(context.Context, *testprog.NotifyFlow) error { return nil }

func (h *txNotify) SendNote(ctx context.Context, f *testprog.NotifyFlow) error {
	h.attempts = append(h.attempts, *f.Call.Attempt)
	notes := h.x.prefix + "notes"
	var err error
	switch {
	case h.x.backend == "sqlite" && h.x.transactional:
		var tx *sql.Tx
		if tx, err = sqlitestore.EffectTx(ctx); err == nil {
			_, err = tx.ExecContext(ctx, `INSERT INTO `+notes+` VALUES (?, ?)`, f.Call.WorkflowID, f.Note.Text)
		}
	case h.x.backend == "sqlite":
		var db *sql.DB
		if db, err = sql.Open("sqlite", h.x.dsn); err == nil {
			defer db.Close()
			_, err = db.ExecContext(ctx, `PRAGMA busy_timeout = 5000; INSERT INTO `+notes+` VALUES (?, ?)`, f.Call.WorkflowID, f.Note.Text)
		}
	case h.x.transactional:
		tx, terr := pgstore.EffectTx(ctx)
		if err = terr; err == nil {
			_, err = tx.Exec(ctx, `INSERT INTO `+notes+` VALUES ($1, $2)`, f.Call.WorkflowID, f.Note.Text)
		}
	default:
		pool := h.st.(*pgstore.Store).Pool()
		_, err = pool.Exec(ctx, `INSERT INTO `+notes+` VALUES ($1, $2)`, f.Call.WorkflowID, f.Note.Text)
	}
	if err != nil {
		return err
	}
	if h.fail != nil {
		return h.fail
	}
	if h.hang {
		fmt.Println("written")
		time.Sleep(time.Minute) // SIGKILLed here, before the engine commits
	}
	return nil
}

const txLease = 400 * time.Millisecond

func txHarness(t testing.TB, x txEnv, hang bool) (*mrtrtest.Harness[*testprog.NotifyFlow], *txNotify, func(context.Context) (int, error)) {
	st, count := x.open(t)
	t.Cleanup(func() { st.Close() })
	impl := &txNotify{x: x, st: st, hang: hang}
	clock := mrtrtest.NewClock()
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "tx", Codec: mrtrtest.NewCodec(t, clock), Store: st, Logger: quiet, Lease: txLease})
	if err != nil {
		t.Fatal(err)
	}
	return &mrtrtest.Harness[*testprog.NotifyFlow]{Program: testprog.NewNotifyProgram(impl), Engine: e, Store: st,
		Clock: clock, Principal: "alice", Capabilities: mrtrtest.AllCapabilities()}, impl, count
}

var txArgs = map[string]any{"to": "bob"}

func txAnswers() mcp.InputResponseMap {
	return mcp.InputResponseMap{"note": mrtrtest.Accept(map[string]any{"text": "hi"})}
}

// TestTxEffectChild is the child process: it runs the final round of the
// workflow whose token it is given and is killed mid-effect.
func TestTxEffectChild(t *testing.T) {
	if os.Getenv("MRTR_TX_CHILD") == "" {
		t.Skip("the child process of TestTransactionalEffectSurvivesACrash")
	}
	h, _, _ := txHarness(t, txEnvFromOS(), true)
	_, err := h.Call(context.Background(), txArgs, os.Getenv("MRTR_TX_TOKEN"), txAnswers())
	t.Fatalf("the child's round returned (%v); it should have been killed", err)
}

func TestTransactionalEffectSurvivesACrash(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		for _, transactional := range []bool{true, false} {
			name := backend + "/outside the transaction"
			if transactional {
				name = backend + "/in the effect's transaction"
			}
			t.Run(name, func(t *testing.T) {
				x := txEnv{backend: backend, prefix: storetest.UniqueName() + "_", transactional: transactional}
				if backend == "sqlite" {
					x.dsn = filepath.Join(t.TempDir(), "shared.db")
				} else {
					x.dsn = storetest.PostgresURL(t)
				}
				h, impl, count := txHarness(t, x, false)
				ask := call(t, h, txArgs, "", nil)

				child := exec.Command(os.Args[0], "-test.run=^TestTxEffectChild$", "-test.count=1")
				child.Env = append(os.Environ(), append(x.environ(), "MRTR_TX_TOKEN="+ask.RequestState)...)
				out, err := child.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				child.Stderr = os.Stderr
				if err := child.Start(); err != nil {
					t.Fatal(err)
				}
				written := make(chan bool, 1)
				go func() {
					sc := bufio.NewScanner(out)
					for sc.Scan() {
						if strings.TrimSpace(sc.Text()) == "written" {
							written <- true
							return
						}
					}
					written <- false
				}()
				select {
				case ok := <-written:
					if !ok {
						_ = child.Wait()
						t.Fatal("the child ended before its effect wrote")
					}
				case <-time.After(30 * time.Second):
					_ = child.Process.Kill()
					t.Fatal("the child's effect never wrote")
				}
				if err := child.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				var ee *exec.ExitError
				if err := child.Wait(); !errors.As(err, &ee) {
					t.Fatalf("child: %v", err)
				}

				time.Sleep(txLease + 100*time.Millisecond) // the dead child's lease lapses
				r := call(t, h, txArgs, ask.RequestState, txAnswers())
				if r.Final == nil || r.Final.Outcome != mrtr.OutcomeSuccess {
					t.Fatalf("the retry after the crash: %+v", r.Final)
				}
				if len(impl.attempts) != 1 || !impl.attempts[0].Takeover {
					t.Fatalf("the retry's attempts %+v, want one takeover", impl.attempts)
				}
				rows, err := count(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				want := 2 // outside the transaction the killed attempt's row stays
				if transactional {
					want = 1
				}
				if rows != want {
					t.Fatalf("%d notes rows, want %d", rows, want)
				}
				t.Logf("%s: %d row(s) after a SIGKILL mid-effect and a takeover", name, rows)
			})
		}
	}
}

// What an effect's transaction does on each way out: a refusal and a
// dependency failure roll its writes back (the refusal is still recorded
// and replayed; the failure lets a retry write once), a success commits
// them with its record (a retry replays it and writes nothing). Outside an
// effect, or on a store without transactions, EffectTx says so.
func TestEffectTransactionOutcomes(t *testing.T) {
	x := txEnv{backend: "sqlite", dsn: filepath.Join(t.TempDir(), "tx.db"), prefix: "t_", transactional: true}
	h, impl, count := txHarness(t, x, false)
	rows := func() int {
		t.Helper()
		n, err := count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	ask := call(t, h, txArgs, "", nil)
	impl.fail = mrtr.Reject("no notes today")
	r := call(t, h, txArgs, ask.RequestState, txAnswers())
	if r.Final.Outcome != mrtr.OutcomeRejected || rows() != 0 {
		t.Fatalf("refused effect: %+v, %d rows", r.Final, rows())
	}
	impl.fail = nil
	if again := call(t, h, txArgs, ask.RequestState, txAnswers()); again.Final.Text != r.Final.Text || rows() != 0 {
		t.Fatalf("retry of a refusal: %+v, %d rows", again.Final, rows())
	}

	ask = call(t, h, txArgs, "", nil)
	impl.fail = errors.New("mail server down")
	if r := call(t, h, txArgs, ask.RequestState, txAnswers()); r.Final.Outcome != mrtr.OutcomeError || rows() != 0 {
		t.Fatalf("failed effect: %+v, %d rows", r.Final, rows())
	}
	impl.fail = nil
	ok := call(t, h, txArgs, ask.RequestState, txAnswers())
	if ok.Final.Outcome != mrtr.OutcomeSuccess || rows() != 1 {
		t.Fatalf("retry after the failure: %+v, %d rows", ok.Final, rows())
	}
	if again := call(t, h, txArgs, ask.RequestState, txAnswers()); again.Final.Text != ok.Final.Text || rows() != 1 {
		t.Fatalf("retry of the success: %+v, %d rows", again.Final, rows())
	}

	if _, err := sqlitestore.EffectTx(context.Background()); !errors.Is(err, store.ErrNoEffectTx) {
		t.Fatalf("EffectTx outside an effect: %v", err)
	}
	if _, err := pgstore.EffectTx(context.Background()); !errors.Is(err, store.ErrNoEffectTx) {
		t.Fatalf("pgstore.EffectTx outside an effect: %v", err)
	}
	mem := mrtrtest.New(t, testprog.NewNotifyProgram(&txNotify{x: x, st: h.Store}))
	a := call(t, mem, txArgs, "", nil)
	if r := call(t, mem, txArgs, a.RequestState, txAnswers()); r.Final.Outcome != mrtr.OutcomeError {
		t.Fatalf("EffectTx on a memory store: %+v, want the effect to fail", r.Final)
	}
}
