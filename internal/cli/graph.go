package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mrtrgen/mrtrgen/diagram"
	"github.com/mrtrgen/mrtrgen/lint"
	"github.com/mrtrgen/mrtrgen/spec"
)

func newGraphCmd() *cobra.Command {
	var format string
	var only []string
	cmd := &cobra.Command{
		Use:   "graph [PATH...]",
		Short: "Draw the state machine of each tool and prompt",
		Long: `Graph prints the state machine of every tool and prompt of the specs
(files, or directories searched recursively for *.mrtr.yaml) as a Mermaid
stateDiagram-v2 (the default; GitHub renders it in Markdown) or as a
Graphviz digraph.

Each state shows its kind: check, ask (what it asks), confirmation gate,
effect (irreversible ones marked), or terminal with its outcome. Each
transition shows why it is taken: next, answered, confirmed, an outcome
name, declined, cancelled. Dashed "implicit" boxes are the ends the spec
does not write down but the runtime takes: an ask or gate declined or
cancelled without onDecline/onCancel ends as cancelled, and a check or
effect can refuse (rejected) or fail (error). The output is deterministic.

Several Mermaid diagrams are separated by a blank line, each under a %%
comment naming it; pick one with --tool to feed a Mermaid renderer.
Specs that do not load are reported on stderr (exit 1); lint findings
are not (run mrtrgen lint).`,
		Example: `  mrtrgen graph examples/specs/payments.mrtr.yaml
  mrtrgen graph --tool charge_payment examples/specs > charge_payment.mmd
  mrtrgen graph --format dot examples/specs/payments.mrtr.yaml | dot -Tsvg > payments.svg`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(diagram.Formats, format) {
				return usageError(cmd, fmt.Errorf("unknown --format %q (want one of %s)", format, strings.Join(diagram.Formats, ", ")))
			}
			paths, err := spec.Discover(args)
			if err != nil {
				return err
			}
			var all spec.Diagnostics
			var tools []*spec.Tool
			for _, p := range paths {
				f, ds, err := spec.LoadFile(p, spec.Options{})
				if err != nil {
					return err
				}
				all = append(all, ds...)
				if f != nil {
					tools = append(tools, f.Workflows()...)
				}
			}
			if all.HasErrors() {
				all.Sort()
				if err := lint.Write(cmd.ErrOrStderr(), "text", all, Version); err != nil {
					return err
				}
				fmt.Fprintln(cmd.ErrOrStderr(), "mrtrgen: fix the errors above, then run mrtrgen graph again")
				return findings()
			}
			if len(only) > 0 {
				tools, err = selectTools(tools, only)
				if err != nil {
					return err
				}
			}
			return diagram.Render(cmd.OutOrStdout(), format, tools)
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "mermaid", "output format: "+strings.Join(diagram.Formats, ", "))
	cmd.Flags().StringSliceVarP(&only, "tool", "t", nil, "draw only the tools or prompts of these names (repeatable, or comma-separated)")
	return cmd
}

// selectTools keeps the workflows named in names, in their spec order, and
// fails on a name no spec declares.
func selectTools(tools []*spec.Tool, names []string) ([]*spec.Tool, error) {
	var out []*spec.Tool
	var have []string
	for _, t := range tools {
		have = append(have, t.Name)
		if slices.Contains(names, t.Name) {
			out = append(out, t)
		}
	}
	for _, n := range names {
		if !slices.Contains(have, n) {
			msg := fmt.Sprintf("no tool or prompt named %q in these specs", n)
			if s := suggest(n, have); len(s) > 0 {
				msg += "; did you mean " + strings.Join(s, " or ") + "?"
			}
			slices.Sort(have)
			return nil, fmt.Errorf("%s (have: %s)", msg, strings.Join(have, ", "))
		}
	}
	return out, nil
}
