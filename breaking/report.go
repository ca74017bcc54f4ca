package breaking

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

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

// GitHub workflow commands escape their data and properties differently.
var (
	ghData = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghProp = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

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
		fmt.Fprintf(&b, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", ghLevel[f.Severity],
			ghProp.Replace(filepath.ToSlash(f.Pos.File)), max(f.Pos.Line, 1), max(f.Pos.Col, 1), ghProp.Replace(title), ghData.Replace(msg))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
