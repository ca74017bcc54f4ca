// Package serve is the MCP server of one build of the evolve spec
// (../before or ../after): the two builds a rolling deploy runs side by
// side, sharing one store and one key ring. ../cmd/before and ../cmd/after
// are its binaries; ../crossbuild_test.go runs them.
package serve

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storeopen"
)

// Main serves build, whose tools register adds, until SIGINT or SIGTERM:
// flags -addr, -store and -audience, keys from MRTR_KEYS or MRTR_KEYS_FILE,
// JSON logs on stderr. Once it listens it prints "listening on URL" on
// stdout. It returns the process's exit code.
func Main(build string, register func(*mcp.Server, *mrtr.Engine), args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(build, flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address (port 0: any free port)")
	storeURL := fs.String("store", "", "store URL shared with the other build (sqlite:PATH, postgres://…)")
	audience := fs.String("audience", "mrtr-evolve", "the fleet's name, the same on both builds")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil)).With("build", build)
	if err := serve(build, register, *addr, *storeURL, *audience, log, stdout); err != nil {
		log.Error("serving failed", "error", err)
		return 1
	}
	return 0
}

func serve(build string, register func(*mcp.Server, *mrtr.Engine), addr, storeURL, audience string, log *slog.Logger, stdout io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if storeURL == "" {
		return errors.New("-store is required: both builds share it")
	}
	ring, err := seal.RingFromEnv()
	if err != nil {
		return err
	}
	st, err := storeopen.Open(ctx, storeURL)
	if err != nil {
		return err
	}
	defer st.Close()
	go store.RunSweeper(ctx, st, store.DefaultSweepEvery, func(err error) { log.Warn("sweeping the store", "error", err) })
	e, err := mrtr.NewEngine(mrtr.Config{Audience: audience, Codec: seal.New(ring, seal.Options{}), Store: st, Logger: log, Instance: build})
	if err != nil {
		return err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "mrtr-evolve", Version: build}, nil)
	register(s, e)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mrtr.Handler(s, nil), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "listening on http://%s/mcp\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	return e.Drain(shutdown)
}
