package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mrtrgen/mrtrgen/spec"
)

// gitRev is one git work tree with a revision resolved in it: where
// mrtrgen breaking reads the old version of each spec.
type gitRev struct {
	top    string // the work tree's root, absolute, symlinks resolved
	rev    string // as the user wrote it (origin/main), for messages and positions
	commit string // what it resolves to
}

// gitRevs opens each work tree once.
type gitRevs struct {
	rev   string
	repos map[string]*gitRev // by top
	dirs  map[string]*gitRev // by the directory asked about
}

func newGitRevs(rev string) *gitRevs {
	return &gitRevs{rev: rev, repos: map[string]*gitRev{}, dirs: map[string]*gitRev{}}
}

// runGit runs git in dir and returns its standard output; a failure says
// what git said.
func runGit(dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var xe *exec.ExitError
		if errors.As(err, &xe) {
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = err.Error()
			}
			return nil, fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
		}
		return nil, fmt.Errorf("cannot run git: %w", err)
	}
	return stdout.Bytes(), nil
}

// forDir returns the work tree holding dir (which must exist), with the
// revision resolved in it.
func (g *gitRevs) forDir(dir string) (*gitRev, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if r, ok := g.dirs[abs]; ok {
		return r, nil
	}
	out, err := runGit(abs, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is not in a git work tree (%w)", dir, err)
	}
	top, err := filepath.EvalSymlinks(strings.TrimSpace(string(out)))
	if err != nil {
		return nil, err
	}
	r, ok := g.repos[top]
	if !ok {
		out, err := runGit(top, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", g.rev+"^{commit}")
		if err != nil {
			return nil, fmt.Errorf("unknown revision %q in %s (fetch it first, e.g. git fetch origin main)", g.rev, top)
		}
		r = &gitRev{top: top, rev: g.rev, commit: strings.TrimSpace(string(out))}
		g.repos[top] = r
	}
	g.dirs[abs] = r
	return r, nil
}

// rel returns path relative to the work tree's root, with forward slashes
// (as git names it). path need not exist, but its directory or a parent
// of it must.
func (r *gitRev) rel(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	// Resolve symlinks of the longest part that exists: git reports the
	// real root, and the file itself may be gone.
	dir, rest := abs, ""
	for {
		if resolved, err := filepath.EvalSymlinks(dir); err == nil {
			dir = resolved
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
	rel, err := filepath.Rel(r.top, filepath.Join(dir, rest))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the git work tree %s", path, r.top)
	}
	return filepath.ToSlash(rel), nil
}

// read returns the contents of each path (relative to the root) at the
// revision; a path that does not exist there, or is no file, is missing
// from the map. One git process reads them all.
func (r *gitRev) read(rels []string) (map[string][]byte, error) {
	var in bytes.Buffer
	for _, rel := range rels {
		if strings.ContainsAny(rel, "\n\r") {
			return nil, fmt.Errorf("%q: git cannot be asked about a path with a line break", rel)
		}
		fmt.Fprintf(&in, "%s:%s\n", r.commit, rel)
	}
	out, err := runGit(r.top, &in, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	found := map[string][]byte{}
	br := bufio.NewReader(bytes.NewReader(out))
	for _, rel := range rels {
		header, err := br.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("git cat-file: short output for %s", rel)
		}
		fields := strings.Fields(header)
		if len(fields) == 2 && fields[1] == "missing" {
			continue
		}
		if len(fields) != 3 {
			return nil, fmt.Errorf("git cat-file: unexpected output %q for %s", strings.TrimSpace(header), rel)
		}
		size, err := strconv.Atoi(fields[2])
		if err != nil {
			return nil, fmt.Errorf("git cat-file: bad size in %q", strings.TrimSpace(header))
		}
		data := make([]byte, size+1) // and the newline after it
		if _, err := io.ReadFull(br, data); err != nil {
			return nil, fmt.Errorf("git cat-file: short object for %s", rel)
		}
		if fields[1] == "blob" {
			found[rel] = data[:size]
		}
	}
	return found, nil
}

// specsUnder lists the spec files under the directory rel at the
// revision, skipping the directories spec.Discover skips.
func (r *gitRev) specsUnder(rel string) ([]string, error) {
	out, err := runGit(r.top, nil, "ls-tree", "-r", "-z", "--name-only", "--full-tree", r.commit, "--", rel)
	if err != nil {
		return nil, err
	}
	var specs []string
	for _, name := range strings.Split(string(out), "\x00") {
		if !strings.HasSuffix(name, spec.Ext) {
			continue
		}
		below := strings.TrimPrefix(strings.TrimPrefix(name, rel), "/")
		if rel == "." {
			below = name
		}
		parts := strings.Split(below, "/")
		skip := false
		for _, d := range parts[:len(parts)-1] {
			skip = skip || spec.SkipDir(d)
		}
		if !skip {
			specs = append(specs, name)
		}
	}
	return specs, nil
}

// exists reports whether path exists in the work tree.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
