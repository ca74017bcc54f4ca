//go:build unix

package multiinstance

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domainopen"
	"github.com/mrtrgen/mrtrgen/internal/faultproxy"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
)

// The fault test (issue 10, "Done when"): what the runtime guarantees about
// side effects when the store fails and when an instance dies.
//
// Effects are counted from the handler's side: the example server runs
// with -effect-log, so every run of an effect method appends a start and an
// end line to one file shared by the instances (domain.EffectLog). The
// domain counter effects:<tool>:<id> is not enough: the example effects are
// idempotent themselves, so a second run would show there as one change.
//
// TestFaults/store-link, on PostgreSQL and Redis: two instances reach the
// mrtr store through a faultproxy (the business data, like a payment
// provider, is reached directly), and 32 workflows, half charge_payment
// (business key charge-{invoiceId}) and half close_support_ticket (the
// default {workflowId} key), are open at once. Their final rounds are
// spread over the fault schedule, and each effect takes 300ms
// (-effect-delay), so the faults hit effects in progress: four times the
// link is cut (every connection reset, new ones refused) for 1s while an
// effect runs, then it is black-holed (connections held, nothing
// forwarded) for 2s, longer than a store call should take (-store-timeout
// 1s) and shorter than what the lease (4.5s) guarantees: a holder renews
// every third of its lease and retries a failed renewal every twentieth,
// so an outage that begins just before a renewal leaves it 2/3 - 1/20 of
// the lease (2.78s here) to get one through. With a 3s lease that was
// 1.85s, shorter than the hole: under load a retry took the lapsed claim of
// a charge that had returned, found the invoice paid and said so (lost=1,
// issue 29's CI). Clients behave like real ones: a
// timeout per call, retries of the same requestState with the same answers
// after a backoff, a bounded total time. During the black hole six more
// clients send their final round and give up after 300ms without
// retrying; then a second black hole of 850ms, shorter than a store call
// may take, gets four more such clients, who leave after 200ms: only their
// leaving (not a store timeout) can stop what they asked for. The 650ms
// between their leaving and the store's return is what the server has to
// notice a closed connection. It was 300ms (a 600ms hole, leaving after
// 300ms) when the test failed once on two cores busy with other packages'
// tests (issue 28); a server process not scheduled in time to see its
// client go is the one timing this test depends on, so it got the margin.
//
// Expected: every workflow ends with its success (lost=0); no effect that
// returned runs again (duplicated=0); and no effect runs for a client that
// left before its effect started (abandoned-effects=0).
//
// TestFaults/kill-mid-effect, on a SQLite file, PostgreSQL and Redis: an
// instance is SIGKILLed while two effects (one of each key kind) are in
// progress; their clients retry on the other instance. The documented
// behaviour for a crash mid-effect is at least once: after the lease the
// retry takes the operation over and runs the effect again, told that it is
// a takeover (mrtr.Call.Attempt) so that it can check the downstream system
// first. The test asserts exactly that: two runs, the first never ended, the
// second is a takeover and succeeds, and the client gets the success.

const (
	faultWorkflows = 32
	faultImpatient = 6 // clients that leave in the long black hole
	faultFickle    = 4 // clients that leave in the short one
	faultCuts      = 4
	faultCutFor    = time.Second
	faultCutGap    = 400 * time.Millisecond
	faultHoleFor   = 2 * time.Second
	// The short black hole ends before a store call times out.
	faultShortHoleFor = 850 * time.Millisecond
	faultLease        = 4500 * time.Millisecond
	// A store call should not take longer than this; the black hole does.
	faultStoreTimeout = time.Second
	faultEffectTook   = 300 * time.Millisecond
	// A client waits this long for a reply before it gives up on the call
	// (and retries it), and this long in all for its workflow.
	faultPatience = 1500 * time.Millisecond
	faultBound    = 40 * time.Second
	// The impatient clients of the black hole give up after this long.
	faultImpatience = 200 * time.Millisecond

	killLease = 2 * time.Second
	killDelay = 1500 * time.Millisecond
)

