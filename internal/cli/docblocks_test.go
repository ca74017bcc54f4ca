package cli

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A document is turned into a testscript, block by block. Shell blocks
// (```console, lines starting with "$ ") are run, in order; the output
// shown under a command of mrtrgen (mrtrgen, or go tool mrtrgen) is what
// it must print, and a command of mrtrgen shown without output must print
// nothing; other commands (go, git, mkdir, cd) only have to succeed: their
// output depends on the machine. A command with shell syntax (a pipe, a
// redirection, quotes, a comment) runs in bash. The markers, each on the
// line before a block:
//
//	<!-- file: PATH -->         the block is written to PATH
//	<!-- stdout -->             the block is exactly what the command before it printed
//	<!-- bash -->               the block is one bash script, run as a whole
//	<!-- contained in: PATH --> PATH (written by a command before) holds the block's text
//	<!-- run: KIND -->          a CI or hook configuration whose commands run as its runner
//	                            would run them (github-actions, gitlab-ci, pre-commit)
//	<!-- needs: TOOL -->        the block runs where TOOL is on PATH, and is skipped elsewhere
//	<!-- any output -->         mrtrgen's output in the block is not compared
//	<!-- skip: REASON -->       the block is not run, for the reason given
//	<!-- script: LINE -->       a testscript line the reader does not need to see: a step the
//	                            reader's machine has done (the clone), or a check of the result
//
// Any other fenced block (Go, YAML, JSON, Mermaid) is text, not a command.

var (
	fileMarker      = regexp.MustCompile(`^<!-- file: (\S+) -->$`)
	scriptMarker    = regexp.MustCompile(`^<!-- script: (.+) -->$`)
	skipMarker      = regexp.MustCompile(`^<!-- skip(?:: (.+))? -->$`)
	containedMarker = regexp.MustCompile(`^<!-- contained in: (\S+) -->$`)
	runMarker       = regexp.MustCompile(`^<!-- run: (\S+) -->$`)
	needsMarker     = regexp.MustCompile(`^<!-- needs: (\S+) -->$`)
	stdoutMarker    = "<!-- stdout -->"
	bashMarker      = "<!-- bash -->"
	anyOutputMarker = "<!-- any output -->"
	fence           = regexp.MustCompile("^( *)```([a-z]*)$")
	// An indented code block that starts with a command: the doc tests
	// cannot tell such a block's commands from its prose, so commands go
	// in fenced blocks.
	indentedCommand = regexp.MustCompile(`^ {4,}(\$ |go |git |bash |export |cd |mkdir |[A-Z_]+=\S* )`)
	// Shell syntax a testscript exec line does not have.
	shellSyntax = regexp.MustCompile("[|&;<>()$`\"'*?#~]")
)

// commandLangs are the fenced blocks that hold commands.
var commandLangs = []string{"console", "sh", "bash", "shell"}

// blockStats counts a document's command blocks: run, and skipped by
// reason.
type blockStats struct {
	run     int
	skipped map[string]int
	needs   map[string]int // blocks run only where the tool is installed
}

func (s *blockStats) skip(reason string) {
	if s.skipped == nil {
		s.skipped = map[string]int{}
	}
	s.skipped[reason]++
}

func (s *blockStats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d command blocks run", s.run)
	reasons := make([]string, 0, len(s.skipped))
	for r := range s.skipped {
		reasons = append(reasons, r)
	}
	slices.Sort(reasons)
	for _, r := range reasons {
		fmt.Fprintf(&b, "; %d skipped: %s", s.skipped[r], r)
	}
	for tool, n := range s.needs {
		fmt.Fprintf(&b, "; %d of those run only where %s is installed", n, tool)
	}
	return b.String()
}

// docScript accumulates the testscript of one or more documents.
type docScript struct {
	script, archive strings.Builder
	staged          int
}

// stage adds a file to the script's archive and returns its path.
func (d *docScript) stage(name, content string) string {
	d.staged++
	p := fmt.Sprintf(".doc/%d/%s", d.staged, name)
	fmt.Fprintf(&d.archive, "-- %s --\n%s\n", p, content)
	return "$WORK/" + p
}

func (d *docScript) String() string { return d.script.String() + d.archive.String() }

