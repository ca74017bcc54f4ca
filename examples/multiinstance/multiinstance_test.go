//go:build unix

package multiinstance

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domainopen"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storeopen"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

// The distributed proof (issue "Proof on the real wire", item 3).
//
// For each store (SQLite file, PostgreSQL, Redis) three processes of the
// example server share the store, the audience and the key ring. N
// workflows (charge_payment, close_support_ticket, provision_workspace,
// each on its own record) run concurrently in steps: at step s every
// workflow that has started sends its next round, round k of workflow i to
// instance (i+k) mod 3, so consecutive rounds of a workflow never meet the
// same instance. Workflows start at steps 1 to 4 so that some are in flight
// across every event. Between steps:
//
//	before step 2  SIGKILL instance 1, start it again on the same port
//	before step 3  key rotation phase 1: rolling restart, the new key
//	               opens only (MRTR_KEYS=K1,K2)
//	before step 4  expiry: three more instances whose requestState clock is
//	               an hour ahead (-time-offset) reject every continuation in
//	               flight with the restart message; the same continuations
//	               then complete on the fleet
//	before step 5  key rotation phase 2: rolling restart, the new key seals
//	               and the old one still opens (MRTR_KEYS=K2,K1)
//	before step 6  SIGKILL instance 2, start it again
//
// One workflow of each tool sends its final round 50 times at once, spread
// over the three instances. At the end every workflow must have its
// expected result, every reply must name its own workflow's records and no
// other's, every effect counter effects:<tool>:<id> must be exactly 1, and
// an instance with only the new key must replay final rounds sealed with
// it and reject those sealed with the retired key.

const (
	audience   = "mrtr-multiinstance"
	duplicates = 50
	steps      = 7
	// offset puts an instance's clock past every example TTL (30m at most)
	// plus the codec's skew.
	offset = time.Hour
)

var reasons = []string{"resolved", "duplicate", "cancelled"}

func TestMultiInstance(t *testing.T) {
	bin := buildServer(t)
	n := 30
	if testing.Short() {
		n = 12
	}
	t.Run("sqlite", func(t *testing.T) {
		proveFleet(t, bin, "sqlite:"+filepath.Join(t.TempDir(), "fleet.db"), n)
	})
	t.Run("postgres", func(t *testing.T) {
		proveFleet(t, bin, freshPostgres(t), n)
	})
	t.Run("redis", func(t *testing.T) {
		proveFleet(t, bin, freshRedis(t), n)
	})
}

// buildServer builds the example server's fleet build
// (examples/server/fleet: every store, River) once for the package's tests
// (each of TestMultiInstance, TestFaults and TestDurableTasks used to link
// its own copy: the costliest link of the suite, three times) into a
// directory TestMain removes.
func buildServer(t *testing.T) string {
	t.Helper()
	server.once.Do(func() {
		gobin, err := exec.LookPath("go")
		if err != nil {
			server.err = fmt.Errorf("the go command is needed to build the example server: %w", err)
			return
		}
		server.dir, err = os.MkdirTemp("", "multiinstance-")
		if err != nil {
			server.err = err
			return
		}
		bin := filepath.Join(server.dir, "server")
		began := time.Now()
		cmd := exec.Command(gobin, "build", "-o", bin, "github.com/mrtrgen/mrtrgen/examples/server/fleet")
		if out, err := cmd.CombinedOutput(); err != nil {
			server.err = fmt.Errorf("go build examples/server/fleet: %w\n%s", err, out)
			return
		}
		server.bin, server.took = bin, time.Since(began)
	})
	if server.err != nil {
		t.Fatal(server.err)
	}
	t.Logf("the example server was built in %v", server.took.Round(time.Millisecond))
	return server.bin
}

// server is the one build of the example server the tests share.
var server struct {
	once     sync.Once
	dir, bin string
	took     time.Duration
	err      error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if server.dir != "" {
		os.RemoveAll(server.dir)
	}
	os.Exit(code)
}

// ---------------------------------------------------------------------------
// Processes

// proc is one server process.
type proc struct {
	name    string
	addr    string // host:port it listens on
	cmd     *exec.Cmd
	exited  chan struct{}
	logPath string
	cs      *mcp.ClientSession
	hc      *http.Client
}