func TestFaults(t *testing.T) {
	bin := buildServer(t)
	t.Run("store-link", func(t *testing.T) {
		t.Run("postgres", func(t *testing.T) {
			proveStoreFaults(t, bin, freshPostgres(t))
		})
		t.Run("redis", func(t *testing.T) {
			proveStoreFaults(t, bin, freshRedis(t))
		})
	})
	t.Run("kill-mid-effect", func(t *testing.T) {
		t.Run("sqlite", func(t *testing.T) {
			proveKillMidEffect(t, bin, "sqlite:"+filepath.Join(t.TempDir(), "fleet.db"))
		})
		t.Run("postgres", func(t *testing.T) {
			proveKillMidEffect(t, bin, freshPostgres(t))
		})
		t.Run("redis", func(t *testing.T) {
			proveKillMidEffect(t, bin, freshRedis(t))
		})
	})
}

// ---------------------------------------------------------------------------
// Store link faults

type faultRun struct {
	t       *testing.T
	f       *fleet
	proxy   *faultproxy.Proxy
	logPath string
	ws      []*workflow // the clients that see their workflow through
	late    []*workflow // the clients that give up during the long black hole
	later   []*workflow // the clients that give up during the short one
	began   time.Time

	mu             sync.Mutex
	calls, retries int
	cuts, holes    int
	restored       time.Time      // when the last fault ended
	windows        [][2]time.Time // when the link was cut or black-holed
	unsynchronised int            // faults that found no effect in progress
}

func proveStoreFaults(t *testing.T, bin, directURL string) {
	ctx := context.Background()
	proxy, proxied := proxyStore(t, directURL)
	r := &faultRun{t: t, proxy: proxy, logPath: filepath.Join(t.TempDir(), "effects.log")}
	r.f = newFleet(t, bin, proxied)
	r.f.args = []string{"-data", directURL, "-lease", faultLease.String(), "-store-timeout", faultStoreTimeout.String(),
		"-effect-log", r.logPath, "-effect-delay", faultEffectTook.String()}
	all := faultWorkflowSet(faultWorkflows+faultImpatient+faultFickle, 90)
	r.ws, r.late, r.later = all[:faultWorkflows], all[faultWorkflows:faultWorkflows+faultImpatient], all[faultWorkflows+faultImpatient:]

	data, err := domainopen.Open(ctx, directURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { data.Close() })
	seed(t, data, all)
	r.startFleet(2)

	// Every workflow's first round, all at once (the first rounds of these
	// tools do not touch the mrtr store); the impatient clients' too.
	r.began = time.Now()
	var wg sync.WaitGroup
	for _, w := range all {
		wg.Go(func() { r.firstRound(ctx, w) })
	}
	wg.Wait()
	// Then the final rounds, spread over the fault schedule, while the
	// faults happen.
	schedule := time.Duration(faultCuts)*(faultCutFor+faultCutGap+faultEffectTook) + faultHoleFor
	for k, w := range r.ws {
		think := schedule * time.Duration(k) / time.Duration(len(r.ws))
		wg.Go(func() { r.finalRound(ctx, w, think) })
	}
	wg.Go(func() { r.faults(ctx) })
	wg.Wait()
	r.settle()
	r.report(ctx, data)
}

