package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The files the README's "From a spec to a running tool" says init and
// generate write are the files they write (issue 28 item 9: the list
// differed): init tickets, the README's spec in place of the starter, and
// generate, in an empty directory; the README's steps 1 and 2 name every
// file the directory then holds, and no other.
func TestReadmeFileList(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	_, section, ok := strings.Cut(readme, "\n## From a spec to a running tool\n")
	if !ok {
		t.Fatal(`README.md has no "## From a spec to a running tool"`)
	}
	step1, rest, ok1 := strings.Cut(section, "\n   ```yaml\n")
	yamlBlock, rest, ok2 := strings.Cut(rest, "\n   ```\n")
	_, step2, ok3 := strings.Cut(rest, "\n   This writes")
	step2, _, ok4 := strings.Cut(step2, "\n\n")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		t.Fatal("README.md: step 1 (a spec, then its ```yaml block) or step 2 (\"This writes\", a paragraph) not found")
	}
	fileName := regexp.MustCompile("`(\\.?[A-Za-z0-9_.-]+\\.(?:go|md|yaml|json)|\\.gitattributes)`")
	var listed []string
	for _, m := range fileName.FindAllStringSubmatch(step1+step2, -1) {
		if !slices.Contains(listed, m[1]) {
			listed = append(listed, m[1])
		}
	}

	dir := t.TempDir()
	t.Chdir(dir)
	if code, out, errOut := run(t, "init", "tickets"); code != ExitOK {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	var spec strings.Builder
	for _, l := range strings.Split(yamlBlock, "\n") {
		spec.WriteString(strings.TrimPrefix(l, "   ") + "\n")
	}
	writeFile(t, filepath.Join(dir, "tickets.mrtr.yaml"), spec.String())
	if code, out, errOut := run(t, "generate", "tickets.mrtr.yaml"); code != ExitOK {
		t.Fatalf("generate: exit %d\n%s%s", code, out, errOut)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var written []string
	for _, e := range entries {
		written = append(written, e.Name())
	}
	slices.Sort(listed)
	slices.Sort(written)
	if !slices.Equal(listed, written) {
		t.Errorf("README.md's steps 1 and 2 name %q;\ninit tickets and generate write %q", listed, written)
	}
}
