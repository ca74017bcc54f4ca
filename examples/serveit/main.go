// Command serveit is the README's "Serve it" program, as it appears there
// from its package clause on: TestReadmeServeIt fails when the two differ,
// and building this package (go vet, go test ./...) proves that the
// README's snippet compiles. Run it with a key ring and a store URL:
//
//	MRTR_KEYS="$(go run ./examples/server -genkey)" MRTR_STORE=sqlite:serveit.db go run ./examples/serveit
package main

import (
	"context"
	"errors"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/generated/tickets" // your generated package
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storeopen"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	// SIGINT or SIGTERM: stop taking requests, finish the ones in flight.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	ring, err := seal.RingFromEnv() // MRTR_KEYS="1:<base64url secret>": the same keys on every instance
	if err != nil {
		return err
	}
	st, err := storeopen.Open(ctx, os.Getenv("MRTR_STORE")) // postgres://…, redis://…, sqlite:PATH
	if err != nil {
		return err
	}
	defer st.Close()
	// Delete expired records once a minute (storeopen.Open does not): without a
	// sweeper a SQLite or PostgreSQL store grows without bound.
	go store.RunSweeper(ctx, st, store.DefaultSweepEvery, func(err error) { log.Print("sweeping the store: ", err) })

	engine, err := mrtr.NewEngine(mrtr.Config{Audience: "support", Codec: seal.New(ring, seal.Options{}), Store: st})
	if err != nil {
		return err
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "support", Version: "1"}, nil)
	tickets.RegisterAll(server, engine, &tickets.CloseSupportTicketImpl{ /* your dependencies */ })

	srv := &http.Server{
		Addr:    ":8080",
		Handler: mrtr.Handler(server, &mrtr.HandlerOptions{MaxRequestBytes: 1 << 20}), // 413 above 1 MiB
		// Every timeout, or a client holds a connection as long as it likes
		// (a body sent a byte at a time). WriteTimeout bounds each write of
		// mrtr.Handler's replies, so event streams and long rounds live on.
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second, // the whole request, body included
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	served := make(chan error, 1)
	go func() { served <- srv.ListenAndServe() }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// After 10s, connections still open (older clients' event streams) are cut.
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	// Effect outcomes the store could not take yet are recorded in the
	// background: wait for them, or a retry takes those effects over.
	return engine.Drain(shutdown)
}