// proxyStore starts a faultproxy in front of the store of u and returns it
// with u pointing at it.
func proxyStore(t *testing.T, u string) (*faultproxy.Proxy, string) {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := faultproxy.Start(t.Context(), p.Host, faultproxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	p.Host = proxy.Addr()
	return proxy, p.String()
}

// faultWorkflowSet makes n workflows, alternately close_support_ticket and
// charge_payment, on records of their own (ids starting with base).
func faultWorkflowSet(n, base int) []*workflow {
	var ws []*workflow
	for i := range n {
		w := &workflow{i: i, memo: fmt.Sprintf("memo-%03d-%s", i, letters(6)), rounds: 2}
		if i%2 == 0 {
			w.kind, w.tool = ticket, "close_support_ticket"
			w.id = fmt.Sprintf("%d%04d", base+1, i)
			w.marker = "ticket " + w.id
			w.reason = reasons[i%len(reasons)]
			w.args = map[string]any{"ticketId": w.id}
		} else {
			w.kind, w.tool = payment, "charge_payment"
			w.id = fmt.Sprintf("inv_%d%04d", base+2, i)
			w.marker = w.id
			w.amount = 1000 + int64(i)
			w.args = map[string]any{"invoiceId": w.id}
		}
		ws = append(ws, w)
	}
	return ws
}

// startFleet starts n instances on one new key ring.
func (r *faultRun) startFleet(n int) {
	keys, err := seal.GenerateKeySpec(1)
	if err != nil {
		r.t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			r.f.slots[i], errs[i] = r.f.tryStart(fmt.Sprintf("web-%d", i), "127.0.0.1:0", keys, 0)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		r.t.Fatal(err)
	}
}

func (r *faultRun) firstRound(ctx context.Context, w *workflow) {
	params := &mcp.CallToolParams{Name: w.tool, Arguments: w.args}
	res, err := r.retrying(ctx, params, w.i%2, time.Now().Add(faultBound))
	if err != nil {
		w.failf("%v", err)
		return
	}
	if !res.NeedsInput() || res.RequestState == "" {
		w.failf("want input_required with a requestState, got %s", resultText(res))
		return
	}
	w.state, w.asked, w.done = res.RequestState, res.InputRequests, 1
}

// finalRound answers after think, retrying as a real client would, and
// checks the result.
func (r *faultRun) finalRound(ctx context.Context, w *workflow, think time.Duration) {
	if w.done != 1 {
		return
	}
	time.Sleep(think)
	params := &mcp.CallToolParams{Name: w.tool, Arguments: w.args, RequestState: w.state, InputResponses: w.answers()}
	res, err := r.retrying(ctx, params, (w.i+1)%2, time.Now().Add(faultBound))
	switch {
	case err != nil:
		w.failf("%v", err)
	case res.NeedsInput() || res.IsError:
		w.failf("want a successful final result, got %s", resultText(res))
	default:
		w.finalText, w.final, w.done = resultText(res), params, 2
		w.checkFinal(w.finalText)
	}
}

// retrying sends params until an answer ends the round or the deadline
// passes: a timeout per call, the same request again after a growing,
// jittered backoff, on the other instance each time.
func (r *faultRun) retrying(ctx context.Context, params *mcp.CallToolParams, first int, deadline time.Time) (*mcp.CallToolResult, error) {
	backoff := 100 * time.Millisecond
	for attempt := 0; ; attempt++ {
		p := r.f.slots[(first+attempt)%2]
		res, err := callWithin(ctx, p, params, faultPatience)
		r.mu.Lock()
		r.calls++
		if attempt > 0 {
			r.retries++
		}
		r.mu.Unlock()
		if !retryable(res, err) {
			return res, err
		}
		wait := backoff/2 + rand.N(backoff)
		if time.Now().Add(wait).After(deadline) {
			return nil, fmt.Errorf("no answer after %d attempts; last: %s, %v", attempt+1, resultText(res), err) //nolint:errorlint // err is nil after a result: %w would print %!w(<nil>)
		}
		time.Sleep(wait)
		backoff = min(2*backoff, time.Second)
	}
}

// callWithin sends one tools/call and waits at most d for the reply; then
// the client gives up on it (the request is cancelled, its connection
// closed).
func callWithin(ctx context.Context, p *proc, params *mcp.CallToolParams, d time.Duration) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	own := *params
	own.Meta = maps.Clone(params.Meta)
	return p.cs.CallTool(ctx, &own)
}

// retryable: what a client retries. No answer at all (a timeout, a
// transport error), an internal error, and an error result that says to
// try again later (as a model reading it would); not a refused
// requestState (-32602), missing capabilities (-32021) or another result.
func retryable(res *mcp.CallToolResult, err error) bool {
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return je.Code != jsonrpc.CodeInvalidParams && je.Code != -32021
		}
		return true
	}
	return res.IsError && againLater.MatchString(resultText(res))
}

var againLater = regexp.MustCompile(`(?i)\bagain later\b`)

// faults cuts the link faultCuts times, each time while an effect is in
// progress, then black-holes it twice, sending impatient clients' final
// rounds into each hole.
func (r *faultRun) faults(ctx context.Context) {
	for range faultCuts {
		r.awaitEffect()
		r.proxy.Cut()
		cut := time.Now()
		time.Sleep(faultCutFor)
		r.proxy.Restore()
		r.note(&r.cuts, cut)
		time.Sleep(faultCutGap)
	}
	// Longer than a store call may take: the abandoned rounds are stopped
	// by bounded store calls or by their clients' leaving.
	r.awaitEffect()
	r.hole(ctx, faultHoleFor, r.late)
	time.Sleep(faultCutGap)
	// Shorter: only their clients' leaving can stop them.
	r.hole(ctx, faultShortHoleFor, r.later)
}

