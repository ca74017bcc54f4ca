package cli

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"go.yaml.in/yaml/v3"
)

// The $schema reference mrtrgen init writes resolves without the network,
// the way yaml-language-server resolves it: relative to the spec's file
// (issue 28 item 5). The schema found there validates the starter spec
// and underlines a misspelt key, so an editor offline completes and checks
// specs. The compiler here has no HTTP loader: a URL would not resolve.
func TestInitSchemaResolvesOffline(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("specs", 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, "init", "specs/billing"); code != ExitOK {
		t.Fatalf("init: exit %d: %s", code, errOut)
	}
	specPath := filepath.Join(dir, "specs", "billing.mrtr.yaml")
	text, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(text), "\n")
	ref, ok := strings.CutPrefix(first, "# yaml-language-server: $schema=")
	if !ok {
		t.Fatalf("the spec's first line is %q, not a yaml-language-server schema line", first)
	}
	if strings.Contains(ref, "://") {
		t.Fatalf("the schema reference %q needs the network", ref)
	}
	schemaPath := filepath.Join(filepath.Dir(specPath), filepath.FromSlash(ref))
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(url string) (io.ReadCloser, error) {
		t.Errorf("the schema loads %s: it would need the network", url)
		return nil, os.ErrNotExist
	}
	fh, err := os.Open(schemaPath)
	if err != nil {
		t.Fatalf("the spec's $schema=%s does not resolve: %v", ref, err)
	}
	defer fh.Close()
	if err := c.AddResource("file:///"+filepath.ToSlash(schemaPath), fh); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("file:///" + filepath.ToSlash(schemaPath))
	if err != nil {
		t.Fatalf("compiling %s: %v", ref, err)
	}
	if err := schema.Validate(yamlValue(t, text)); err != nil {
		t.Errorf("the starter spec does not validate against %s: %v", ref, err)
	}
	typo := strings.Replace(string(text), "\n    description:", "\n    descripton:", 1) //nolint:misspell // the typo is the test
	if typo == string(text) {
		t.Fatal("the starter spec has no tool description to misspell")
	}
	if err := schema.Validate(yamlValue(t, []byte(typo))); err == nil {
		t.Error("a misspelt key validates against the schema file: an editor would not underline it")
	}
}

// yamlValue is a YAML document as the JSON value a schema validates.
func yamlValue(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(j, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
