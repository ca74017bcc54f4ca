package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/generated/tickets"
	"github.com/mrtrgen/mrtrgen/examples/internal/benchtickets"
	"github.com/mrtrgen/mrtrgen/examples/internal/handtickets"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storeopen"
)

// The server side of the load test: the driver starts this same binary
// with these variables set (serve mode), once per instance.
const (
	envServe = "MRTR_LOADTEST_SERVE" // "generated" or "handwritten"
	envStore = "MRTR_LOADTEST_STORE" // store URL (storeopen forms)
	// envProfile, when set (by -cpuprofile DIR), is a directory where each
	// instance writes the CPU profile of its whole life,
	// VARIANT-PID.pprof.
	envProfile = "MRTR_LOADTEST_CPUPROFILE"
)

// audience is the fleet name both variants bind their requestState to.
const audience = "mrtrgen-loadtest"

// stats is what GET /stats of an instance answers.
type stats struct {
	Goroutines int   `json:"goroutines"`
	RSSBytes   int64 `json:"rssBytes"`
	Closed     int64 `json:"closed"`
}

// serve runs one instance until SIGINT/SIGTERM (or stdin closes): it
// prints "listening ADDR" on stdout once it accepts connections.
func serve(variant string) int {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if dir := os.Getenv(envProfile); dir != "" {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", variant, os.Getpid())))
		if err != nil {
			log.Error("profile", "error", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Error("profile", "error", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	ring, err := seal.RingFromEnv()
	if err != nil {
		log.Error("keys", "error", err)
		return 1
	}
	st, err := storeopen.Open(ctx, os.Getenv(envStore))
	if err != nil {
		log.Error("store", "error", err)
		return 1
	}
	defer st.Close()
	codec := seal.New(ring, seal.Options{})
	d := &benchtickets.Business{}
	s := mcp.NewServer(&mcp.Implementation{Name: "loadtest-" + variant, Version: "test"}, nil)
	switch variant {
	case "generated":
		e, err := mrtr.NewEngine(mrtr.Config{Audience: audience, Codec: codec, Store: st, Logger: log})
		if err != nil {
			log.Error("engine", "error", err)
			return 1
		}
		tickets.RegisterCloseSupportTicket(s, e, benchtickets.Generated{D: d})
	case "handwritten":
		h := &handtickets.Server{Audience: audience, Codec: codec, Business: d, NoSecrets: benchtickets.NoSecrets, Store: st, Log: log}
		h.AddTo(s)
	default:
		log.Error("unknown variant", "variant", variant)
		return 2
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	mux.HandleFunc("/stats", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("gc") {
			runtime.GC()
		}
		_ = json.NewEncoder(w).Encode(stats{Goroutines: runtime.NumGoroutine(), RSSBytes: rss(), Closed: d.Closed.Load()})
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Error("listen", "error", err)
		return 1
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { // the driver closes stdin when it goes away
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop()
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	fmt.Printf("listening %s\n", ln.Addr())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("serve", "error", err)
		return 1
	}
	return 0
}

// rss is the resident set size of this process (Linux /proc; elsewhere
// the memory the Go runtime holds from the OS).
func rss() int64 {
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			if pages, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				return pages * int64(os.Getpagesize())
			}
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.Sys)
}