// hole black-holes the link for d; the clients of abandoned send their
// final rounds into it and leave.
func (r *faultRun) hole(ctx context.Context, d time.Duration, abandoned []*workflow) {
	r.proxy.Blackhole()
	began := time.Now()
	r.abandon(ctx, abandoned)
	time.Sleep(time.Until(began.Add(d)))
	r.proxy.Restore()
	r.note(&r.holes, began)
}

// note counts a fault that began at began and just ended.
func (r *faultRun) note(count *int, began time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*count++
	r.restored = time.Now()
	r.windows = append(r.windows, [2]time.Time{began, r.restored})
}

// awaitEffect waits (3s at most) until an effect is in progress, then a
// little more, so that the fault comes mid-effect: the effect returns while
// the store is unreachable.
func (r *faultRun) awaitEffect() {
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if inFlight(r.t, r.logPath) > 0 {
			time.Sleep(faultEffectTook / 3)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	r.mu.Lock()
	r.unsynchronised++
	r.mu.Unlock()
}

// inFlight counts the effect runs that started and have not ended.
func inFlight(t *testing.T, path string) int {
	evs, err := domain.ReadEffectLog(path)
	if err != nil {
		t.Error(err)
		return 0
	}
	n := 0
	for _, ev := range evs {
		switch ev.Event {
		case "start":
			n++
		case "end":
			n--
		}
	}
	return n
}

// abandon sends the final rounds of ws into the black hole; each client
// gives up after faultImpatience and never comes back.
func (r *faultRun) abandon(ctx context.Context, ws []*workflow) {
	var wg sync.WaitGroup
	for _, w := range ws {
		if w.done != 1 {
			continue
		}
		params := &mcp.CallToolParams{Name: w.tool, Arguments: w.args, RequestState: w.state, InputResponses: w.answers()}
		wg.Go(func() {
			res, err := callWithin(ctx, r.f.slots[w.i%2], params, faultImpatience)
			if err == nil {
				// It was answered within its patience after all: it did not
				// leave, so it is no evidence either way.
				w.failf("answered in a black hole within %v: %s", faultImpatience, resultText(res))
			}
		})
	}
	wg.Wait()
}

// settle waits until what the abandoned requests would do after the black
// hole has happened: no effect in progress, and a lease past the hole.
func (r *faultRun) settle() {
	deadline := time.Now().Add(faultBound)
	for time.Now().Before(deadline) {
		if inFlight(r.t, r.logPath) == 0 && time.Since(r.restored) > faultLease {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runsOf groups the effect log by operation (tool and record).
func runsOf(t *testing.T, path string) map[string][]domain.EffectEvent {
	evs, err := domain.ReadEffectLog(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]domain.EffectEvent{}
	for _, ev := range evs {
		k := ev.Tool + ":" + ev.ID
		out[k] = append(out[k], ev)
	}
	return out
}

// duplicateRuns counts the runs of one operation that started after a run of
// it had returned, or while one was in progress: none may, when no
// instance died.
func duplicateRuns(evs []domain.EffectEvent) int {
	running, returned, dup := 0, false, 0
	for _, ev := range evs {
		switch ev.Event {
		case "start":
			if returned || running > 0 {
				dup++
			}
			running++
		case "end":
			running--
			returned = true
		}
	}
	return dup
}

func (r *faultRun) report(ctx context.Context, data domain.Store) {
	t := r.t
	runs := runsOf(t, r.logPath)
	lost, duplicated, effects, completed := 0, 0, 0, 0
	for _, w := range r.ws {
		evs := runs[w.tool+":"+w.id]
		starts := countEvents(evs, "start")
		effects += starts
		if d := duplicateRuns(evs); d > 0 {
			duplicated += d
			t.Errorf("%s: its effect ran %d times:%s", w, starts, describeRuns(evs))
		}
		if w.done == w.rounds && len(w.problems) == 0 {
			(*run)(nil).checkRecord(ctx, data, w)
			if n, err := domain.Effects(ctx, data, w.tool, w.id); err != nil || n != 1 {
				t.Errorf("%s: effect counter %d, %v; want 1", w, n, err)
			}
		}
		if w.done == w.rounds {
			completed++
		}
		if w.done != w.rounds || len(w.problems) > 0 {
			if w.done != w.rounds {
				lost++
			}
			for _, p := range w.problems {
				t.Errorf("%s: %s", w, p)
			}
		}
	}
	// How many effects returned while the link was down: the case the
	// test is about (their outcome must not be lost).
	returnedInFault, takeovers := 0, 0
	for _, evs := range runs {
		for _, ev := range evs {
			if ev.Event == "start" && ev.Takeover {
				takeovers++
			}
			if ev.Event == "end" && slices.ContainsFunc(r.windows, func(w [2]time.Time) bool {
				return ev.At.After(w[0]) && ev.At.Before(w[1])
			}) {
				returnedInFault++
			}
		}
	}
	abandonedEffects := 0
	for _, w := range slices.Concat(r.late, r.later) {
		for _, p := range w.problems {
			t.Errorf("%s (impatient): %s", w, p)
		}
		evs := runs[w.tool+":"+w.id]
		if n := countEvents(evs, "start"); n > 0 {
			abandonedEffects += n
			// Its client left during a black hole, before its round could
			// even claim its record: nothing may run for it.
			t.Errorf("%s: its client gave up %v into a black hole and never came back, yet its effect ran %d times: %s",
				w, faultImpatience, n, describeRuns(evs))
		}
	}
	errorsLogged := 0
	for _, p := range r.f.all {
		errorsLogged += len(logRecords(t, p.logPath, "level", "ERROR"))
	}
	ps := r.proxy.Stats()
	store := strings.SplitN(r.f.storeURL, ":", 2)[0]
	t.Logf("store faults %s: workflows=%d (concurrent) impatient=%d+%d cuts=%d blackholes=%d (%v, %v) calls=%d retries=%d completed=%d lost=%d effect-runs=%d returned-while-down=%d takeovers=%d duplicated=%d abandoned-effects=%d server-errors-logged=%d proxy-conns=%d proxy-resets=%d unsynchronised-faults=%d wall=%s",
		store, len(r.ws), len(r.late), len(r.later), r.cuts, r.holes, faultHoleFor, faultShortHoleFor, r.calls, r.retries, completed, lost, effects, returnedInFault, takeovers, duplicated,
		abandonedEffects, errorsLogged, ps.Accepted, ps.Reset, r.unsynchronised, time.Since(r.began).Round(time.Millisecond))
	if lost != 0 || duplicated != 0 || abandonedEffects != 0 {
		t.Errorf("lost %d workflows, %d duplicated effects, %d effects for clients that had left; want 0, 0 and 0", lost, duplicated, abandonedEffects)
		for _, p := range r.f.all {
			t.Logf("log of %s:\n%s", p.name, tail(p.logPath))
		}
	}
}

func countEvents(evs []domain.EffectEvent, event string) int {
	n := 0
	for _, ev := range evs {
		if ev.Event == event {
			n++
		}
	}
	return n
}

// describeRuns prints an operation's log lines for a failure message.
func describeRuns(evs []domain.EffectEvent) string {
	var b strings.Builder
	for _, ev := range evs {
		fmt.Fprintf(&b, "\n\t%s %s pid %d at %s", ev.Event, ev.Instance, ev.PID, ev.At.Format("15:04:05.000"))
		if ev.Takeover {
			b.WriteString(" takeover")
		}
		if ev.Error != "" {
			fmt.Fprintf(&b, " error %q", ev.Error)
		}
	}
	return b.String()
}

// ---------------------------------------------------------------------------
// SIGKILL mid-effect

// proveKillMidEffect kills an instance while an effect runs, lets another
// take over after the lease, and counts the effect's runs. It stays one
// function on purpose: the kill, the takeover and the count are one
// timeline over shared state (the fleet, the effect log, the start time),
// told in order.
func proveKillMidEffect(t *testing.T, bin, storeURL string) {
	ctx := context.Background()
	began := time.Now()
	logPath := filepath.Join(t.TempDir(), "effects.log")
	r := &faultRun{t: t, logPath: logPath}
	r.f = newFleet(t, bin, storeURL)
	r.f.args = []string{"-lease", killLease.String(), "-effect-log", logPath, "-effect-delay", killDelay.String()}
	ws := faultWorkflowSet(2, 70) // one close_support_ticket, one charge_payment
	data, err := domainopen.Open(ctx, storeURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { data.Close() })
	seed(t, data, ws)
	r.startFleet(2)
	victim, survivor := r.f.slots[0], r.f.slots[1]

	for _, w := range ws {
		res, err := callWithin(ctx, survivor, &mcp.CallToolParams{Name: w.tool, Arguments: w.args}, 10*time.Second)
		if err != nil || !res.NeedsInput() {
			t.Fatalf("%s first round: %s, %v", w, resultText(res), err)
		}
		w.state, w.asked, w.done = res.RequestState, res.InputRequests, 1
	}
	// The final rounds go to the victim; it is killed once both effects
	// are in progress there.
	finals := make([]*mcp.CallToolParams, len(ws))
	var wg sync.WaitGroup
	for k, w := range ws {
		finals[k] = &mcp.CallToolParams{Name: w.tool, Arguments: w.args, RequestState: w.state, InputResponses: w.answers()}
		wg.Go(func() {
			if res, err := callWithin(ctx, victim, finals[k], 30*time.Second); err == nil {
				t.Errorf("%s: the killed instance answered %s", w, resultText(res))
			}
		})
	}
	deadline := time.Now().Add(15 * time.Second)
	for startedOn(t, logPath, victim.name) < len(ws) {
		if time.Now().After(deadline) {
			t.Fatalf("the effects did not start on %s within 15s:\n%s", victim.name, tail(victim.logPath))
		}
		time.Sleep(2 * time.Millisecond)
	}
	r.f.kill(victim)
	killedAt := time.Now()
	wg.Wait()

	// The clients retry on the survivor.
	var took [2]time.Duration
	for k, w := range ws {
		wg.Go(func() {
			res, err := callWithin(ctx, survivor, finals[k], 30*time.Second)
			took[k] = time.Since(killedAt)
			switch {
			case err != nil:
				w.failf("retry on %s: %v", survivor.name, err)
			case res.NeedsInput() || res.IsError:
				w.failf("retry on %s: want success, got %s", survivor.name, resultText(res))
			default:
				w.finalText, w.done = resultText(res), 2
				w.checkFinal(w.finalText)
			}
		})
	}
	wg.Wait()

	runs := runsOf(t, logPath)
	for k, w := range ws {
		evs := runs[w.tool+":"+w.id]
		if w.done == w.rounds && len(w.problems) == 0 {
			(*run)(nil).checkRecord(ctx, data, w)
		}
		for _, p := range w.problems {
			t.Errorf("%s: %s", w, p)
		}
		var starts, ends []domain.EffectEvent
		for _, ev := range evs {
			if ev.Event == "start" {
				starts = append(starts, ev)
			} else {
				ends = append(ends, ev)
			}
		}
		// At least once: the run cut off by the crash, then the takeover.
		ok := len(starts) == 2 && len(ends) == 1 &&
			starts[0].Instance == victim.name && starts[1].Instance == survivor.name &&
			ends[0].Instance == survivor.name && ends[0].Error == ""
		if !ok {
			t.Errorf("%s: want 2 runs (one cut off on %s, one complete on %s), got:%s", w, victim.name, survivor.name, describeRuns(evs))
		}
		if len(starts) == 2 && (starts[0].Operation == "" || starts[0].Operation != starts[1].Operation) {
			t.Errorf("%s: both runs must be given the same operation id (mrtr.Call.Attempt.OperationID); got %q and %q",
				w, starts[0].Operation, starts[1].Operation)
		}
		if len(starts) == 2 && (starts[0].Takeover || !starts[1].Takeover) {
			t.Errorf("%s: the second run must be told it is a takeover (mrtr.Call.Attempt.Takeover) and the first not; got first=%v second=%v",
				w, starts[0].Takeover, starts[1].Takeover)
		}
		if n, err := domain.Effects(ctx, data, w.tool, w.id); err != nil || n != 1 {
			t.Errorf("%s: effect counter %d, %v; want 1 (the first run died before it acted)", w, n, err)
		}
		t.Logf("kill mid-effect %s: %s runs=%d takeover=%v retry answered %v after the kill (lease %v, effect %v)",
			strings.SplitN(storeURL, ":", 2)[0], w.tool, len(starts), len(starts) == 2 && starts[1].Takeover,
			took[k].Round(time.Millisecond), killLease, killDelay)
	}
	t.Logf("kill mid-effect: wall %s", time.Since(began).Round(time.Millisecond))
}

// startedOn counts the effect runs that started on instance name.
func startedOn(t *testing.T, path, name string) int {
	evs, err := domain.ReadEffectLog(path)
	if err != nil {
		t.Fatal(err)
	}
	return len(slices.DeleteFunc(evs, func(ev domain.EffectEvent) bool { return ev.Event != "start" || ev.Instance != name }))
}
