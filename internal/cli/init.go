package cli

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/templates"
)

func newInitCmd() *cobra.Command {
	var pkg, tool string
	cmd := &cobra.Command{
		Use:   "init [NAME]",
		Short: "Write a commented starter spec",
		Long: `Init writes NAME.mrtr.yaml, a commented starter spec with one tool that
follows the MRTR practices lint enforces (a check before the question, a
confirmation gate and a recheck before an irreversible, idempotent
effect, a continuation TTL). It lints clean and generates as it is; edit
it into your own tools.

NAME defaults to the current directory's name, and may include a
directory (specs/billing writes specs/billing.mrtr.yaml). The Go package
is NAME in lower case without punctuation, unless --package says
otherwise. The starter tool is named after NAME when NAME reads as a verb and
its object (close_ticket, or Close-Ticket, makes a tool close_ticket that
closes tickets: its argument, methods, states and messages say so), else
delete_document (a one-word NAME such as billing, or the directory's
name, names a package more often than a tool), or --tool. The file starts with the yaml-language-server line that
gives editors the schema, and says how to wire it into go generate. The
schema itself is saved next to the spec as ` + spec.SchemaFile + ` (unless that
file exists), so that editors complete and validate specs offline.

Init never overwrites a file: it fails (exit 2) when NAME.mrtr.yaml exists.`,
		Example: `  mrtrgen init                      # <current directory>.mrtr.yaml
  mrtrgen init billing              # billing.mrtr.yaml, package billing
  mrtrgen init specs/billing --package billingmcp
  mrtrgen init close_ticket         # close_ticket.mrtr.yaml with a tool close_ticket`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runInit(cmd, args, pkg, tool) },
	}
	cmd.Flags().StringVarP(&pkg, "package", "p", "", "Go package name of the generated code (default: from NAME)")
	cmd.Flags().StringVar(&tool, "tool", "", "name of the starter tool, a verb and its object (default: NAME when it is one, else delete_document)")
	return cmd
}

// runInit writes the starter spec named by args (or after the current
// directory) with package pkg and tool tool ("" for the defaults).
func runInit(cmd *cobra.Command, args []string, pkg, tool string) error {
	name := ""
	if len(args) == 1 {
		name = args[0]
		if t := toolName(filepath.Base(strings.TrimSuffix(name, spec.Ext))); tool == "" && isVerbObject(t) {
			tool = t
		}
	} else {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		name = filepath.Base(wd)
	}
	name = strings.TrimSuffix(name, spec.Ext)
	dir, base := filepath.Split(name)
	if base == "" || base == "." || base == ".." {
		return usageError(cmd, fmt.Errorf("%q is not a spec name; give one, for example mrtrgen init billing", name))
	}
	if pkg == "" {
		pkg = packageName(base)
	} else if !validPackage(pkg) {
		return usageError(cmd, fmt.Errorf("--package %q is not a Go package name of lower-case letters, digits and underscores", pkg))
	}
	if tool == "" {
		tool = defaultTool
	} else if !validToolName(tool) {
		return usageError(cmd, fmt.Errorf("--tool %q is not a tool name of lower-case letters, digits and underscores starting with a letter", tool))
	}
	file := base + spec.Ext
	path := filepath.Join(dir, file)
	content, err := starterSpec(file, pkg, tool)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s already exists; mrtrgen init never overwrites a file: pick another name (mrtrgen init OTHER), or move the file away", filepath.ToSlash(path))
	}
	schemaNote, err := writeSchema(dir)
	if err != nil {
		return err
	}
	if err := writeNew(dir, path, content); err != nil {
		return err
	}
	slash := filepath.ToSlash(path)
	fmt.Fprintf(cmd.OutOrStdout(), `wrote %s (package %s)
%s
next:
  mrtrgen lint %s       # check it while you edit
  mrtrgen generate %s   # Go code, tests and a handler scaffold next to it
`, slash, pkg, schemaNote, slash, slash)
	return nil
}

// writeSchema saves the embedded JSON Schema as spec.SchemaFile in dir,
// where the starter spec's yaml-language-server line points, so that
// editors validate offline. An existing file is left alone (init never
// overwrites): the returned line says whether it is this mrtrgen's schema.
func writeSchema(dir string) (string, error) {
	path := filepath.Join(dir, spec.SchemaFile)
	slash := filepath.ToSlash(path)
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, spec.SchemaJSON):
		return fmt.Sprintf("kept %s (the JSON Schema your editor checks specs with; already this version's)", slash), nil
	case err == nil:
		return fmt.Sprintf("kept %s, which is not this version's JSON Schema; refresh it: mrtrgen schema > %s", slash, slash), nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	if err := writeNew(dir, path, spec.SchemaJSON); err != nil {
		return "", err
	}
	return fmt.Sprintf("wrote %s (the JSON Schema your editor checks specs with, offline)", slash), nil
}

// writeNew writes content to path, in the existing directory dir, unless
// path exists.
func writeNew(dir, path string, content []byte) error {
	if dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("directory %s does not exist; create it first (mkdir -p %s)", dir, dir)
		}
	}
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists; mrtrgen init never overwrites a file: pick another name (mrtrgen init OTHER), or move the file away", filepath.ToSlash(path))
	}
	if err != nil {
		return err
	}
	if _, err := fh.Write(content); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// starterSpec renders the starter spec template.
func starterSpec(file, pkg, tool string) ([]byte, error) {
	tpl, err := templates.Parse(templates.Init, nil)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	var words starterWords
	if isVerbObject(tool) {
		words = wordsOf(tool)
	} else {
		// One word (--tool purge): it acts on an item.
		words = wordsOf(tool + "_item")
		words.Tool, words.Title = tool, toolTitle(tool)
	}
	err = tpl.Execute(&b, struct {
		File, Package, SchemaFile string
		starterWords
	}{file, pkg, spec.SchemaFile, words})
	return b.Bytes(), err
}

// packageName derives a Go package name from a spec name: lower case,
// letters and digits only ("Billing-API" → "billingapi"); "tools" when
// nothing is left; a leading digit gets a "p" before it, and a Go keyword
// a "pkg" after it.
func packageName(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	p := b.String()
	switch {
	case p == "":
		return "tools"
	case p[0] >= '0' && p[0] <= '9':
		return "p" + p
	case token.IsKeyword(p):
		return p + "pkg"
	}
	return p
}

func validPackage(p string) bool {
	if p == "" || p[0] < 'a' || p[0] > 'z' || token.IsKeyword(p) {
		return false
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// toolName derives a tool name from a spec name: lower case, runs of
// anything but letters and digits made one underscore ("Close-Ticket" →
// "close_ticket"); "" when no letter is left to start it with, so the
// default applies.
func toolName(name string) string {
	var b strings.Builder
	sep := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9' && b.Len() > 0:
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			sep = false
		default:
			sep = true
		}
	}
	return b.String()
}

func validToolName(t string) bool {
	return t != "" && t[0] >= 'a' && t[0] <= 'z' && toolName(t) == t
}

// toolTitle is the title of the starter tool: "close_ticket" → "Close ticket".
func toolTitle(tool string) string {
	t := strings.ReplaceAll(tool, "_", " ")
	return strings.ToUpper(t[:1]) + t[1:]
}
