// Command server serves every example tool and prompt of mrtrgen over MCP
// streamable HTTP at /mcp: protocol 2026-07-28 statelessly (any instance
// serves any round), older clients on stateful sessions.
//
// On a fresh machine:
//
//	go run ./examples/server -dev
//
// serves http://127.0.0.1:8080/mcp with a SQLite file mrtr-example.db in
// the working directory and an ephemeral requestState key.
//
// This is the quick-start build: it opens the embedded stores only
// (memory:, sqlite:PATH) and links SQLite alone, no PostgreSQL, Redis or
// River client, so that a fresh clone compiles it in a fraction of the
// time (docs/benchmarks.md, "First run"). Instances on one SQLite file
// share every workflow; their tasks' steps run in the instance that
// enqueued them. The fleet build, examples/server/fleet, takes the same
// flags and adds PostgreSQL, Redis and River:
//
//	export MRTR_KEYS=$(go run ./examples/server -genkey)
//	go run ./examples/server/fleet -store postgres://… -instance web-1
//
// The flags and their environment variables are those of
// examples/server/internal/servercmd.
package main

import (
	"io"
	"os"

	"github.com/mrtrgen/mrtrgen/examples/server/backends"
	"github.com/mrtrgen/mrtrgen/examples/server/internal/servercmd"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	return servercmd.Run(args, stdout, stderr, &backends.Embedded)
}
