package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mrtrgen generate loads the Go types a spec names (goType) from the
// module of the output directory: a missing type, or one whose JSON form
// is not the field's type, is a finding at the goType value and nothing is
// written; once the types are right, the code is written with them.
func TestGenerateChecksGoTypes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A module of its own with no requirements: go list needs no network.
	write("go.mod", "module example.com/shop\n\ngo 1.24\n")
	write("types.go", "package shop\n\n// Cents is an amount in cents.\ntype Cents int64\n\n// SKU names a product.\ntype SKU string\n")
	const spec = `version: 1
package: shop
tools:
  price:
    description: Price a product.
    arguments:
      sku: {type: string, required: true, maxLength: 12, pattern: '[A-Z]{3}-[0-9]{1,8}', goType: %s}
    continuation:
      fields:
        total: {type: integer, minimum: 0, goType: %s}
    initial: look
    states:
      look: {check: findPrice, sets: [total], next: done}
      done: {terminal: success, message: '{sku} costs {total} cents.'}
`
	path := filepath.Join(dir, "shop.mrtr.yaml")
	write("shop.mrtr.yaml", strings.Replace(strings.Replace(spec, "%s", "Cents", 1), "%s", "Price", 1))
	code, out, errOut := run(t, "generate", path)
	if code != ExitFindings || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, want := range []string{
		"shop.mrtr.yaml:7:98: error: sku: goType Cents is an integer in JSON (its underlying type is int64), but sku is a string [go-type]",
		"hint: declare the field as type: integer, or name a type whose JSON form is a string",
		"shop.mrtr.yaml:10:52: error: total: package example.com/shop declares no type Price [go-type]",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "price.mrtr.go")); !os.IsNotExist(err) {
		t.Errorf("generated code was written despite the findings: %v", err)
	}
	// The generated package's own type, named by its import path, would
	// make the generated code import itself.
	write("shop.mrtr.yaml", strings.Replace(strings.Replace(spec, "%s", "example.com/shop.SKU", 1), "%s", "Cents", 1))
	code, _, errOut = run(t, "generate", path)
	if want := "error: sku: goType example.com/shop.SKU is in the generated package itself [go-type]"; code != ExitFindings || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr lacks %q:\n%s", code, want, errOut)
	}
	write("shop.mrtr.yaml", strings.Replace(strings.Replace(spec, "%s", "SKU", 1), "%s", "Cents", 1))
	code, out, errOut = run(t, "generate", path)
	if code != ExitOK || !strings.Contains(out, "price.mrtr.go") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, "price.mrtr.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\tSku SKU `json:\"sku\"`", "\tTotal Cents\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("price.mrtr.go lacks %q", want)
		}
	}
}