// fleet starts and stops the server processes of one store.
type fleet struct {
	t        *testing.T
	bin      string
	storeURL string
	dir      string
	args     []string // more flags for every process (the fault tests')

	mu     sync.Mutex
	all    []*proc // every process ever started, for the cleanup
	slots  [3]*proc
	serial int

	started, kills, graceful int
}

func newFleet(t *testing.T, bin, storeURL string) *fleet {
	f := &fleet{t: t, bin: bin, storeURL: storeURL, dir: t.TempDir()}
	t.Cleanup(f.killAll)
	return f
}

// killAll kills every process still running and closes the clients: it
// runs at the end of the test whatever happened.
func (f *fleet) killAll() {
	f.mu.Lock()
	procs := slices.Clone(f.all)
	f.mu.Unlock()
	for _, p := range procs {
		p.closeClient()
		select {
		case <-p.exited:
		default:
			_ = p.cmd.Process.Kill()
			select {
			case <-p.exited:
			case <-time.After(10 * time.Second):
				f.t.Errorf("%s (pid %d) did not exit after SIGKILL", p.name, p.cmd.Process.Pid)
			}
		}
	}
}

// start runs a server process listening on addr (127.0.0.1:0 for any free
// port) with key ring keys and clock offset off, and connects a client.
func (f *fleet) start(name, addr, keys string, off time.Duration) *proc {
	f.t.Helper()
	p, err := f.tryStart(name, addr, keys, off)
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

// tryStart is start for any goroutine: it returns its error.
func (f *fleet) tryStart(name, addr, keys string, off time.Duration) (*proc, error) {
	f.mu.Lock()
	f.serial++
	logPath := filepath.Join(f.dir, fmt.Sprintf("%02d-%s.log", f.serial, name))
	f.mu.Unlock()
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	args := []string{"-addr", addr, "-store", f.storeURL, "-audience", audience, "-instance", name,
		"-log-format", "json", "-log-level", "info"}
	args = append(args, f.args...)
	if off != 0 {
		args = append(args, "-time-offset", off.String())
	}
	cmd := exec.Command(f.bin, args...)
	cmd.Env = append(environWithout("MRTR_"), seal.EnvKeys+"="+keys)
	// The server logs to stderr: read it for the address, copy it to the
	// log file.
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	orphanProof(cmd)
	if err := cmd.Start(); err != nil {
		pw.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, exited: make(chan struct{}), logPath: logPath}
	f.mu.Lock()
	f.all = append(f.all, p)
	f.started++
	f.mu.Unlock()
	go func() {
		_ = cmd.Wait()
		pw.Close()
		close(p.exited)
	}()
	ready := make(chan string, 1)
	go func() {
		defer logFile.Close()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			line := sc.Bytes()
			// The log file is for reading after a failure: a write that fails
			// loses a line of it, not the line read here.
			_, _ = logFile.Write(append(line, '\n'))
			if !sent {
				var rec struct {
					Msg string `json:"msg"`
					URL string `json:"url"`
				}
				if json.Unmarshal(line, &rec) == nil && rec.Msg == "serving MCP" {
					ready <- rec.URL
					sent = true
				}
			}
		}
		_, _ = io.Copy(io.Discard, pr) // drain the rest of the log: nothing reads it
	}()
	select {
	case u := <-ready:
		pu, err := url.Parse(u)
		if err != nil {
			return nil, fmt.Errorf("%s logged URL %q: %w", name, u, err)
		}
		p.addr = pu.Host
	case <-p.exited:
		return nil, fmt.Errorf("%s exited before serving:\n%s", name, tail(logPath))
	case <-time.After(30 * time.Second):
		return nil, fmt.Errorf("%s did not start serving within 30s:\n%s", name, tail(logPath))
	}
	if host, _, _ := net.SplitHostPort(p.addr); host != "127.0.0.1" {
		return nil, fmt.Errorf("%s listens on %s, not on loopback", name, p.addr)
	}
	if err := p.connect(); err != nil {
		return nil, err
	}
	return p, nil
}

// environWithout returns the environment without the variables that start
// with prefix (the server must see only the keys the test gives it).
func environWithout(prefix string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, prefix) {
			env = append(env, kv)
		}
	}
	return env
}