// add appends the commands of doc (named name in errors) to the script.
func (d *docScript) add(name, doc string) (*blockStats, error) {
	stats := &blockStats{}
	lines := strings.Split(doc, "\n")
	var file, contained, run, needs, skip string
	skipping, wantStdout, bash, anyOutput := false, false, false, false
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if m := fileMarker.FindStringSubmatch(l); m != nil {
			file = m[1]
			continue
		}
		if m := scriptMarker.FindStringSubmatch(l); m != nil {
			fmt.Fprintf(&d.script, "%s\n", m[1])
			continue
		}
		if m := skipMarker.FindStringSubmatch(l); m != nil {
			if m[1] == "" {
				return nil, fmt.Errorf("%s:%d: <!-- skip --> without a reason: write <!-- skip: WHY -->", name, i+1)
			}
			skipping, skip = true, m[1]
			continue
		}
		if m := containedMarker.FindStringSubmatch(l); m != nil {
			contained = m[1]
			continue
		}
		if m := runMarker.FindStringSubmatch(l); m != nil {
			run = m[1]
			continue
		}
		if m := needsMarker.FindStringSubmatch(l); m != nil {
			needs = m[1]
			continue
		}
		switch l {
		case stdoutMarker:
			wantStdout = true
			continue
		case bashMarker:
			bash = true
			continue
		case anyOutputMarker:
			anyOutput = true
			continue
		}
		if h, ok := strings.CutPrefix(lines[i], "## "); ok {
			// Sections become comments: testscript logs each one's time.
			fmt.Fprintf(&d.script, "\n# %s: %s\n", name, h)
			continue
		}
		if indentedCommand.MatchString(lines[i]) && (i == 0 || strings.TrimSpace(lines[i-1]) == "") {
			return nil, fmt.Errorf("%s:%d: an indented code block of commands; put them in a ```console block (\"$ \" before each) so the doc test runs them", name, i+1)
		}
		m := fence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, lang, start := m[1], m[2], i+1
		var body []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			body = append(body, strings.TrimPrefix(lines[i], indent))
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s:%d: unterminated code block", name, start)
		}
		cond := ""
		if needs != "" {
			cond = "[exec:" + needs + "] "
		}
		text := strings.Join(body, "\n")
		isCommand := slices.Contains(commandLangs, lang) || run != ""
		var err error
		switch {
		case skipping:
			if isCommand {
				stats.skip(skip)
			}
		case wantStdout:
			fmt.Fprintf(&d.script, "cmp stdout %s\n", d.stage("stdout", text))
		case bash:
			// A script the reader pastes into bash: it runs as one, and
			// only has to succeed, unless a <!-- stdout --> block follows.
			p := d.stage("script.bash", "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n"+text)
			fmt.Fprintf(&d.script, "%sexec bash %s\n", cond, p)
		case file != "":
			fmt.Fprintf(&d.script, "cp %s %s\n", d.stage("file", text), file)
		case contained != "":
			fmt.Fprintf(&d.script, "contains %s %s\n", contained, d.stage("contained", text))
		case run != "":
			err = d.runConfig(run, text, cond)
		case lang == "console":
			err = d.consoleBlock(body, stdoutFollows(lines[i+1:]), anyOutput, cond)
		case lang == "" && len(body) > 0 && indentedCommand.MatchString("    "+body[0]):
			err = fmt.Errorf("an untagged block of commands; make it a ```console block (\"$ \" before each) so the doc test runs it")
		case isCommand:
			err = fmt.Errorf("a %s block, which the doc test has no way to run: mark it (<!-- file: PATH -->, <!-- bash -->, <!-- skip: WHY -->)", lang)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, start, err)
		}
		if isCommand && !skipping {
			stats.run++
			if needs != "" {
				if stats.needs == nil {
					stats.needs = map[string]int{}
				}
				stats.needs[needs]++
			}
		}
		file, contained, run, needs, skip = "", "", "", "", ""
		skipping, wantStdout, bash, anyOutput = false, false, false, false
	}
	return stats, nil
}

// stdoutFollows reports whether the next marker or block after a console
// block is <!-- stdout -->.
func stdoutFollows(rest []string) bool {
	for _, l := range rest {
		l = strings.TrimSpace(l)
		switch {
		case l == stdoutMarker:
			return true
		case strings.HasPrefix(l, "<!--") || fence.MatchString(l):
			return false
		}
	}
	return false
}

// isMrtrgen reports whether a command runs mrtrgen, whose output the
// document shows.
func isMrtrgen(cmd []string) bool {
	return len(cmd) > 0 && cmd[0] == "mrtrgen" || len(cmd) > 2 && cmd[0] == "go" && cmd[1] == "tool" && cmd[2] == "mrtrgen"
}

