// Command after serves the build after of the evolve spec (package serve).
package main

import (
	"os"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/evolve/after"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/evolve/serve"
)

func main() { os.Exit(serve.Main("after", after.Register, os.Args[1:], os.Stdout, os.Stderr)) }
