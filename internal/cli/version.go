package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// modulePath is this module: its version in the build information is
// mrtrgen's, whether mrtrgen is the main module (go build, go install
// ...@v1.2.3) or a dependency of the user's module (go tool mrtrgen,
// go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen).
const modulePath = "github.com/mrtrgen/mrtrgen"

// Version is the mrtrgen version that `mrtrgen version` prints and SARIF
// reports (one source, so they agree): the module version the go command
// recorded in the binary, or "(devel)" for a build from a checkout
// (inside this repository, or through a replace directive pointing at a
// clone, whose pseudo-version v0.0.0 says nothing). Generated code never
// embeds it, so upgrading mrtrgen does not churn generated files.
var Version = buildVersion(debug.ReadBuildInfo())

func buildVersion(bi *debug.BuildInfo, ok bool) string {
	const devel = "(devel)"
	if !ok || bi == nil {
		return devel
	}
	m := &bi.Main
	if m.Path != modulePath {
		m = nil
		for _, d := range bi.Deps {
			if d.Path == modulePath {
				m = d
				break
			}
		}
	}
	switch {
	case m == nil:
		return devel // a test binary of another module
	case m.Replace != nil && m.Replace.Version == "":
		return devel // replaced by a directory: a clone
	case m.Replace != nil:
		return m.Replace.Version
	case m.Version == "" || m.Version == "v0.0.0":
		return devel
	}
	return m.Version
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the mrtrgen version",
		Long: `Version prints the version of mrtrgen: the module version the go command
built (v1.2.3, or a pseudo-version for a commit), or (devel) for a build
from a clone. SARIF output of lint reports the same version. Generated
code does not record it, so upgrading mrtrgen changes generated files
only when their content changes.`,
		Example: `  mrtrgen version`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "mrtrgen %s\n", Version)
			return nil
		},
	}
}