// consoleBlock translates "$ command" lines and the output shown under
// them. When a <!-- stdout --> block follows, it holds the last command's
// output instead.
func (d *docScript) consoleBlock(body []string, stdoutBlock, anyOutput bool, cond string) error {
	var cmd string
	var out []string
	last := -1
	for i, l := range body {
		if strings.HasPrefix(l, "$ ") {
			last = i
		}
	}
	lastCmd := false
	flush := func() error {
		if cmd == "" {
			return nil
		}
		fields := strings.Fields(cmd)
		switch {
		case shellSyntax.MatchString(cmd) || strings.Contains(fields[0], "="):
			if slices.Contains([]string{"cd", "export"}, fields[0]) || strings.Contains(cmd, "&& cd ") {
				return fmt.Errorf("%q: a cd or export inside a shell line does not carry over to the next command", cmd)
			}
			fmt.Fprintf(&d.script, "%sexec bash -eo pipefail %s\n", cond, d.stage("command.bash", cmd))
		case fields[0] == "cd":
			fmt.Fprintf(&d.script, "%scd %s\n", cond, strings.Join(fields[1:], " "))
		case fields[0] == "mkdir":
			args := fields[1:]
			if len(args) > 0 && args[0] == "-p" {
				args = args[1:]
			}
			fmt.Fprintf(&d.script, "%smkdir %s\n", cond, strings.Join(args, " "))
		default:
			fmt.Fprintf(&d.script, "%sexec %s\n", cond, cmd)
		}
		if isMrtrgen(fields) && !anyOutput {
			if len(out) == 0 && !(lastCmd && stdoutBlock) {
				fmt.Fprintf(&d.script, "%s! stdout .\n", cond)
			}
			for _, o := range out {
				fmt.Fprintf(&d.script, "%sstdout '^%s$'\n", cond, strings.ReplaceAll(regexp.QuoteMeta(o), "'", "''"))
			}
		}
		cmd, out = "", nil
		return nil
	}
	for i, l := range body {
		if rest, ok := strings.CutPrefix(l, "$ "); ok {
			if err := flush(); err != nil {
				return err
			}
			cmd = rest
			lastCmd = i == last
			continue
		}
		if cmd == "" {
			return fmt.Errorf("output before any command: %q", l)
		}
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return flush()
}

// runConfig runs the commands of a CI or hook configuration the way its
// runner does, in the current directory (the repository's root, where
// runners start). What only the hosted runner provides (actions/checkout,
// setup-go, the image) is what this machine already has.
func (d *docScript) runConfig(kind, text, cond string) error {
	var steps []struct{ cmd, note string }
	switch kind {
	case "github-actions":
		type step struct {
			Uses, Run       string
			ContinueOnError bool `yaml:"continue-on-error"`
		}
		var wf struct {
			Jobs map[string]struct{ Steps []step }
		}
		if strings.HasPrefix(strings.TrimSpace(text), "- ") {
			// A fragment: steps to add to a job.
			var frag []step
			if err := yaml.Unmarshal([]byte(text), &frag); err != nil {
				return err
			}
			wf.Jobs = map[string]struct{ Steps []step }{"fragment": {Steps: frag}}
		} else if err := yaml.Unmarshal([]byte(text), &wf); err != nil {
			return err
		}
		for _, job := range wf.Jobs {
			for _, s := range job.Steps {
				if s.Run == "" {
					continue // uses: an action
				}
				// The job runs on a pull request into main.
				cmd := strings.ReplaceAll(s.Run, "${{ github.base_ref }}", "main")
				if strings.Contains(cmd, "${{") {
					return fmt.Errorf("a run step with an expression the test cannot stand in for: %q", s.Run)
				}
				note := ""
				if s.ContinueOnError {
					note = "continue-on-error"
				}
				steps = append(steps, struct{ cmd, note string }{cmd, note})
			}
		}
	case "gitlab-ci":
		var jobs map[string]struct{ Script []string }
		if err := yaml.Unmarshal([]byte(text), &jobs); err != nil {
			return err
		}
		for _, job := range jobs {
			for _, s := range job.Script {
				steps = append(steps, struct{ cmd, note string }{s, ""})
			}
		}
	case "pre-commit":
		// pre-commit run --all-files: each hook's entry, its args, and
		// (pass_filenames, the default) every tracked file its files
		// pattern matches.
		var cfg struct {
			Repos []struct {
				Repo  string
				Hooks []struct {
					ID, Entry, Files string
					Args             []string
					PassFilenames    *bool `yaml:"pass_filenames"`
				}
			}
		}
		if err := yaml.Unmarshal([]byte(text), &cfg); err != nil {
			return err
		}
		for _, r := range cfg.Repos {
			if r.Repo != "local" {
				return fmt.Errorf("repo %q: only local hooks run offline", r.Repo)
			}
			for _, h := range r.Hooks {
				cmd := strings.Join(append([]string{h.Entry}, h.Args...), " ")
				if h.PassFilenames == nil || *h.PassFilenames {
					cmd += fmt.Sprintf(` $(git ls-files | grep -E '%s')`, h.Files)
				}
				steps = append(steps, struct{ cmd, note string }{cmd, ""})
			}
		}
	default:
		return fmt.Errorf("<!-- run: %s -->: no such runner (github-actions, gitlab-ci, pre-commit)", kind)
	}
	if len(steps) == 0 {
		return fmt.Errorf("<!-- run: %s -->: no commands found", kind)
	}
	for _, s := range steps {
		body := "set -eo pipefail\n" + s.cmd
		if s.note == "continue-on-error" {
			// The step's failure does not fail the job.
			body = "(\n" + body + "\n) || echo continue-on-error: exit status $? >&2"
		}
		fmt.Fprintf(&d.script, "%sexec bash %s\n", cond, d.stage("step.bash", body))
	}
	return nil
}
