package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mrtrgen/mrtrgen/lint"
	"github.com/mrtrgen/mrtrgen/spec"
)

func newLintCmd() *cobra.Command {
	var format string
	var strict bool
	cmd := &cobra.Command{
		Use:   "lint [PATH...]",
		Short: "Check specs for errors and unsafe multi-round designs",
		Long: `Lint loads each spec (files, or directories searched recursively for
*.mrtr.yaml) and reports every problem with its position and rule id:
YAML and schema errors, unknown names, and design rules such as an
irreversible effect reachable without a confirmation gate.

Exit status: 0 when clean (warnings allowed unless --strict),
1 when there are findings, 2 when mrtrgen could not run.`,
		Example: `  mrtrgen lint                          # every spec under the current directory
  mrtrgen lint examples/specs --strict  # warnings fail too
  mrtrgen lint --format github .        # annotations in a GitHub Actions run
  mrtrgen lint --format sarif . > mrtrgen.sarif`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !validFormat(format) {
				return fmt.Errorf("unknown --format %q (want one of %s)", format, strings.Join(lint.Formats, ", "))
			}
			paths, err := spec.Discover(args)
			if err != nil {
				return err
			}
			var all spec.Diagnostics
			var unreadable []error
			for _, p := range paths {
				_, ds, err := loadAndLint(p)
				if err != nil {
					// Report the other files' findings anyway, then fail.
					unreadable = append(unreadable, err)
					continue
				}
				all = append(all, ds...)
			}
			all.Sort()
			if err := lint.Write(cmd.OutOrStdout(), format, all, Version); err != nil {
				return err
			}
			if len(unreadable) > 0 {
				return &exitError{code: ExitFailure, err: errors.Join(unreadable...)}
			}
			if all.HasErrors() || (strict && len(all) > 0) {
				return findings()
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "text", "output format: "+strings.Join(lint.Formats, ", "))
	cmd.Flags().BoolVar(&strict, "strict", false, "treat warnings as findings (exit 1)")
	return cmd
}

func validFormat(f string) bool {
	for _, x := range lint.Formats {
		if x == f {
			return true
		}
	}
	return false
}

// loadAndLint loads one spec and, when it loads, lints it. The returned
// file is nil when the spec has loader errors. err is for files that cannot
// be read at all.
func loadAndLint(path string) (*spec.File, spec.Diagnostics, error) {
	f, ds, err := spec.LoadFile(path, spec.Options{})
	if err != nil {
		return nil, nil, err
	}
	if f == nil {
		return nil, ds, nil
	}
	return f, append(ds, lint.Run(f)...), nil
}
