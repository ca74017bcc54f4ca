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
// reports (one source, so they agree), from what the go command recorded
// in the binary:
//
//   - the module version: v1.2.3 (go install ...@v1.2.3, go get -tool
//     ...@v1.2.3), or the pseudo-version go build gives a checkout, which
//     names its commit and ends in +dirty when files were changed;
//   - for a build from source without a version, the VCS revision and
//     whether files were changed (devel 0123456789ab+dirty), when recorded;
//   - else where the source came from, and why no revision is known (a
//     directory named by a replace directive, go run, -buildvcs=false).
//
// Generated code never embeds it, so upgrading mrtrgen does not churn
// generated files.
var Version = buildVersion(debug.ReadBuildInfo())

func buildVersion(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "devel (no build information in the binary)"
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
		// A test binary of another module, linking this package.
		return "devel (built into " + bi.Main.Path + ", not as mrtrgen)"
	case m.Replace != nil && m.Replace.Version == "":
		return "devel, from the directory " + m.Replace.Path + " (a replace directive; the go command records no revision for it)"
	case m.Replace != nil:
		return m.Replace.Version
	case m.Version != "" && m.Version != "(devel)" && m.Version != "v0.0.0":
		return m.Version
	}
	// A source build of mrtrgen itself without a module version.
	rev, modified := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel (built from source without VCS information: go run, go test, or go build -buildvcs=false)"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified {
		rev += "+dirty"
	}
	return "devel " + rev
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the mrtrgen version",
		Long: `Version prints the version of mrtrgen: the module version the go command
built (v1.2.3, or a pseudo-version naming a commit, +dirty when files were
changed); for a build from source without one, the VCS revision and +dirty
when recorded, or else where the source came from (a directory named by a
replace directive). SARIF output of lint reports the same version.
Generated code does not record it, so upgrading mrtrgen changes generated
files only when their content changes.`,
		Example: `  mrtrgen version`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "mrtrgen %s\n", Version)
			return nil
		},
	}
}
