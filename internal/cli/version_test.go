package cli

import (
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"
)

// mrtrgen version and the SARIF driver report one version (issue 16: they
// said v0.0.0 and 0.1.0-dev).
func TestVersionAgreesWithSARIF(t *testing.T) {
	code, out, _ := run(t, "version")
	if code != ExitOK {
		t.Fatalf("version: exit %d", code)
	}
	v := strings.TrimSpace(strings.TrimPrefix(out, "mrtrgen "))
	_, sarif, _ := run(t, "lint", "--format", "sarif", rules+"unused-state.mrtr.yaml")
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Version string `json:"version"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(sarif), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("SARIF: %v\n%s", err, sarif)
	}
	if got := log.Runs[0].Tool.Driver.Version; got != v {
		t.Errorf("SARIF driver version %q, mrtrgen version %q", got, v)
	}
}

// mrtrgen version names what was built: a module version, or a source
// build's revision and dirty flag, or where its source came from; never
// just "(devel)" (issue 28 item 4).
func TestBuildVersion(t *testing.T) {
	mod := func(path, version string, replace *debug.Module) debug.Module {
		return debug.Module{Path: path, Version: version, Replace: replace}
	}
	dep := func(m debug.Module) *debug.Module { return &m }
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"go install @v1.2.3", &debug.BuildInfo{Main: mod(modulePath, "v1.2.3", nil)}, "v1.2.3"},
		{"go build in a Git checkout", &debug.BuildInfo{Main: mod(modulePath, "v0.0.0-20261205164144-0eefea40ade0+dirty", nil)},
			"v0.0.0-20261205164144-0eefea40ade0+dirty"},
		{"a source build with VCS information", &debug.BuildInfo{Main: mod(modulePath, "(devel)", nil), Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0eefea40ade08ad762fd1e7137c4910276a1b8d9"}, {Key: "vcs.modified", Value: "true"}}},
			"devel 0eefea40ade0+dirty"},
		{"a clean source build", &debug.BuildInfo{Main: mod(modulePath, "(devel)", nil), Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0eefea40ade08ad762fd1e7137c4910276a1b8d9"}, {Key: "vcs.modified", Value: "false"}}},
			"devel 0eefea40ade0"},
		{"go run in a clone", &debug.BuildInfo{Main: mod(modulePath, "(devel)", nil)},
			"devel (built from source without VCS information: go run, go test, or go build -buildvcs=false)"},
		{"go tool, released", &debug.BuildInfo{Main: mod("example.com/notes", "(devel)", nil),
			Deps: []*debug.Module{dep(mod(modulePath, "v1.2.3", nil))}}, "v1.2.3"},
		{"go tool, replaced by a clone", &debug.BuildInfo{Main: mod("example.com/notes", "(devel)", nil),
			Deps: []*debug.Module{dep(mod(modulePath, "v0.0.0", &debug.Module{Path: "../mrtrgen"}))}},
			"devel, from the directory ../mrtrgen (a replace directive; the go command records no revision for it)"},
		{"go tool, replaced by a fork", &debug.BuildInfo{Main: mod("example.com/notes", "(devel)", nil),
			Deps: []*debug.Module{dep(mod(modulePath, "v1.2.3", &debug.Module{Path: "example.com/fork", Version: "v1.2.4"}))}}, "v1.2.4"},
		{"a test binary of another module", &debug.BuildInfo{Main: mod("example.com/other", "", nil)}, "devel (built into example.com/other, not as mrtrgen)"},
		{"no build information", nil, "devel (no build information in the binary)"},
	} {
		got := buildVersion(tc.bi, tc.bi != nil)
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if strings.Contains(got, "(devel)") {
			t.Errorf("%s: %q says only (devel)", tc.name, got)
		}
	}
}
