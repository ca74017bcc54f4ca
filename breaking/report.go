package breaking

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/mrtrgen/mrtrgen/internal/ghactions"
	"github.com/mrtrgen/mrtrgen/spec"
)

// Formats lists the output formats Write accepts.
var Formats = []string{"text", "json", "github"}

// Write prints findings in one of Formats:
//
//	text    path:line:col: severity: message [rule], then "was: OLDPOS"
//	        indented when the thing is gone from the new version
//	json    an array of objects, one per finding
//	github  GitHub Actions workflow commands (annotations on the diff)
func Write(w io.Writer, format string, fs []Finding) error {
	switch format {
	case "text":
		return writeText(w, fs)
	case "json":
		return writeJSON(w, fs)
	case "github":
		return writeGitHub(w, fs)
	}
	return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

func slash(p spec.Pos) spec.Pos {
	p.File = filepath.ToSlash(p.File)
	return p
}

func writeText(w io.Writer, fs []Finding) error {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s: %s: %s [%s]\n", slash(f.Pos), f.Severity, f.Message, f.Rule)
		if f.Was != (spec.Pos{}) {
			fmt.Fprintf(&b, "\twas: %s\n", slash(f.Was))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type jsonPos struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

type jsonFinding struct {
	jsonPos
	Severity string   `json:"severity"`
	Category Category `json:"category"`
	Rule     string   `json:"rule"`
	Message  string   `json:"message"`
	Was      *jsonPos `json:"was,omitempty"`
}

func toJSONPos(p spec.Pos) jsonPos {
	return jsonPos{Path: filepath.ToSlash(p.File), Line: p.Line, Column: p.Col}
}

func writeJSON(w io.Writer, fs []Finding) error {
	out := make([]jsonFinding, 0, len(fs))
	for _, f := range fs {
		jf := jsonFinding{jsonPos: toJSONPos(f.Pos), Severity: f.Severity.String(), Category: f.Category, Rule: f.Rule, Message: f.Message}
		if f.Was != (spec.Pos{}) {
			was := toJSONPos(f.Was)
			jf.Was = &was
		}
		out = append(out, jf)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

var ghLevel = map[Severity]string{Error: "error", Warning: "warning", Info: "notice"}

func writeGitHub(w io.Writer, fs []Finding) error {
	var b strings.Builder
	for _, f := range fs {
		msg := f.Message
		if f.Was != (spec.Pos{}) {
			msg += "\nwas: " + slash(f.Was).String()
		}
		title := "mrtrgen breaking " + f.Rule
		if f.Category != "" {
			title += " (" + string(f.Category) + ")"
		}
		b.WriteString(ghactions.Annotation(ghLevel[f.Severity], f.Pos.File, f.Pos.Line, f.Pos.Col, title, msg))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
