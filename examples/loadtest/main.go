// Command loadtest is a bounded load benchmark of a generated MRTR tool
// against a hand-written go-sdk server doing the same work with the same
// store calls (issue 17, goal 5). It is a command, not a CI test:
//
//	go run ./examples/loadtest -n 2000 -c 50 \
//	  -stores 'postgres://127.0.0.1:5432/test?sslmode=disable,redis://127.0.0.1:6379/0' -instances 1,3
//
// For every store, instance count and repetition it runs each variant in
// turn (generated, then hand-written, the order swapped every repetition),
// each on freshly started server processes (this binary in serve mode, one
// process per instance, all with the same key ring and store, records
// under a prefix of their own that is dropped afterwards). It drives N
// workflows of close_support_ticket at concurrency C over stateless
// streamable HTTP (MCP 2026-07-28, plain JSON requests as in
// examples/server/README.md): round 1 asks for the reason, round 2
// answers it and closes the ticket. With several instances the rounds are
// dealt round-robin, so round 2 of a workflow goes to another instance
// than its round 1. It prints throughput (workflows/s), p50/p99 of each
// round kind, errors, the effects the instances counted, and each
// instance's goroutines and RSS at the start (after a warm-up) and after
// the run (after a GC), then the generated/hand-written ratios.
//
// Both variants share the business stand-in of serve.go; the hand-written
// variant's store calls, and what it leaves out, are described in
// package examples/internal/handtickets.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store/pgstore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/redisstore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storeopen"
)

func main() {
	if v := os.Getenv(envServe); v != "" {
		os.Exit(serve(v))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type config struct {
	n, c      int
	duration  time.Duration
	stores    []string
	instances []int
	variants  []string
	repeat    int
	exe       string
	profile   string
}

// result is one measured run.
type result struct {
	store                  string
	instances              int
	variant                string
	ok, errs               int64
	effects                int64
	wall                   time.Duration
	first, final           []time.Duration
	firstErr               string
	baseG, afterG          []int
	baseRSS, afterRSS      []int64
	throughput             float64
	p50f, p99f, p50l, p99l time.Duration
}

// run parses the flags (a line each) and runs the load for every store,
// instance count and variant asked for.
//
//nolint:funlen // one line per flag, then the loop over the runs
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	var stores, instances, variants string
	fs.IntVar(&cfg.n, "n", 2000, "workflows per run")
	fs.IntVar(&cfg.c, "c", 50, "concurrent workflows")
	fs.DurationVar(&cfg.duration, "duration", 2*time.Minute, "cap of each run: no workflow starts after it")
	fs.StringVar(&stores, "stores", "postgres://127.0.0.1:5432/test?sslmode=disable,redis://127.0.0.1:6379/0", "comma-separated store URLs (storeopen forms; memory: is per process)")
	fs.StringVar(&instances, "instances", "1,3", "comma-separated instance counts")
	fs.StringVar(&variants, "variants", "generated,handwritten", "variants to run, interleaved")
	fs.IntVar(&cfg.repeat, "repeat", 1, "repetitions of every (store, instances) pair")
	fs.StringVar(&cfg.exe, "exe", "", "server binary (default: this binary, in serve mode)")
	fs.StringVar(&cfg.profile, "cpuprofile", "", "directory where every instance writes its CPU profile (VARIANT-PID.pprof)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if cfg.n < 1 || cfg.c < 1 || cfg.repeat < 1 || cfg.duration <= 0 {
		fmt.Fprintln(stderr, "loadtest: -n, -c, -repeat and -duration must be positive")
		return 2
	}
	cfg.stores = split(stores)
	cfg.variants = split(variants)
	for _, v := range cfg.variants {
		if v != "generated" && v != "handwritten" {
			fmt.Fprintf(stderr, "loadtest: unknown variant %q (generated, handwritten)\n", v)
			return 2
		}
	}
	for _, s := range split(instances) {
		k, err := strconv.Atoi(s)
		if err != nil || k < 1 {
			fmt.Fprintf(stderr, "loadtest: bad instance count %q\n", s)
			return 2
		}
		cfg.instances = append(cfg.instances, k)
	}
	if cfg.exe == "" {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintln(stderr, "loadtest:", err)
			return 1
		}
		cfg.exe = exe
	}
	keys, err := seal.GenerateKeySpec(uint32(time.Now().Unix()))
	if err != nil {
		fmt.Fprintln(stderr, "loadtest:", err)
		return 1
	}
	var results []*result
	failed := false
	seq := 0
	for _, st := range cfg.stores {
		for _, k := range cfg.instances {
			for rep := range cfg.repeat {
				order := slices.Clone(cfg.variants)
				if rep%2 == 1 {
					slices.Reverse(order)
				}
				for _, v := range order {
					seq++
					r, err := runOne(cfg, keys, st, k, v, seq)
					if err != nil {
						fmt.Fprintf(stderr, "loadtest: %s, %d instance(s), %s: %v\n", redact(st), k, v, err)
						failed = true
						continue
					}
					fmt.Fprintf(stderr, "loadtest: %s, %d instance(s), %s: %d ok, %d errors, %.0f wf/s\n", redact(st), k, v, r.ok, r.errs, r.throughput)
					if r.errs > 0 || r.effects != r.ok {
						failed = true
					}
					results = append(results, r)
				}
			}
		}
	}
	report(stdout, cfg, results)
	if failed {
		return 1
	}
	return 0
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// redact drops a URL's password.
func redact(u string) string {
	if p, err := url.Parse(u); err == nil && p.User != nil {
		if _, ok := p.User.Password(); ok {
			p.User = url.UserPassword(p.User.Username(), "xxx")
			return p.String()
		}
	}
	return u
}

// instance is one running server process.
type instance struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	base  string // http://ADDR
	done  chan error
}