// connect opens a go-sdk client session on protocol 2026-07-28 with its
// automatic multi-round handling disabled: the test answers every round.
func (p *proc) connect() error {
	p.hc = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 60 * time.Second}
	c := mcp.NewClient(&mcp.Implementation{Name: "multiinstance-test", Version: "test"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		// Declared so that the capabilities include elicitation and
		// sampling; on 2026-07-28 the server asks in input_required results.
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("asked over the session")
		},
		//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; this test covers it
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return nil, errors.New("asked over the session")
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + p.addr + "/mcp", HTTPClient: p.hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w\n%s", p.name, err, tail(p.logPath))
	}
	p.cs = cs
	if v := cs.InitializeResult().ProtocolVersion; v < "2026-07-28" {
		return fmt.Errorf("%s negotiated %s, want 2026-07-28 or later", p.name, v)
	}
	return nil
}

func (p *proc) closeClient() {
	if p.cs != nil {
		p.cs.Close()
	}
	if p.hc != nil {
		p.hc.CloseIdleConnections()
	}
}

// call sends a tools/call. The SDK writes the request's _meta into the
// params it is given, so each call gets its own copy: the same round is
// sent many times at once.
func (p *proc) call(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	own := *params
	own.Meta = maps.Clone(params.Meta)
	return p.cs.CallTool(ctx, &own)
}

// kill sends SIGKILL and waits for the process to go.
func (f *fleet) kill(p *proc) {
	f.t.Helper()
	// Kill first: closing the client waits for the calls in flight, and a
	// kill is meant to cut them off.
	if err := p.cmd.Process.Kill(); err != nil {
		f.t.Fatalf("killing %s: %v", p.name, err)
	}
	<-p.exited
	p.closeClient()
	f.kills++
}

// stop sends SIGTERM (graceful: requests in flight finish) and waits; a
// process that does not stop in 15s is killed and the test fails.
func (f *fleet) stop(p *proc) {
	f.t.Helper()
	p.closeClient()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
		f.t.Errorf("%s did not stop within 15s of SIGTERM", p.name)
	}
}

// restart replaces slot i by a new process on the same port.
func (f *fleet) restart(i int, keys string, hard bool) {
	old := f.slots[i]
	if hard {
		f.kill(old)
	} else {
		f.stop(old)
		f.graceful++
	}
	f.slots[i] = f.start(fmt.Sprintf("web-%d", i), old.addr, keys, 0)
}

