// Command fleet is the example server's production build: the same tools,
// flags and pages as examples/server, on every store — memory:,
// sqlite:PATH, PostgreSQL (postgres://…) and Redis (redis://…) — with task
// steps on River on PostgreSQL and on a SQLite file, so that a step whose
// instance died runs again on another (-task-step-timeout,
// -task-rescue-after). It links pgx, go-redis and River, which a fresh
// clone takes several times longer to compile than the quick start
// (docs/benchmarks.md, "First run"). For several instances:
//
//	export MRTR_KEYS=$(go run ./examples/server -genkey)
//	go run ./examples/server/fleet -store postgres://… -instance web-1
//
// The flags and their environment variables are those of
// examples/server/internal/servercmd.
package main

import (
	"os"

	"github.com/mrtrgen/mrtrgen/examples/server/backends/allstores"
	"github.com/mrtrgen/mrtrgen/examples/server/internal/servercmd"
)

func main() {
	os.Exit(servercmd.Run(os.Args[1:], os.Stdout, os.Stderr, &allstores.Set))
}
