package main

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeServeIt: the README's "Serve it" snippet is this package's
// main.go from its package clause on, so what readers copy is what the
// build compiles (go vet, go test ./...).
func TestReadmeServeIt(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	got, ok := serveItSnippet(string(readme))
	if !ok {
		t.Fatal(`README.md: no "Serve it" step followed by a go code block`)
	}
	want := string(src)
	i := strings.Index(want, "package main")
	if i < 0 {
		t.Fatal("examples/serveit/main.go has no package clause")
	}
	want = want[i:]
	if got != want {
		t.Errorf("README.md's \"Serve it\" snippet differs from examples/serveit/main.go (from its package clause on); "+
			"copy main.go into the README (indented by 3 spaces).\n--- README\n%s\n--- main.go\n%s", got, want)
	}
}

// serveItSnippet returns the first go code block after "Serve it" in a
// Markdown text, without the list item's indentation.
func serveItSnippet(md string) (string, bool) {
	_, rest, ok := strings.Cut(md, "Serve it")
	if !ok {
		return "", false
	}
	_, rest, ok = strings.Cut(rest, "```go\n")
	if !ok {
		return "", false
	}
	body, _, ok := strings.Cut(rest, "```")
	if !ok {
		return "", false
	}
	var b strings.Builder
	for line := range strings.Lines(strings.TrimRight(body, " ")) {
		if strings.TrimSpace(line) == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString(strings.TrimPrefix(line, "   "))
	}
	return b.String(), true
}
