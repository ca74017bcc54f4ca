// Command mrtrgen lints multi-round MCP tool specs and generates their Go
// state machines, handler interfaces, continuation codecs and test suites.
package main

import (
	"os"

	"github.com/mrtrgen/mrtrgen/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
