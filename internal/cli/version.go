package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is the mrtrgen release. Generated code never embeds it, so
// upgrading mrtrgen does not churn generated files.
const Version = "0.1.0-dev"

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the mrtrgen version",
		Long: `Version prints the version of mrtrgen. Generated code does not record it,
so upgrading mrtrgen changes generated files only when their content changes.`,
		Example: `  mrtrgen version`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := Version
			if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
				v = bi.Main.Version
			}
			fmt.Fprintf(cmd.OutOrStdout(), "mrtrgen %s\n", v)
			return nil
		},
	}
}
