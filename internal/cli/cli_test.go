package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/spec"
)

// run runs mrtrgen in process and returns its exit code and output.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := func() (code int) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("mrtrgen %v panicked: %v", args, r)
			}
		}()
		return Main(args, strings.NewReader(""), &stdout, &stderr)
	}()
	return code, stdout.String(), stderr.String()
}

const rules = "../../lint/testdata/rules/"

func TestLintExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string // a substring of stdout
		err  string // a substring of stderr
	}{
		{"clean", []string{"lint", "../../examples/specs"}, ExitOK, "", ""},
		{"warnings", []string{"lint", rules + "unused-state.mrtr.yaml"}, ExitOK, "warning:", ""},
		{"warnings strict", []string{"lint", "--strict", rules + "unused-state.mrtr.yaml"}, ExitFindings, "[unused-state]", ""},
		{"errors", []string{"lint", rules + "enum-without-values.mrtr.yaml"}, ExitFindings, "[enum-without-values]", ""},
		{"loader errors", []string{"lint", rules + "schema.mrtr.yaml"}, ExitFindings, "[schema]", ""},
		{"clean strict", []string{"lint", "--strict", "../../examples/specs"}, ExitOK, "", ""},
		{"missing path", []string{"lint", "no/such/dir"}, ExitFailure, "", "no/such/dir"},
		{"bad format", []string{"lint", "--format", "xml", "../../examples/specs"}, ExitFailure, "", `unknown --format "xml"`},
		{"unknown flag", []string{"lint", "--nope"}, ExitFailure, "", "unknown flag"},
		{"no specs under dir", []string{"lint", t.TempDir()}, ExitFailure, "", "no .mrtr.yaml files"},
		{"unknown command", []string{"lnit"}, ExitFailure, "", "unknown command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			if tc.out == "" && tc.code == ExitOK && strings.Contains(tc.name, "clean") && out != "" {
				t.Errorf("clean run printed:\n%s", out)
			}
			if !strings.Contains(out, tc.out) {
				t.Errorf("stdout lacks %q:\n%s", tc.out, out)
			}
			if !strings.Contains(errOut, tc.err) {
				t.Errorf("stderr lacks %q:\n%s", tc.err, errOut)
			}
			if tc.code == ExitFailure && out != "" {
				t.Errorf("a failed run printed findings:\n%s", out)
			}
		})
	}
}

// Every format is accepted by the CLI and gives the same exit code.
func TestLintFormats(t *testing.T) {
	for _, format := range []string{"text", "json", "github", "sarif"} {
		code, out, _ := run(t, "lint", "--format", format, rules+"unreachable-state.mrtr.yaml", rules+"enum-without-values.mrtr.yaml")
		if code != ExitFindings {
			t.Errorf("%s: exit %d", format, code)
		}
		if format == "json" || format == "sarif" {
			if !json.Valid([]byte(out)) {
				t.Errorf("%s output is not JSON:\n%s", format, out)
			}
		}
		if !strings.Contains(out, "enum-without-values") || !strings.Contains(out, "unreachable-state") {
			t.Errorf("%s output lacks a finding:\n%s", format, out)
		}
	}
	// A clean run in JSON is an empty array, not nothing.
	if code, out, _ := run(t, "lint", "-f", "json", "../../examples/specs"); code != ExitOK || strings.TrimSpace(out) != "[]" {
		t.Errorf("clean json: exit %d, %q", code, out)
	}
}

func TestSchemaCommand(t *testing.T) {
	code, out, errOut := run(t, "schema")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if out != string(spec.SchemaJSON) {
		t.Error("mrtrgen schema does not print spec.SchemaJSON")
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if m["$id"] != spec.SchemaURL || m["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$id %v, $schema %v", m["$id"], m["$schema"])
	}
	if code, _, _ := run(t, "schema", "extra"); code != ExitFailure {
		t.Errorf("schema with an argument: exit %d, want %d", code, ExitFailure)
	}
}

// locRE is what every finding line of the text format starts with: the
// file, then line:col, or the file alone for whole-file problems.
var locRE = regexp.MustCompile(`^(.+?)(:\d+:\d+)?: (error|warning): .+ \[[a-z-]+\]$`)

// The hostile corpus of the spec package, through the command line: every
// input ends with exit 1 and positioned findings (the same the loader
// reports, pinned by the corpus's golden files), quickly and without a
// panic.
func TestLintHostileCorpus(t *testing.T) {
	const dir = "../../spec/testdata/hostile"
	paths, err := filepath.Glob(filepath.Join(dir, "*"+spec.Ext))
	if err != nil || len(paths) < 25 {
		t.Fatalf("corpus: %d files, %v", len(paths), err)
	}
	tmp := t.TempDir()
	for name, data := range generatedHostile() {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	for _, p := range paths {
		name := filepath.Base(p)
		t.Run(strings.TrimSuffix(name, spec.Ext), func(t *testing.T) {
			lint := func() (int, string, string, time.Duration) {
				start := time.Now()
				code, out, errOut := run(t, "lint", p)
				return code, out, errOut, time.Since(start)
			}
			code, out, errOut, took := lint()
			// The best of three runs, so that a busy neighbour does not
			// fail a robustness bound.
			for i := 0; i < 2 && took > 2*time.Second*slowdown; i++ {
				_, _, _, again := lint()
				took = min(took, again)
			}
			if took > 2*time.Second*slowdown {
				t.Errorf("took %v", took)
			}
			if code != ExitFindings && code != ExitFailure {
				t.Fatalf("exit %d, want 1 or 2\n%s%s", code, out, errOut)
			}
			for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				if strings.HasPrefix(line, "\thint: ") {
					continue
				}
				m := locRE.FindStringSubmatch(line)
				if m == nil || m[1] != filepath.ToSlash(p) {
					t.Errorf("finding does not start with %s:line:col: %q", p, line)
				}
			}
			golden, err := os.ReadFile(filepath.Join(dir, strings.TrimSuffix(name, spec.Ext)+".golden"))
			if err != nil {
				t.Fatal(err)
			}
			want := regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(name)).ReplaceAllLiteralString(string(golden), filepath.ToSlash(p))
			if out != want {
				t.Errorf("output differs from the loader's golden file\n--- got\n%s--- want\n%s", out, want)
			}
		})
	}
}

// generatedHostile rebuilds some of the generated inputs of the spec
// package's corpus (spec/hostile_test.go) byte for byte, so that their
// golden files apply.
func generatedHostile() map[string][]byte {
	const deep = 100_000
	big := bytes.Repeat([]byte("# padding padding padding padding\n"), (8<<20)/34+1)
	return map[string][]byte{
		"gen-oversized.mrtr.yaml":      append([]byte("version: 1\npackage: hostile\n"), big...),
		"gen-deep-sequences.mrtr.yaml": []byte("version: 1\npackage: hostile\nx: " + strings.Repeat("[", deep) + strings.Repeat("]", deep) + "\n"),
		"gen-long-line.mrtr.yaml":      []byte("version: 1\npackage: hostile\noutput: " + strings.Repeat("a", 2<<20) + "\nnot_a_key: 1\n"),
	}
}
