// Command before serves the build before of the evolve spec (package serve).
package main

import (
	"os"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/evolve/before"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/evolve/serve"
)

func main() { os.Exit(serve.Main("before", before.Register, os.Args[1:], os.Stdout, os.Stderr)) }
