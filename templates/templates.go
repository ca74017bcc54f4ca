// Package templates holds the text/template files behind the outputs of
// mrtrgen that are not Go: the Markdown page generated for each spec
// (docs.md.tmpl, rendered by the generator) and the starter spec of
// mrtrgen init (init.mrtr.yaml.tmpl). Go code is generated with jennifer,
// not templates.
//
// The files are embedded, so the mrtrgen binary needs nothing at run time.
package templates

import (
	"embed"
	"text/template"
)

//go:embed *.tmpl
var files embed.FS

// Names of the templates.
const (
	Docs = "docs.md.tmpl"
	Init = "init.mrtr.yaml.tmpl"
)

// Parse returns the named template, with funcs available to it. Templates
// fail on a missing map key rather than print "<no value>".
func Parse(name string, funcs template.FuncMap) (*template.Template, error) {
	src, err := files.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return template.New(name).Funcs(funcs).Option("missingkey=error").Parse(string(src))
}

// Source returns the text of the named template.
func Source(name string) ([]byte, error) { return files.ReadFile(name) }
