package lint

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
var Formats = []string{"text", "json", "github", "sarif"}

// Write prints diagnostics in one of Formats:
//
//	text    path:line:col: severity: message [rule], then the hint indented
//	json    an array of objects, one per finding
//	github  GitHub Actions workflow commands (annotations on the diff)
//	sarif   SARIF 2.1.0, for code-scanning dashboards
func Write(w io.Writer, format string, ds spec.Diagnostics, version string) error {
	switch format {
	case "text":
		return writeText(w, ds)
	case "json":
		return writeJSON(w, ds)
	case "github":
		return writeGitHub(w, ds)
	case "sarif":
		return writeSARIF(w, ds, version)
	}
	return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

func slashPath(p string) string { return filepath.ToSlash(p) }

func writeText(w io.Writer, ds spec.Diagnostics) error {
	for _, d := range ds {
		p := d.Pos
		p.File = slashPath(p.File)
		if _, err := fmt.Fprintf(w, "%s: %s: %s [%s]\n", p, d.Severity, d.Message, d.Rule); err != nil {
			return err
		}
		if d.Hint != "" {
			if _, err := fmt.Fprintf(w, "\thint: %s\n", d.Hint); err != nil {
				return err
			}
		}
	}
	return nil
}

type jsonFinding struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Message  string `json:"message"`
	Hint     string `json:"hint,omitempty"`
}

func writeJSON(w io.Writer, ds spec.Diagnostics) error {
	out := make([]jsonFinding, 0, len(ds))
	for _, d := range ds {
		out = append(out, jsonFinding{
			Path: slashPath(d.Pos.File), Line: d.Pos.Line, Column: d.Pos.Col,
			Severity: d.Severity.String(), Rule: d.Rule, Message: d.Message, Hint: d.Hint,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func writeGitHub(w io.Writer, ds spec.Diagnostics) error {
	for _, d := range ds {
		level := "error"
		if d.Severity == spec.Warning {
			level = "warning"
		}
		msg := d.Message
		if d.Hint != "" {
			msg += "\n" + d.Hint
		}
		if _, err := io.WriteString(w, ghactions.Annotation(level, d.Pos.File, d.Pos.Line, d.Pos.Col, "mrtrgen "+d.Rule, msg)); err != nil {
			return err
		}
	}
	return nil
}

// SARIF 2.1.0, the subset code-scanning tools read.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string      `json:"id"`
	ShortDescription     sarifText   `json:"shortDescription"`
	FullDescription      *sarifText  `json:"fullDescription,omitempty"`
	Help                 *sarifText  `json:"help,omitempty"`
	DefaultConfiguration sarifConfig `json:"defaultConfiguration"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
}

func sarifLevel(s spec.Severity) string {
	if s == spec.Warning {
		return "warning"
	}
	return "error"
}

func writeSARIF(w io.Writer, ds spec.Diagnostics, version string) error {
	driver := sarifDriver{Name: "mrtrgen", Version: version, InformationURI: "https://github.com/mrtrgen/mrtrgen"}
	for _, r := range registry {
		sr := sarifRule{ID: r.ID, ShortDescription: sarifText{r.Summary}, DefaultConfiguration: sarifConfig{sarifLevel(r.Severity)}}
		if r.Why != "" {
			sr.FullDescription = &sarifText{r.Why}
		}
		if r.Hint != "" {
			sr.Help = &sarifText{r.Hint}
		}
		driver.Rules = append(driver.Rules, sr)
	}
	results := make([]sarifResult, 0, len(ds))
	for _, d := range ds {
		msg := d.Message
		if d.Hint != "" {
			msg += " (" + d.Hint + ")"
		}
		results = append(results, sarifResult{
			RuleID: d.Rule, Level: sarifLevel(d.Severity), Message: sarifText{msg},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: slashPath(d.Pos.File)},
				Region:           sarifRegion{StartLine: max(d.Pos.Line, 1), StartColumn: max(d.Pos.Col, 1)},
			}}},
		})
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}