// tail returns the end of a log file, for failure messages.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// logRecords returns the JSON log records of a process whose field (msg,
// level) is value.
func logRecords(t *testing.T, path, field, value string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(string(b), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec[field] == value {
			out = append(out, rec)
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// Workflows

type kind int

const (
	ticket kind = iota
	payment
	workspace
)

// workflow is one run of a tool on its own record.
type workflow struct {
	i      int
	kind   kind
	tool   string
	id     string // the record: ticket id, invoice id, team slug
	marker string // text naming the record that only this workflow's replies may contain
	memo   string // unique text that travels through the workflow (subject, welcome note)
	args   map[string]any
	rounds int // rounds of the workflow
	start  int // step of its first round
	dup    bool

	amount int64 // payment
	seats  int   // workspace
	reason string

	// Progress.
	done      int                 // rounds done
	state     string              // requestState to send next
	asked     mcp.InputRequestMap // what the last round asked
	minted    []int               // step at which each requestState was issued
	final     *mcp.CallToolParams
	finalText string
	problems  []string
}

func (w *workflow) failf(format string, args ...any) {
	w.problems = append(w.problems, fmt.Sprintf("round %d: ", w.done+1)+fmt.Sprintf(format, args...))
}

func (w *workflow) String() string { return fmt.Sprintf("workflow %d (%s %s)", w.i, w.tool, w.id) }

// newWorkflows makes n workflows, a third of each tool, their starts spread
// over steps 1..4, and marks one of each tool to send its final round
// many times.
func newWorkflows(n int) []*workflow {
	var ws []*workflow
	dupStart := map[kind]int{ticket: 4, payment: 2, workspace: 1}
	dupDone := map[kind]bool{}
	for i := range n {
		w := &workflow{i: i, kind: kind(i % 3), start: 1 + (i/3)%4, memo: fmt.Sprintf("memo-%03d-%s", i, letters(6))}
		switch w.kind {
		case ticket:
			w.tool, w.rounds = "close_support_ticket", 2
			w.id = fmt.Sprintf("81%04d", i)
			w.marker = "ticket " + w.id
			w.reason = reasons[i%len(reasons)]
			w.args = map[string]any{"ticketId": w.id}
		case payment:
			w.tool, w.rounds = "charge_payment", 2
			w.id = fmt.Sprintf("inv_82%04d", i)
			w.marker = w.id
			w.amount = 1000 + int64(i)
			w.args = map[string]any{"invoiceId": w.id}
		case workspace:
			w.tool, w.rounds = "provision_workspace", 4
			w.id = fmt.Sprintf("mi-team-%03d", i)
			w.marker = w.id
			w.seats = 1 + i%9
			w.args = map[string]any{"team": w.id}
		}
		if w.start == dupStart[w.kind] && !dupDone[w.kind] {
			w.dup, dupDone[w.kind] = true, true
		}
		ws = append(ws, w)
	}
	return ws
}

// letters returns n random letters that are not hexadecimal digits, so a
// memo can never appear inside a random id.
func letters(n int) string {
	const alphabet = "ghijklmnopqrstuvwxyz"
	b := make([]byte, n)
	for i := range b {
		k, _ := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		b[i] = alphabet[k.Int64()]
	}
	return string(b)
}

// seed stores each workflow's own record.
func seed(t *testing.T, data domain.Store, ws []*workflow) {
	t.Helper()
	ctx := context.Background()
	for _, w := range ws {
		var key string
		var rec any
		switch w.kind {
		case ticket:
			key, rec = domain.TicketKey(w.id), domain.Ticket{ID: w.id, Subject: "Printer " + w.memo, Status: "open"}
		case payment:
			key, rec = domain.InvoiceKey(w.id), domain.Invoice{ID: w.id, AmountCents: w.amount, Currency: "EUR",
				CardLast4: fmt.Sprintf("%04d", 4000+w.i), Status: "open"}
		case workspace:
			key, rec = domain.TeamKey(w.id), domain.Team{Slug: w.id, MaxSeats: 10}
		}
		if err := domain.Save(ctx, data, key, rec); err != nil {
			t.Fatal(err)
		}
	}
}

// answers answers what the previous round asked, with this workflow's own
// inputs.
func (w *workflow) answers() mcp.InputResponseMap {
	out := mcp.InputResponseMap{}
	for key := range w.asked {
		switch key {
		case "reason":
			out[key] = mrtrtest.Accept(map[string]any{"closeReason": w.reason, "comment": "closing " + w.memo})
		case "confirm":
			out[key] = mrtrtest.Accept(map[string]any{"confirm": true})
		case "plan":
			out[key] = mrtrtest.Accept(map[string]any{"tier": "business", "seats": w.seats})
		case "placement":
			out[key] = mrtrtest.Accept(map[string]any{"regions": []any{"eu-west", "us-east"}})
		case "welcome":
			out[key] = mrtrtest.Text("Welcome " + w.memo + "!")
		case "projects":
			out[key] = mrtrtest.RootsOf("file:///src/" + w.memo)
		}
	}
	return out
}

// expectedAsks lists the input request keys of round k (1-based) that is
// not the last.
func (w *workflow) expectedAsks(k int) []string {
	switch w.kind {
	case ticket:
		return []string{"reason"}
	case payment:
		return []string{"confirm"}
	}
	return [][]string{{"plan"}, {"placement", "projects", "welcome"}, {"confirm"}}[k-1]
}

var (
	closedText  = regexp.MustCompile(`^Closed ticket (\d+) \((\w+)\)\.$`)
	chargedText = regexp.MustCompile(`^Charged invoice (inv_\d+) (\d+) cents \(EUR\); charge (ch_[0-9a-f]+)\.$`)
	readyText   = regexp.MustCompile(`^Workspace (ws_[0-9a-f]+) is ready for ([a-z0-9-]+)\. (.*)$`)
)

// checkFinal checks the text of the final result.
func (w *workflow) checkFinal(text string) {
	switch w.kind {
	case ticket:
		m := closedText.FindStringSubmatch(text)
		if m == nil || m[1] != w.id || m[2] != w.reason {
			w.failf("final %q, want Closed ticket %s (%s).", text, w.id, w.reason)
		}
	case payment:
		m := chargedText.FindStringSubmatch(text)
		if m == nil || m[1] != w.id || m[2] != fmt.Sprint(w.amount) {
			w.failf("final %q, want a charge of %d cents on %s", text, w.amount, w.id)
		}
	case workspace:
		m := readyText.FindStringSubmatch(text)
		if m == nil || m[2] != w.id || m[3] != "Welcome "+w.memo+"!" {
			w.failf("final %q, want workspace of %s welcomed with %s", text, w.id, w.memo)
		}
	}
}

// ---------------------------------------------------------------------------
// The proof

type run struct {
	t     *testing.T
	f     *fleet
	ws    []*workflow
	rings [3]string // phase → MRTR_KEYS
	phase int

	mu          sync.Mutex
	roundsSent  int
	dupSent     int
	probes      int
	probeAt     map[string]int // offset instance log → rejections expected
	crossChecks int
}

// phaseOf returns the rotation phase in force at step s (0: K1 only; 1:
// K1 seals, K2 opens; 2: K2 seals, K1 opens).
func phaseOf(s int) int {
	switch {
	case s <= 2:
		return 0
	case s <= 4:
		return 1
	}
	return 2
}

func proveFleet(t *testing.T, bin, storeURL string, n int) {
	began := time.Now()
	ctx := context.Background()
	k1, err := seal.GenerateKeySpec(1)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := seal.GenerateKeySpec(2)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{t: t, f: newFleet(t, bin, storeURL), ws: newWorkflows(n), probeAt: map[string]int{}}
	r.rings = [3]string{k1, k1 + "," + k2, k2 + "," + k1}

	data, err := domainopen.Open(ctx, storeURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { data.Close() })
	seed(t, data, r.ws)

	// Three instances, started together as a fleet would be.
	var wg sync.WaitGroup
	var errs [3]error
	for i := range 3 {
		wg.Go(func() {
			r.f.slots[i], errs[i] = r.f.tryStart(fmt.Sprintf("web-%d", i), "127.0.0.1:0", r.rings[0], 0)
		})
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		t.Fatal(err)
	}

	for s := 1; s <= steps; s++ {
		switch s {
		case 2:
			r.f.restart(1, r.rings[0], true)
		case 3:
			r.rotate(1)
		case 4:
			r.probeExpiry(ctx)
		case 5:
			r.rotate(2)
		case 6:
			r.f.restart(2, r.rings[2], true)
		}
		if t.Failed() {
			break
		}
		r.step(ctx, s)
	}
	if !t.Failed() {
		r.retireOldKey(ctx)
	}
	r.report(ctx, data, storeURL, time.Since(began))
}

// rotate restarts the instances one after the other with the ring of
// phase p.
func (r *run) rotate(p int) {
	r.phase = p
	for i := range 3 {
		r.f.restart(i, r.rings[p], false)
	}
	for i := range 3 {
		rec := logRecords(r.t, r.f.slots[i].logPath, "msg", "serving MCP")
		if len(rec) != 1 {
			r.t.Fatalf("%s: %d 'serving MCP' records", r.f.slots[i].name, len(rec))
		}
		want := []any{float64(1), float64(2)}
		if p == 2 {
			want = []any{float64(2), float64(1)}
		}
		if got, _ := rec[0]["keys"].([]any); !slices.Equal(got, want) {
			r.t.Fatalf("%s serves with keys %v, want %v", r.f.slots[i].name, rec[0]["keys"], want)
		}
	}
}

// step sends the next round of every workflow that has started and not
// ended, all at once.
func (r *run) step(ctx context.Context, s int) {
	var wg sync.WaitGroup
	for _, w := range r.ws {
		if s < w.start || w.done >= w.rounds || len(w.problems) > 0 {
			continue
		}
		wg.Go(func() { r.round(ctx, w, s) })
	}
	wg.Wait()
}

// round sends round k = done+1 of w to instance (i+k) mod 3 and checks
// the reply.
func (r *run) round(ctx context.Context, w *workflow, s int) {
	k := w.done + 1
	params := &mcp.CallToolParams{Name: w.tool, Arguments: w.args}
	if k > 1 {
		params.RequestState, params.InputResponses = w.state, w.answers()
	}
	inst := (w.i + k) % 3
	last := k == w.rounds

	var res *mcp.CallToolResult
	var err error
	if last && w.dup {
		res, err = r.duplicateFinal(ctx, w, params, inst)
	} else {
		res, err = r.f.slots[inst].call(ctx, params)
		r.mu.Lock()
		r.roundsSent++
		r.mu.Unlock()
	}
	if err != nil {
		w.failf("on %s: %v", r.f.slots[inst].name, err)
		return
	}
	r.crossCheck(w, res)
	if !last {
		if !res.NeedsInput() || res.RequestState == "" {
			w.failf("on %s: want input_required with a requestState, got %s", r.f.slots[inst].name, resultText(res))
			return
		}
		keys := make([]string, 0, len(res.InputRequests))
		for key := range res.InputRequests {
			keys = append(keys, key)
		}
		slices.Sort(keys)
		if want := w.expectedAsks(k); !slices.Equal(keys, want) {
			w.failf("asked %v, want %v", keys, want)
			return
		}
		w.state, w.asked = res.RequestState, res.InputRequests
		w.minted = append(w.minted, s)
		w.done = k
		return
	}
	if res.NeedsInput() || res.IsError {
		w.failf("on %s: want a successful final result, got %s", r.f.slots[inst].name, resultText(res))
		return
	}
	w.finalText, w.final, w.done = resultText(res), params, k
	w.checkFinal(w.finalText)
}

// duplicateFinal sends the same final round many times at once, spread
// over the three instances; every reply must be the same.
func (r *run) duplicateFinal(ctx context.Context, w *workflow, params *mcp.CallToolParams, first int) (*mcp.CallToolResult, error) {
	results := make([]*mcp.CallToolResult, duplicates)
	errs := make([]error, duplicates)
	var wg sync.WaitGroup
	for g := range duplicates {
		p := r.f.slots[(first+g)%3]
		wg.Go(func() { results[g], errs[g] = p.call(ctx, params) })
	}
	wg.Wait()
	r.mu.Lock()
	r.roundsSent++
	r.dupSent += duplicates - 1
	r.mu.Unlock()
	for g, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("duplicate %d of the final round: %w", g, err)
		}
	}
	want := resultText(results[0])
	for g, res := range results {
		if got := resultText(res); got != want || res.IsError != results[0].IsError {
			return nil, fmt.Errorf("duplicate %d of the final round answered %q, duplicate 0 %q", g, got, want)
		}
	}
	return results[0], nil
}

// crossCheck: a reply names its own workflow and no other. The opaque
// requestState is left out; everything else (questions, schemas, text) is
// searched.
func (r *run) crossCheck(w *workflow, res *mcp.CallToolResult) {
	shown := *res
	shown.RequestState = ""
	b, err := json.Marshal(&shown)
	if err != nil {
		w.failf("marshal reply: %v", err)
		return
	}
	text := string(b)
	if !strings.Contains(text, w.marker) {
		w.failf("reply does not name its own record %q: %s", w.marker, text)
	}
	for _, o := range r.ws {
		if o != w && (strings.Contains(text, o.marker) || strings.Contains(text, o.memo)) {
			w.failf("reply shows %s's data: %s", o, text)
		}
	}
	r.mu.Lock()
	r.crossChecks++
	r.mu.Unlock()
}

func resultText(res *mcp.CallToolResult) string {
	if res == nil {
		return "<nil>"
	}
	if res.NeedsInput() {
		b, _ := json.Marshal(res.InputRequests)
		return "input_required " + string(b)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// probeExpiry starts three instances whose clock is an hour ahead (past
// every TTL and the skew) on the same store and keys, and sends each of
// them the next round of every workflow in flight: each must answer the
// one restart error, and log the reason "expired". Nothing is consumed:
// the same rounds go to the fleet next.
func (r *run) probeExpiry(ctx context.Context) {
	var late [3]*proc
	for i := range 3 {
		late[i] = r.f.start(fmt.Sprintf("late-%d", i), "127.0.0.1:0", r.rings[r.phase], offset)
	}
	var inflight []*workflow
	for _, w := range r.ws {
		if w.done > 0 && w.done < w.rounds && len(w.problems) == 0 {
			inflight = append(inflight, w)
		}
	}
	tools := map[string]bool{}
	var wg sync.WaitGroup
	for _, w := range inflight {
		tools[w.tool] = true
		params := &mcp.CallToolParams{Name: w.tool, Arguments: w.args, RequestState: w.state, InputResponses: w.answers()}
		for _, p := range late {
			wg.Go(func() {
				res, err := p.call(ctx, params)
				var je *jsonrpc.Error
				if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || je.Message != seal.PublicMessage {
					r.t.Errorf("%s past its TTL on %s: got %s, %v; want error %d %q", w, p.name, resultText(res), err,
						jsonrpc.CodeInvalidParams, seal.PublicMessage)
				}
			})
		}
	}
	wg.Wait()
	if len(tools) != 3 {
		r.t.Errorf("the expiry probe covered tools %v, want all three", tools)
	}
	for _, p := range late {
		r.f.stop(p)
		rejected := logRecords(r.t, p.logPath, "msg", "mrtr: requestState rejected")
		expired := 0
		for _, rec := range rejected {
			if rec["reason"] == "expired" {
				expired++
			}
		}
		if expired != len(inflight) || len(rejected) != len(inflight) {
			r.t.Errorf("%s logged %d rejections, %d of them expired; want %d expired", p.name, len(rejected), expired, len(inflight))
		}
	}
	r.mu.Lock()
	r.probes += 3 * len(inflight)
	r.mu.Unlock()
	r.t.Logf("expiry: %d continuations in flight (%d tools) rejected as expired on each of 3 instances %v ahead", len(inflight), len(tools), offset)
}

// retireOldKey completes the rotation: an instance holding only the new
// key replays every final round whose requestState was sealed with it and
// rejects every one sealed with the retired key.
func (r *run) retireOldKey(ctx context.Context) {
	k2only := strings.SplitN(r.rings[2], ",", 2)[0]
	p := r.f.start("retired-k1", "127.0.0.1:0", k2only, 0)
	defer r.f.stop(p)
	var replayed, refused int
	for _, w := range r.ws {
		if w.final == nil {
			continue
		}
		sealedWithNew := phaseOf(w.minted[len(w.minted)-1]) == 2
		res, err := p.call(ctx, w.final)
		r.mu.Lock()
		r.probes++
		r.mu.Unlock()
		switch {
		case sealedWithNew && (err != nil || resultText(res) != w.finalText):
			w.failf("final round sealed with the new key, resent to %s: %s, %v; want the first reply %q", p.name, resultText(res), err, w.finalText)
		case sealedWithNew:
			replayed++
		default:
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Message != seal.PublicMessage {
				w.failf("final round sealed with the retired key, resent to %s: %s, %v; want %q", p.name, resultText(res), err, seal.PublicMessage)
			}
			refused++
		}
	}
	if replayed == 0 || refused == 0 {
		r.t.Errorf("key retirement: %d replayed, %d refused; want some of each", replayed, refused)
	}
	r.t.Logf("key retirement: an instance with the new key only replayed %d final rounds sealed with it and refused %d sealed with the old one", replayed, refused)
}

// report checks the domain data and prints the figures.
func (r *run) report(ctx context.Context, data domain.Store, storeURL string, wall time.Duration) {
	t := r.t
	lost, duplicated := 0, 0
	for _, w := range r.ws {
		if w.done == w.rounds && len(w.problems) == 0 {
			r.checkRecord(ctx, data, w)
		}
		n, err := domain.Effects(ctx, data, w.tool, w.id)
		if err != nil {
			w.failf("effect counter: %v", err)
		}
		if n > 1 {
			duplicated += int(n - 1)
			w.failf("effect ran %d times", n)
		}
		if n == 0 && w.done == w.rounds {
			w.failf("completed without its effect")
		}
		if w.done != w.rounds || len(w.problems) > 0 {
			lost++
			for _, p := range w.problems {
				t.Errorf("%s: %s", w, p)
			}
			if w.done != w.rounds && len(w.problems) == 0 {
				t.Errorf("%s: stopped after %d of %d rounds", w, w.done, w.rounds)
			}
		}
	}
	// The servers' own view: nothing may have gone wrong on their side
	// (ERROR records: a reply not stored, an effect whose record was lost, a
	// failed round), and the only warnings are the probes' rejections (and
	// the clock-offset notice).
	warnings := map[string]int{}
	for _, p := range r.f.all {
		b, err := os.ReadFile(p.logPath)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			var rec struct{ Level, Msg string }
			if json.Unmarshal([]byte(line), &rec) != nil {
				continue
			}
			switch rec.Level {
			case "ERROR":
				t.Errorf("%s logged an error: %s", p.name, line)
			case "WARN":
				warnings[rec.Msg]++
				if !strings.HasPrefix(rec.Msg, "TESTING: ") && rec.Msg != "mrtr: requestState rejected" {
					t.Errorf("%s logged an unexpected warning: %s", p.name, line)
				}
			}
		}
	}
	t.Logf("server warnings: %v", warnings)
	store := strings.SplitN(storeURL, ":", 2)[0]
	t.Logf("multi-instance %s: workflows=%d rounds=%d duplicate-final-sends=%d probes=%d instances=3 processes=%d kills=%d rolling-restarts=%d lost=%d duplicated-effects=%d cross-checked-replies=%d wall=%s",
		store, len(r.ws), r.roundsSent, r.dupSent, r.probes, r.f.started, r.f.kills, r.f.graceful, lost, duplicated, r.crossChecks, wall.Round(time.Millisecond))
	if lost != 0 || duplicated != 0 {
		t.Errorf("lost %d workflows, %d duplicated effects; want 0 and 0", lost, duplicated)
		for _, p := range r.f.all {
			t.Logf("log of %s:\n%s", p.name, tail(p.logPath))
		}
	}
}

// checkRecord checks that the workflow's effect landed on its record with
// its own inputs.
func (r *run) checkRecord(ctx context.Context, data domain.Store, w *workflow) {
	switch w.kind {
	case ticket:
		tk, _, err := domain.Load[domain.Ticket](ctx, data, domain.TicketKey(w.id))
		if err != nil || tk.Status != "closed" || tk.CloseReason != w.reason || tk.Comment != "closing "+w.memo {
			w.failf("ticket record %+v, %v", tk, err)
		}
	case payment:
		inv, _, err := domain.Load[domain.Invoice](ctx, data, domain.InvoiceKey(w.id))
		if err != nil || inv.Status != "paid" || inv.ChargeID == "" || !strings.HasSuffix(w.finalText, "charge "+inv.ChargeID+".") {
			w.failf("invoice record %+v, %v; final %q", inv, err, w.finalText)
		}
	case workspace:
		team, _, err := domain.Load[domain.Team](ctx, data, domain.TeamKey(w.id))
		if err != nil || team.WorkspaceID == "" || !strings.HasPrefix(w.finalText, "Workspace "+team.WorkspaceID+" ") {
			w.failf("team record %+v, %v; final %q", team, err, w.finalText)
			return
		}
		ws, _, err := domain.Load[domain.Workspace](ctx, data, domain.WorkspaceKey(team.WorkspaceID))
		if err != nil || ws.Team != w.id || ws.Seats != int64(w.seats) || ws.Welcome != "Welcome "+w.memo+"!" {
			w.failf("workspace record %+v, %v", ws, err)
		}
	}
}

// ---------------------------------------------------------------------------
// Store isolation

func withPrefix(t *testing.T, u, prefix string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q := p.Query()
	q.Set(storeopen.PrefixParam, prefix)
	p.RawQuery = q.Encode()
	return p.String()
}

// freshPostgres is the URL of the test database under a new table prefix,
// whose tables (and River jobs) are dropped when t ends.
func freshPostgres(t *testing.T) string {
	base := storetest.PostgresURL(t)
	prefix := storetest.UniqueName() + "_"
	t.Cleanup(func() { dropPostgres(base, prefix) })
	return withPrefix(t, base, prefix)
}

// freshRedis is the URL of the test Redis under a new key prefix, whose
// keys are deleted when t ends.
func freshRedis(t *testing.T) string {
	base := storetest.RedisURL(t)
	prefix := storetest.UniqueName() + ":"
	t.Cleanup(func() { dropRedis(base, prefix) })
	return withPrefix(t, base, prefix)
}

func dropPostgres(base, prefix string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	for _, table := range []string{"ops", "states", "approvals", "example_kv", "tasks"} {
		if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS "+prefix+table); err != nil {
			return // best effort, as the connection above: leftovers have unique prefixes
		}
	}
	// The fleet's River jobs (tasksopen names the queue after the prefix);
	// River's own tables are shared by every fleet.
	_, _ = conn.Exec(ctx, "DELETE FROM river_job WHERE queue = $1", prefix+"tasks")
}

func dropRedis(base, prefix string) {
	ctx := context.Background()
	opts, err := redis.ParseURL(base)
	if err != nil {
		return
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	for it := rdb.Scan(ctx, 0, prefix+"*", 100).Iterator(); it.Next(ctx); {
		rdb.Del(ctx, it.Val())
	}
}
