package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/internal/testfiles"
)

// check names the command that regenerates, as the reader has it (issue 28
// item 9): go generate where a //go:generate directive runs mrtrgen for the
// spec, go tool mrtrgen generate where the module has mrtrgen as a tool,
// mrtrgen generate otherwise.
func TestCheckSaysHowToRegenerate(t *testing.T) {
	const gomod = "module example.com/tickets\n\ngo 1.26\n"
	const withTool = gomod + "\ntool github.com/mrtrgen/mrtrgen/cmd/mrtrgen\n"
	const toolBlock = gomod + "\ntool (\n\tgolang.org/x/tools/cmd/stringer\n\tgithub.com/mrtrgen/mrtrgen/cmd/mrtrgen // pinned\n)\n"
	const directive = "package pair\n\n//go:generate go tool mrtrgen generate pair.mrtr.yaml\n"
	for _, tc := range []struct {
		name  string
		files map[string]string // relative to the temporary directory
		cwd   string            // relative to it
		args  []string
		want  string
	}{
		{"directive next to the spec", map[string]string{"go.mod": gomod, "api/doc.go": directive}, ".", []string{"api"}, "go generate ./..."},
		{"directive, run from the spec's directory", map[string]string{"go.mod": gomod, "api/doc.go": directive}, "api", []string{"."}, "go generate ./..."},
		{"directive naming the directory above", map[string]string{"go.mod": gomod, "gen.go": "package x\n\n//go:generate go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen generate ./api\n"}, "api", nil, "go generate .."},
		{"directive in testdata", map[string]string{"go.mod": gomod, "testdata/api/doc.go": directive}, ".", []string{"testdata/api"}, "go generate ./testdata/api"},
		{"directive outside the module of the working directory", map[string]string{"api/go.mod": gomod, "api/doc.go": directive}, ".", []string{"api"}, "cd "},
		{"directive for another spec", map[string]string{"go.mod": withTool, "api/doc.go": "package pair\n\n//go:generate go tool mrtrgen generate other.mrtr.yaml\n"}, ".", []string{"api"}, "go tool mrtrgen generate api"},
		{"module with the tool", map[string]string{"go.mod": withTool}, ".", []string{"api"}, "go tool mrtrgen generate api"},
		{"module with the tool in a block", map[string]string{"go.mod": toolBlock}, "api", nil, "go tool mrtrgen generate"},
		{"module without the tool", map[string]string{"go.mod": gomod}, ".", []string{"api/pair.mrtr.yaml"}, "mrtrgen generate api/pair.mrtr.yaml"},
		{"no module", nil, ".", []string{"api"}, "mrtrgen generate api"},
		{"mrtrgen's own repository", map[string]string{"go.mod": "module github.com/mrtrgen/mrtrgen\n\ngo 1.26\n"}, ".", []string{"api"}, "go run ./cmd/mrtrgen generate api"},
		{"mrtrgen's own repository, below its root", map[string]string{"go.mod": "module github.com/mrtrgen/mrtrgen\n\ngo 1.26\n"}, "api", []string{"."}, "go run ../cmd/mrtrgen generate ."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			specDir := "api"
			if strings.HasPrefix(tc.name, "directive in testdata") {
				specDir = "testdata/api"
			}
			writeFile(t, filepath.Join(dir, specDir, "pair.mrtr.yaml"), testfiles.TwoTools)
			for name, text := range tc.files {
				writeFile(t, filepath.Join(dir, name), text)
			}
			t.Chdir(filepath.Join(dir, tc.cwd))
			code, _, errOut := run(t, append([]string{"check"}, tc.args...)...)
			if code != ExitFindings {
				t.Fatalf("check: exit %d\n%s", code, errOut)
			}
			want := "mrtrgen: 7 generated file(s) out of date; run " + tc.want
			if tc.want == "cd " {
				want += filepath.Join(dir, "api") + " && go generate"
			}
			if strings.TrimSpace(errOut) != want {
				t.Errorf("stderr:\n%s\nwant:\n%s", errOut, want)
			}
		})
	}
}
