// Package cli implements the mrtrgen command line: one cobra command per
// verb, each a thin layer over the spec, lint and generator packages.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Exit codes shared by every command. Findings (lint problems, stale
// generated files) are distinct from failures of the tool itself, so CI can
// tell "your spec needs work" from "mrtrgen could not run".
const (
	ExitOK       = 0 // success, nothing to report
	ExitFindings = 1 // lint findings, or generated files out of date
	ExitFailure  = 2 // usage error, unreadable input, I/O failure
)

// exitError carries an exit code through cobra's error return.
type exitError struct {
	code int
	err  error // nil when the command already printed what happened
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// findings reports that a command ran and found problems it already printed.
func findings() error { return &exitError{code: ExitFindings} }

// Main runs mrtrgen with args (without the program name) and returns the
// process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if os.Getenv("GOGC") == "" {
		// mrtrgen is a short-lived process that allocates a lot while it
		// formats generated code: collecting garbage less often halves the
		// time of a large generate, for memory it gives back on exit.
		debug.SetGCPercent(400)
	}
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var xe *exitError
	if errors.As(err, &xe) {
		if xe.err != nil {
			fmt.Fprintf(stderr, "mrtrgen: %v\n", xe.err)
		}
		return xe.code
	}
	// Cobra usage errors (unknown flag, wrong arg count) and tool failures.
	fmt.Fprintf(stderr, "mrtrgen: %v\n", err)
	return ExitFailure
}

func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "mrtrgen",
		Short: "Lint multi-round MCP tool specs and generate reliable Go for them",
		Long: `mrtrgen turns declarative *.mrtr.yaml specs of multi-round MCP tools
(MRTR, protocol revision 2026-07-28) into a type-safe Go state machine,
a handler interface to implement, a sealed continuation codec and a
transition test suite that runs on the official Go MCP SDK.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newGenerateCmd(), newCheckCmd(), newLintCmd(), newSchemaCmd(), newVersionCmd(), newGraphCmd(), newInitCmd(), newExplainCmd(), newBreakingCmd())
	return root
}
