package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mrtrgen/mrtrgen/generator"
	"github.com/mrtrgen/mrtrgen/internal/gotypecheck"
	"github.com/mrtrgen/mrtrgen/lint"
	"github.com/mrtrgen/mrtrgen/spec"
)

// plannedSpec is one spec and what generating it would change.
type plannedSpec struct {
	path    string
	outDir  string // where its code goes
	changes []generator.Change
	notes   []string // warnings about the hand-written code (generator.UserCodeNotes)
}

// planAll loads, lints and generates every spec in memory. Lint errors
// (printed to stderr) stop everything before a byte is written.
func planAll(args []string, stderr io.Writer, noScaffold bool) ([]plannedSpec, error) {
	paths, err := spec.Discover(args)
	if err != nil {
		return nil, err
	}
	type loaded struct {
		path     string
		file     *spec.File
		findings spec.Diagnostics
	}
	var specs []loaded
	var all spec.Diagnostics
	for _, p := range paths {
		f, ds, err := loadAndLint(p)
		if err != nil {
			return nil, err
		}
		if f != nil && !ds.HasErrors() {
			// The Go types the spec names must be there, with a JSON form
			// of the declared type (nothing is loaded without a goType).
			ds = append(ds, gotypecheck.Check(f, filepath.Join(filepath.Dir(p), filepath.FromSlash(f.Output)))...)
		}
		all = append(all, ds...)
		if f != nil {
			specs = append(specs, loaded{p, f, ds})
		}
	}
	all.Sort()
	if len(all) > 0 {
		if err := lint.Write(stderr, "text", all, Version); err != nil {
			return nil, err
		}
	}
	if all.HasErrors() {
		return nil, findings()
	}
	outDirs := map[string]string{}
	var plans []plannedSpec
	for _, s := range specs {
		dir := filepath.Join(filepath.Dir(s.path), filepath.FromSlash(s.file.Output))
		if other, dup := outDirs[dir]; dup {
			return nil, fmt.Errorf("%s and %s both generate into %s; give each spec its own output directory", other, s.path, dir)
		}
		outDirs[dir] = s.path
		base := filepath.Dir(s.path)
		uc, err := generator.ScanUserCode(dir)
		if err != nil {
			return nil, err
		}
		files, err := generator.Generate(s.file, generator.Options{
			Linted:     true,
			Findings:   s.findings,
			SpecPath:   s.path,
			UserCode:   uc,
			NoScaffold: noScaffold,
			ScaffoldExists: func(p string) bool {
				_, err := os.Stat(filepath.Join(base, filepath.FromSlash(p)))
				return err == nil
			},
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.path, err)
		}
		changes, err := generator.Plan(s.path, files)
		if err != nil {
			return nil, err
		}
		plans = append(plans, plannedSpec{path: s.path, outDir: dir, changes: changes, notes: generator.UserCodeNotes(s.file, uc)})
	}
	return plans, nil
}

func newGenerateCmd() *cobra.Command {
	var verbose, noScaffold bool
	cmd := &cobra.Command{
		Use:   "generate [PATH...]",
		Short: "Generate Go code for specs",
		Long: `Generate lints each spec (files, or directories searched recursively for
*.mrtr.yaml) and writes its Go code into the output directory the spec
names: per tool, <tool>.mrtr.go (types, state machine, codec, validators,
registration) and <tool>.mrtr_test.go (the transition test suite, and
Drive<Tool> for your own tests); once, <tool>_handler.go, a scaffold of
the handler for you to fill in, with <tool>_handler_test.go, a scaffold of
its tests; neither is ever overwritten. Only files whose bytes change are written; generated
files of tools removed from the spec are deleted.

The handler is yours wherever it lives: when any Go file of the package
declares its type (<Tool>Impl, or a type asserted to implement
<Tool>Handler), no scaffold is written, and --no-scaffold writes none at
all. Generate warns when that type lacks a method the spec now requires
(printing the signature to add), and when a hand-written file implements
the handler of a tool the spec no longer has.

A spec that binds values to Go types of your own (goType) has them loaded
with the go command of the output directory, and checked to exist and to
marshal to the field's JSON type (rule go-type), as mrtrgen check does.

Lint errors stop generation and nothing is written.`,
		Example: `  mrtrgen generate                       # every spec under the current directory
  mrtrgen generate examples/specs/tickets.mrtr.yaml

  # in a Go file next to the spec:
  //go:generate go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen generate tickets.mrtr.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			plans, err := planAll(args, cmd.ErrOrStderr(), noScaffold)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			for _, p := range plans {
				for _, n := range p.notes {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", n)
				}
				if err := generator.Apply(p.changes); err != nil {
					return err
				}
				for _, c := range p.changes {
					switch c.Action {
					case generator.Create:
						fmt.Fprintf(out, "wrote   %s\n", filepath.ToSlash(c.Path))
					case generator.Update:
						fmt.Fprintf(out, "updated %s\n", filepath.ToSlash(c.Path))
					case generator.Delete:
						fmt.Fprintf(out, "deleted %s (its tool is no longer in %s)\n", filepath.ToSlash(c.Path), filepath.ToSlash(p.path))
					case generator.Skip:
						fmt.Fprintf(out, "skipped %s (%s)\n", filepath.ToSlash(c.Path), c.Note)
					case generator.Keep:
						fmt.Fprintf(out, "kept    %s (yours; mrtrgen never overwrites it)\n", filepath.ToSlash(c.Path))
					case generator.Unchanged:
						if verbose {
							fmt.Fprintf(out, "same    %s\n", filepath.ToSlash(c.Path))
						}
					}
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "also list files that did not change")
	cmd.Flags().BoolVar(&noScaffold, "no-scaffold", false, "write no handler scaffolds (you write every handler)")
	return cmd
}

func newCheckCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "check [PATH...]",
		Short: "Fail when generated code is not current with its specs",
		Long: `Check regenerates every spec in memory and compares the result with the
files on disk. It writes nothing. For each stale, missing or left-over
generated file it prints a unified diff, and then the command that
regenerates them: go generate where a //go:generate directive runs
mrtrgen for the spec, go tool mrtrgen generate where the module has
mrtrgen as a tool, mrtrgen generate otherwise.

Exit status: 0 when everything is current, 1 when something is stale
(or a spec has lint errors), 2 when mrtrgen could not run.`,
		Example: `  mrtrgen check examples/specs     # in CI or a pre-commit hook`,
		RunE: func(cmd *cobra.Command, args []string) error {
			plans, err := planAll(args, cmd.ErrOrStderr(), false)
			if err != nil {
				return err
			}
			stale := 0
			var staleSpecs []plannedSpec
			out := cmd.OutOrStdout()
			for _, p := range plans {
				n := stale
				for _, c := range p.changes {
					if c.Kind != generator.Generated || c.Action == generator.Unchanged {
						continue
					}
					stale++
					fmt.Fprint(out, generator.Diff(c))
				}
				if stale > n {
					staleSpecs = append(staleSpecs, p)
				}
			}
			if stale > 0 {
				cwd, err := os.Getwd()
				if err != nil {
					cwd = "."
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "mrtrgen: %d generated file(s) out of date; run %s\n", stale, regenerateCommand(cwd, args, staleSpecs))
				return findings()
			}
			return nil
		},
	}
}