// withPrefix gives the run records of its own on a shared store.
func withPrefix(st string, seq int) (u, prefix string) {
	sep := "?"
	if strings.Contains(st, "?") {
		sep = "&"
	}
	switch {
	case strings.HasPrefix(st, "postgres"):
		prefix = fmt.Sprintf("mrtrload_%d_%d_", os.Getpid(), seq)
	case strings.HasPrefix(st, "redis"):
		prefix = fmt.Sprintf("mrtrload:%d:%d:", os.Getpid(), seq)
	default:
		return st, ""
	}
	return st + sep + storeopen.PrefixParam + "=" + url.QueryEscape(prefix), prefix
}

// dropPrefix removes what a run left in a shared store.
func dropPrefix(st, prefix string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	switch {
	case prefix == "":
		return nil
	case strings.HasPrefix(st, "postgres"):
		pool, err := pgxpool.New(ctx, st)
		if err != nil {
			return err
		}
		defer pool.Close()
		return pgstore.DropTables(ctx, pool, prefix)
	default:
		opt, err := redis.ParseURL(st)
		if err != nil {
			return err
		}
		rdb := redis.NewClient(opt)
		defer rdb.Close()
		_, err = redisstore.DeleteKeys(ctx, rdb, prefix)
		return err
	}
}

func start(exe, keys, variant, storeURL, profile string) (*instance, error) {
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envServe+"="+variant, envStore+"="+storeURL, seal.EnvKeys+"="+keys)
	if profile != "" {
		cmd.Env = append(cmd.Env, envProfile+"="+profile)
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	in := &instance{cmd: cmd, stdin: stdin, done: make(chan error, 1)}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
				select {
				case line <- a:
				default:
				}
			}
		}
	}()
	go func() { in.done <- cmd.Wait() }()
	select {
	case a := <-line:
		in.base = "http://" + a
		return in, nil
	case err := <-in.done:
		return nil, fmt.Errorf("server exited before listening: %w", err)
	case <-time.After(30 * time.Second):
		_ = in.stop()
		return nil, errors.New("server did not listen within 30s")
	}
}

// stop ends the process: stdin closed and SIGTERM, SIGKILL after 10s.
// It returns how the process exited (nil: status 0 after a graceful
// shutdown).
func (in *instance) stop() error {
	_ = in.stdin.Close()
	_ = in.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-in.done:
		return err
	case <-time.After(10 * time.Second):
		_ = in.cmd.Process.Kill()
		err := <-in.done
		return fmt.Errorf("killed after 10s without stopping: %w", err)
	}
}

func (in *instance) stats(client *http.Client, gc bool) (stats, error) {
	u := in.base + "/stats"
	if gc {
		u += "?gc=1"
	}
	var s stats
	resp, err := client.Get(u)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	err = json.NewDecoder(resp.Body).Decode(&s)
	return s, err
}

