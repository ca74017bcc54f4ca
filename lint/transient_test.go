package lint

import (
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

// What a transient value's method reads (reads:) is read wherever a
// template names the value, section or not: a continuation field it reads
// must be set on every path there, like one a placeholder names.
func TestTransientReadsMustBeSet(t *testing.T) {
	const src = `version: 1
package: p
tools:
  retry:
    description: Shows a run's log and retries it.
    arguments:
      pipeline: {type: string, required: true, maxLength: 40}
    continuation:
      fields:
        runId: {type: string, maxLength: 24}
      transient:
        ciLog: {type: string, maxLength: 1500, from: renderCiLog, reads: [pipeline, runId]}
    initial: lookup
    states:
      lookup:
        check: findRun
        outcomes: {found: confirmRetry, gone: done}
        sets: {runId: [found]}
      confirmRetry:
        confirm: {message: "Retry {pipeline}?{?pipeline} {ciLog}{/pipeline}"}
        next: done
      done: {terminal: success, message: "Done: {ciLog}"}
`
	for _, c := range []struct {
		name, from, to string
		want           []string // positions of value-not-set findings
	}{
		{"set on one outcome only: the end reached by the other renders it", "", "", []string{"p.mrtr.yaml:22:49"}},
		{"set on every outcome", "sets: {runId: [found]}", "sets: [runId]", nil},
		{"the end does not name it", `message: "Done: {ciLog}"`, `message: "Done."`, nil},
	} {
		f, ds := spec.Parse("p.mrtr.yaml", []byte(strings.Replace(src, c.from, c.to, 1)), spec.Options{})
		if ds.HasErrors() {
			t.Fatal(ds.Error())
		}
		var got []string
		for _, d := range Run(f) {
			if d.Rule == "value-not-set" {
				got = append(got, d.Pos.String())
				if !strings.Contains(d.Message, `computes transient value "ciLog" by renderCiLog, which reads continuation field "runId"`) {
					t.Errorf("%s: message does not say the method reads the field: %s", c.name, d.Message)
				}
			}
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: value-not-set at %v, want %v", c.name, got, c.want)
		}
	}
}
