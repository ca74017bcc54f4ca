package lint

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/report")

// reportFixture is the findings of testdata/report/several.mrtr.yaml plus
// a whole-file problem of another file (no line or column).
func reportFixture(t *testing.T) spec.Diagnostics {
	t.Helper()
	const p = "testdata/report/several.mrtr.yaml"
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f, ds := loadAndLint(p, data)
	if f == nil {
		t.Fatalf("fixture does not load:\n%s", ds.Error())
	}
	ds = append(ds, spec.Diagnostic{
		Pos: spec.Pos{File: "testdata/report/big.mrtr.yaml"}, Severity: spec.Error, Rule: "input",
		Message: "file is larger than 8388608 bytes, the limit for a spec", Hint: "split the spec into several files",
	})
	ds.Sort()
	var errs, warns int
	for _, d := range ds {
		if d.Severity == spec.Error {
			errs++
		} else {
			warns++
		}
	}
	if errs < 2 || warns < 2 {
		t.Fatalf("fixture should have several errors and warnings, has %d and %d:\n%s", errs, warns, ds.Error())
	}
	return ds
}

func TestWriteGolden(t *testing.T) {
	ds := reportFixture(t)
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, format, ds, "1.2.3"); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "report", "several."+format+".golden")
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./lint -run TestWriteGolden -update)", err)
			}
			if b.String() != string(want) {
				t.Errorf("output changed\n--- got\n%s--- want\n%s", b.String(), want)
			}
		})
	}
}

func TestWriteUnknownFormat(t *testing.T) {
	if err := Write(&bytes.Buffer{}, "xml", nil, ""); err == nil || !strings.Contains(err.Error(), "xml") {
		t.Errorf("got %v", err)
	}
}

func TestWriteEmpty(t *testing.T) {
	for format, want := range map[string]string{"text": "", "github": "", "json": "[]\n"} {
		var b bytes.Buffer
		if err := Write(&b, format, nil, ""); err != nil || b.String() != want {
			t.Errorf("%s: %q, %v", format, b.String(), err)
		}
	}
	var b bytes.Buffer
	if err := Write(&b, "sarif", nil, ""); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []any `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil || len(log.Runs) != 1 || log.Runs[0].Results == nil {
		t.Errorf("empty sarif must have one run with an empty results array: %s", b.String())
	}
}

func TestJSONFormat(t *testing.T) {
	ds := reportFixture(t)
	var b bytes.Buffer
	if err := Write(&b, "json", ds, ""); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ds) {
		t.Fatalf("%d findings, want %d", len(got), len(ds))
	}
	for i, g := range got {
		d := ds[i]
		if g["path"] != d.Pos.File || g["line"] != float64(d.Pos.Line) || g["column"] != float64(d.Pos.Col) ||
			g["severity"] != d.Severity.String() || g["rule"] != d.Rule || g["message"] != d.Message {
			t.Errorf("finding %d: %v, want %v", i, g, d)
		}
	}
}

// SARIF 2.1.0 as code-scanning services read it: the version, one run whose
// driver lists every rule, and results that name a listed rule, a level
// and a physical location with a 1-based region.
// Its length is the SARIF shape it decodes, declared inline so that the
// fields checked stay in view.
func TestSARIFShape(t *testing.T) {
	ds := reportFixture(t)
	var b bytes.Buffer
	if err := Write(&b, "sarif", ds, "1.2.3"); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name           string `json:"name"`
					Version        string `json:"version"`
					InformationURI string `json:"informationUri"`
					Rules          []struct {
						ID               string `json:"id"`
						ShortDescription struct {
							Text string `json:"text"`
						} `json:"shortDescription"`
						FullDescription *struct {
							Text string `json:"text"`
						} `json:"fullDescription"`
						Help *struct {
							Text string `json:"text"`
						} `json:"help"`
						DefaultConfiguration struct {
							Level string `json:"level"`
						} `json:"defaultConfiguration"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID  string `json:"ruleId"`
				Level   string `json:"level"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine   int `json:"startLine"`
							StartColumn int `json:"startColumn"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	dec := json.NewDecoder(&b)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&log); err != nil {
		t.Fatalf("not the expected SARIF shape: %v", err)
	}
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-2.1.0") {
		t.Errorf("version %q, $schema %q", log.Version, log.Schema)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs", len(log.Runs))
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "mrtrgen" || run.Tool.Driver.Version != "1.2.3" {
		t.Errorf("driver %+v", run.Tool.Driver.Name)
	}
	var ids []string
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, r.ID)
		if r.ShortDescription.Text == "" || (r.DefaultConfiguration.Level != "error" && r.DefaultConfiguration.Level != "warning") {
			t.Errorf("rule %s: %+v", r.ID, r)
		}
	}
	for _, r := range Rules() {
		if !slices.Contains(ids, r.ID) {
			t.Errorf("rule %s is not in the driver's rules", r.ID)
		}
	}
	if len(run.Results) != len(ds) {
		t.Fatalf("%d results, want %d", len(run.Results), len(ds))
	}
	for i, res := range run.Results {
		d := ds[i]
		if !slices.Contains(ids, res.RuleID) || res.RuleID != d.Rule {
			t.Errorf("result %d names rule %q", i, res.RuleID)
		}
		if res.Level != d.Severity.String() {
			t.Errorf("result %d: level %q", i, res.Level)
		}
		if len(res.Locations) != 1 {
			t.Fatalf("result %d: %d locations", i, len(res.Locations))
		}
		loc := res.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URI != d.Pos.File || loc.Region.StartLine < 1 || loc.Region.StartColumn < 1 ||
			(d.Pos.Line > 0 && (loc.Region.StartLine != d.Pos.Line || loc.Region.StartColumn != d.Pos.Col)) {
			t.Errorf("result %d: location %+v for %s", i, loc, d.Pos)
		}
		if !strings.HasPrefix(res.Message.Text, d.Message) {
			t.Errorf("result %d: message %q", i, res.Message.Text)
		}
	}
}

// GitHub workflow commands: data and properties are escaped so that a
// message cannot end the command or inject another.
func TestGitHubEscaping(t *testing.T) {
	ds := spec.Diagnostics{{
		Pos:      spec.Pos{File: `dir\with,comma:colon.mrtr.yaml`, Line: 3, Col: 4},
		Severity: spec.Warning, Rule: "vague-ask-message",
		Message: "100% vague\r\n::error::injected", Hint: "be specific",
	}}
	var b bytes.Buffer
	if err := Write(&b, "github", ds, ""); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	want := "::warning file=dir\\with%2Ccomma%3Acolon.mrtr.yaml,line=3,col=4,title=mrtrgen vague-ask-message::100%25 vague%0D%0A::error::injected%0Abe specific\n"
	if filepath.Separator == '\\' {
		t.Skip("paths are rewritten with forward slashes on Windows")
	}
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if strings.Count(got, "\n") != 1 {
		t.Errorf("a finding spans several lines: %q", got)
	}
}