// runOne is one measured run, start to stop: the instances on a fresh
// prefix of the store, the warm-up, the load, the figures, the shutdown.
//
//nolint:funlen // its steps share the run's timing and processes; read top to bottom
func runOne(cfg config, keys, st string, k int, variant string, seq int) (*result, error) {
	storeURL, prefix := withPrefix(st, seq)
	defer func() {
		if err := dropPrefix(st, prefix); err != nil {
			fmt.Fprintf(os.Stderr, "loadtest: dropping %s: %v\n", prefix, err)
		}
	}()
	var ins []*instance
	defer func() {
		for j, in := range ins {
			if err := in.stop(); err != nil {
				fmt.Fprintf(os.Stderr, "loadtest: instance %d: %v\n", j+1, err)
			}
		}
	}()
	for range k {
		in, err := start(cfg.exe, keys, variant, storeURL, cfg.profile)
		if err != nil {
			return nil, err
		}
		ins = append(ins, in)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * cfg.c, MaxIdleConnsPerHost: 2 * cfg.c}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	r := &result{store: redact(st), instances: k, variant: variant}

	// Warm-up: a few workflows on every instance (tables created, pools
	// filled), not measured and not counted.
	warm := min(cfg.c, cfg.n)
	var wg sync.WaitGroup
	for i := range warm {
		wg.Go(func() {
			_, _, _ = workflow(client, ins, i, fmt.Sprintf("9%011d", i))
		})
	}
	wg.Wait()
	client.CloseIdleConnections()
	time.Sleep(100 * time.Millisecond) // the instances see the connections close
	var warmClosed int64
	for _, in := range ins {
		s, err := in.stats(client, true)
		if err != nil {
			return nil, err
		}
		warmClosed += s.Closed
		r.baseG = append(r.baseG, s.Goroutines)
		r.baseRSS = append(r.baseRSS, s.RSSBytes)
	}

	first := make([]time.Duration, cfg.n)
	final := make([]time.Duration, cfg.n)
	done := make([]bool, cfg.n)
	var next atomic.Int64
	var ok, errs atomic.Int64
	var firstErr atomic.Value
	deadline := time.Now().Add(cfg.duration)
	t0 := time.Now()
	for range cfg.c {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= cfg.n || time.Now().After(deadline) {
					return
				}
				d1, d2, err := workflow(client, ins, i, strconv.Itoa(i+1))
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				ok.Add(1)
				first[i], final[i], done[i] = d1, d2, true
			}
		})
	}
	wg.Wait()
	r.wall = time.Since(t0)
	r.ok, r.errs = ok.Load(), errs.Load()
	if e, isString := firstErr.Load().(string); isString {
		r.firstErr = e
	}
	for i := range cfg.n {
		if done[i] {
			r.first = append(r.first, first[i])
			r.final = append(r.final, final[i])
		}
	}
	r.throughput = float64(r.ok) / r.wall.Seconds()
	r.p50f, r.p99f = quantile(r.first, 0.50), quantile(r.first, 0.99)
	r.p50l, r.p99l = quantile(r.final, 0.50), quantile(r.final, 0.99)

	// After the run: idle connections closed, then up to 5s for each
	// instance's goroutines to fall back to the baseline.
	client.CloseIdleConnections()
	settle := time.Now().Add(5 * time.Second)
	for {
		r.afterG, r.afterRSS, r.effects = r.afterG[:0], r.afterRSS[:0], -warmClosed
		back := true
		for j, in := range ins {
			s, err := in.stats(client, true)
			if err != nil {
				return nil, err
			}
			r.effects += s.Closed
			r.afterG = append(r.afterG, s.Goroutines)
			r.afterRSS = append(r.afterRSS, s.RSSBytes)
			back = back && s.Goroutines <= r.baseG[j]
		}
		client.CloseIdleConnections()
		if back || time.Now().After(settle) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	return r, nil
}

// workflow runs one close_support_ticket workflow: round 1 on instance
// 2i mod k, round 2 on instance 2i+1 mod k.
func workflow(client *http.Client, ins []*instance, i int, ticket string) (first, final time.Duration, err error) {
	args := map[string]any{"ticketId": ticket}
	t := time.Now()
	res, err := call(client, ins[(2*i)%len(ins)].base, 1, map[string]any{"name": "close_support_ticket", "arguments": args})
	first = time.Since(t)
	if err != nil {
		return 0, 0, fmt.Errorf("round 1: %w", err)
	}
	if res.ResultType != "input_required" || res.RequestState == "" {
		return 0, 0, fmt.Errorf("round 1: want input_required with a requestState, got %q", res.ResultType)
	}
	t = time.Now()
	res, err = call(client, ins[(2*i+1)%len(ins)].base, 2, map[string]any{"name": "close_support_ticket", "arguments": args,
		"requestState":   res.RequestState,
		"inputResponses": map[string]any{"reason": map[string]any{"action": "accept", "content": map[string]any{"closeReason": "resolved"}}}})
	final = time.Since(t)
	if err != nil {
		return 0, 0, fmt.Errorf("round 2: %w", err)
	}
	want := "Closed ticket " + ticket + " (resolved)."
	if res.IsError || len(res.Content) == 0 || res.Content[0].Text != want {
		return 0, 0, fmt.Errorf("round 2: want %q, got %+v", want, res)
	}
	return first, final, nil
}

