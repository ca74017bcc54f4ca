package cli

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// When check finds stale files it says how to regenerate them with the
// command the reader has (issue 28 item 9): go generate, where a
// //go:generate directive runs mrtrgen for the spec; go tool mrtrgen
// generate, where the module has mrtrgen as a tool; mrtrgen generate
// otherwise.

// toolPath is the package go get -tool records.
const toolPath = "github.com/mrtrgen/mrtrgen/cmd/mrtrgen"

// regenerateCommand is the command that regenerates the specs stale (their
// paths and output directories, as planAll has them), run from cwd; args
// are the paths check was given. In mrtrgen's own repository, without a
// directive, it is go run ./cmd/mrtrgen generate.
func regenerateCommand(cwd string, args []string, stale []plannedSpec) string {
	var dirs, others []string
	for _, p := range stale {
		if d := generateDirective(p.path, p.outDir); d != "" {
			if !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		} else if !slices.Contains(others, p.path) {
			others = append(others, p.path)
		}
	}
	var parts []string
	if len(dirs) > 0 {
		parts = append(parts, goGenerateCommand(cwd, dirs))
	}
	if len(others) > 0 {
		paths := args
		if len(dirs) > 0 {
			paths = others
		}
		cmd := "mrtrgen generate"
		mod := moduleRoot(cwd)
		switch {
		case mod == "":
		case hasTool(filepath.Join(mod, "go.mod"), toolPath):
			cmd = "go tool mrtrgen generate"
		case goModPath(filepath.Join(mod, "go.mod")) == modulePath:
			// In mrtrgen's own repository.
			if rel, err := filepath.Rel(cwd, filepath.Join(mod, "cmd", "mrtrgen")); err == nil {
				if rel = filepath.ToSlash(rel); !strings.HasPrefix(rel, "../") {
					rel = "./" + rel
				}
				cmd = "go run " + shellQuote(rel) + " generate"
			}
		}
		for _, a := range paths {
			cmd += " " + shellQuote(a)
		}
		parts = append(parts, cmd)
	}
	return strings.Join(parts, " and ")
}

// goGenerateCommand runs the directives of dirs from cwd: go generate ./...
// when cwd's module holds them all under cwd where ./... reaches, their
// package paths when it holds them elsewhere, and a cd into each other
// directory.
func goGenerateCommand(cwd string, dirs []string) string {
	mod := moduleRoot(cwd)
	var pkgs, cds []string
	all := true
	for _, d := range dirs {
		rel, err := filepath.Rel(cwd, d)
		if err != nil || mod == "" || moduleRoot(d) != mod {
			all = false
			cds = append(cds, "cd "+shellQuote(d)+" && go generate")
			continue
		}
		rel = filepath.ToSlash(rel)
		if rel == "." {
			pkgs = append(pkgs, ".")
		} else if rel == ".." || strings.HasPrefix(rel, "../") {
			pkgs = append(pkgs, shellQuote(rel))
			all = false
		} else {
			pkgs = append(pkgs, shellQuote("./"+rel))
		}
		if !dotDotDotReaches(rel) {
			all = false
		}
	}
	var parts []string
	switch {
	case all:
		parts = append(parts, "go generate ./...")
	case len(pkgs) > 0:
		parts = append(parts, "go generate "+strings.Join(pkgs, " "))
	}
	return strings.Join(append(parts, cds...), " and ")
}

// dotDotDotReaches reports whether ./... from a directory reaches its
// subdirectory rel: the go command skips testdata and directories whose
// names start with . or _.
func dotDotDotReaches(rel string) bool {
	if rel == "." {
		return true
	}
	for _, e := range strings.Split(rel, "/") {
		if e == ".." || e == "testdata" || strings.HasPrefix(e, ".") || strings.HasPrefix(e, "_") {
			return false
		}
	}
	return true
}

// moduleRoot is the directory of the go.mod that holds dir, or "".
func moduleRoot(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		if st, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !st.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// hasTool reports whether the go.mod at path has a tool directive for
// pkg ("tool pkg", or pkg inside a "tool (...)" block).
func hasTool(path, pkg string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	block := false
	for _, l := range strings.Split(string(b), "\n") {
		if i := strings.Index(l, "//"); i >= 0 {
			l = l[:i]
		}
		f := strings.Fields(l)
		switch {
		case len(f) == 0:
		case block && f[0] == ")":
			block = false
		case block && f[0] == pkg:
			return true
		case f[0] == "tool" && len(f) == 2 && f[1] == "(":
			block = true
		case f[0] == "tool" && len(f) == 2 && f[1] == pkg:
			return true
		}
	}
	return false
}

// goModPath is the module path the go.mod at path declares, or "".
func goModPath(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

var goGenerateLine = regexp.MustCompile(`^//go:generate\s+(.*)$`)

// generateDirective is the directory of a Go file whose //go:generate
// directive runs mrtrgen generate on the spec at specPath (a path it names
// is the spec or a directory holding it), looked for in the spec's
// directory, its output directory and the directories above the spec up
// to its module's root; "" when there is none.
func generateDirective(specPath, outDir string) string {
	specAbs, err := filepath.Abs(specPath)
	if err != nil {
		return ""
	}
	dirs := []string{filepath.Dir(specAbs)}
	if outDir != "" {
		if o, err := filepath.Abs(outDir); err == nil && o != dirs[0] {
			dirs = append(dirs, o)
		}
	}
	if mod := moduleRoot(dirs[0]); mod != "" {
		for d := filepath.Dir(dirs[0]); strings.HasPrefix(d, mod) && d != filepath.Dir(d); d = filepath.Dir(d) {
			dirs = append(dirs, d)
			if d == mod {
				break
			}
		}
	}
	for _, d := range dirs {
		files, err := filepath.Glob(filepath.Join(d, "*.go"))
		if err != nil {
			continue
		}
		for _, f := range files {
			if directiveCovers(f, specAbs) {
				return d
			}
		}
	}
	return ""
}

// directiveCovers reports whether the Go file at path has a //go:generate
// directive running mrtrgen generate on specAbs.
func directiveCovers(path, specAbs string) bool {
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(b, []byte("mrtrgen")) {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, len(b)+1)
	for sc.Scan() {
		m := goGenerateLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		f := strings.Fields(m[1])
		i := slices.IndexFunc(f, func(s string) bool { return s == "mrtrgen" || strings.HasSuffix(s, "/mrtrgen") })
		if i < 0 || i+1 >= len(f) || f[i+1] != "generate" {
			continue
		}
		var paths []string
		for _, a := range f[i+2:] {
			if !strings.HasPrefix(a, "-") {
				paths = append(paths, strings.Trim(a, `"'`))
			}
		}
		if len(paths) == 0 {
			paths = []string{"."}
		}
		for _, p := range paths {
			rel, err := filepath.Rel(filepath.Join(filepath.Dir(path), filepath.FromSlash(p)), specAbs)
			if err == nil && (rel == "." || !strings.HasPrefix(filepath.ToSlash(rel), "../") && rel != "..") {
				return true
			}
		}
	}
	return false
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./@:=+,-", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