type toolResult struct {
	ResultType   string `json:"resultType"`
	RequestState string `json:"requestState"`
	IsError      bool   `json:"isError"`
	Content      []struct {
		Text string `json:"text"`
	} `json:"content"`
}

var meta = map[string]any{
	"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
	"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
}

// call sends one stateless tools/call and decodes its JSON reply.
func call(client *http.Client, base string, id int, params map[string]any) (*toolResult, error) {
	params["_meta"] = meta
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodPost, base+"/mcp", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "close_support_ticket")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, data)
	}
	var msg struct {
		Result *toolResult `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		return nil, fmt.Errorf("reply: %w: %.200s", err, data)
	}
	if msg.Error != nil {
		return nil, fmt.Errorf("error %d: %s", msg.Error.Code, msg.Error.Message)
	}
	if msg.Result == nil {
		return nil, fmt.Errorf("reply without a result: %.200s", data)
	}
	return msg.Result, nil
}

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }

func report(w io.Writer, cfg config, results []*result) {
	fmt.Fprintf(w, "close_support_ticket, %d workflows per run at concurrency %d (cap %s), stateless HTTP\n\n", cfg.n, cfg.c, cfg.duration)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "store\tinst\tvariant\tok\terrors\teffects\twf/s\tfirst p50 ms\tfirst p99 ms\tfinal p50 ms\tfinal p99 ms\tgoroutines before→after\tRSS MB before→after\t")
	for _, r := range results {
		var g, m []string
		for j := range r.baseG {
			g = append(g, fmt.Sprintf("%d→%d", r.baseG[j], r.afterG[j]))
			m = append(m, fmt.Sprintf("%.0f→%.0f", float64(r.baseRSS[j])/1e6, float64(r.afterRSS[j])/1e6))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%d\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t\n", storeName(r.store), r.instances, r.variant, r.ok, r.errs, r.effects,
			r.throughput, ms(r.p50f), ms(r.p99f), ms(r.p50l), ms(r.p99l), strings.Join(g, " "), strings.Join(m, " "))
	}
	_ = tw.Flush()
	for _, r := range results {
		if r.firstErr != "" {
			fmt.Fprintf(w, "\nfirst error (%s, %d, %s): %s\n", storeName(r.store), r.instances, r.variant, r.firstErr)
		}
	}
	// Ratios generated/hand-written, per (store, instances), from the
	// runs of each repetition paired in order.
	fmt.Fprintln(w, "\ngenerated/hand-written (target: throughput ≥ 0.90, p99 ≤ 1.20)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "store\tinst\tthroughput\tfirst p99\tfinal p99\tfirst p50\tfinal p50\t")
	type pair struct{ gen, hand []*result }
	var keys []string
	pairs := map[string]*pair{}
	for _, r := range results {
		key := fmt.Sprintf("%s\t%d", storeName(r.store), r.instances)
		p := pairs[key]
		if p == nil {
			p = &pair{}
			pairs[key] = p
			keys = append(keys, key)
		}
		if r.variant == "generated" {
			p.gen = append(p.gen, r)
		} else {
			p.hand = append(p.hand, r)
		}
	}
	for _, key := range keys {
		p := pairs[key]
		var tp, f99, l99, f50, l50 []float64
		for i := range min(len(p.gen), len(p.hand)) {
			g, h := p.gen[i], p.hand[i]
			tp = append(tp, g.throughput/h.throughput)
			f99 = append(f99, float64(g.p99f)/float64(h.p99f))
			l99 = append(l99, float64(g.p99l)/float64(h.p99l))
			f50 = append(f50, float64(g.p50f)/float64(h.p50f))
			l50 = append(l50, float64(g.p50l)/float64(h.p50l))
		}
		if len(tp) == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", key, ratios(tp), ratios(f99), ratios(l99), ratios(f50), ratios(l50))
	}
	_ = tw.Flush()
}

// ratios prints the median, and the range when there are several.
func ratios(v []float64) string {
	s := slices.Clone(v)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + med) / 2
	}
	if len(s) == 1 {
		return fmt.Sprintf("%.2f", med)
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", med, s[0], s[len(s)-1])
}

func storeName(u string) string {
	scheme, _, _ := strings.Cut(u, ":")
	return scheme
}
