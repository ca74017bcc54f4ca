package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mrtrgen/mrtrgen/breaking"
	"github.com/mrtrgen/mrtrgen/lint"
	"github.com/mrtrgen/mrtrgen/spec"
)

// explainFormats are the output formats of mrtrgen explain.
var explainFormats = []string{"text", "markdown"}

func newExplainCmd() *cobra.Command {
	var format string
	var onlyBreaking bool
	cmd := &cobra.Command{
		Use:   "explain [RULE]",
		Short: "Explain a lint or breaking-change rule, or list them all",
		Long: `Explain prints the long form of a rule: what it finds, why it matters,
a spec fragment that triggers it and the fix, its severity, and whether
and how a spec can silence (or accept) it. Without a rule it lists every
rule: the design and loader rules of mrtrgen lint, then the rules of
mrtrgen breaking, which compares two versions of a spec.

Every finding of mrtrgen lint and mrtrgen breaking ends with its rule id
in brackets, for example [irreversible-without-confirmation]: pass that
id here.

--format markdown prints the same as Markdown; docs/lint.md is
mrtrgen explain --format markdown, docs/breaking.md
mrtrgen explain --breaking --format markdown.`,
		Example: `  mrtrgen explain                                    # every rule, one line each
  mrtrgen explain irreversible-without-confirmation
  mrtrgen explain state-removed                      # a rule of mrtrgen breaking
  mrtrgen explain --format markdown > docs/lint.md
  mrtrgen explain --breaking --format markdown > docs/breaking.md`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(explainFormats, format) {
				return usageError(cmd, fmt.Errorf("unknown --format %q (want one of %s)", format, strings.Join(explainFormats, ", ")))
			}
			out := cmd.OutOrStdout()
			if len(args) == 0 {
				switch {
				case onlyBreaking && format == "markdown":
					return writeBreakingMarkdown(out)
				case onlyBreaking:
					return writeBreakingList(out)
				case format == "markdown":
					return writeRulesMarkdown(out)
				}
				return writeRuleList(out)
			}
			if br := breaking.Lookup(args[0]); br != nil && lint.Lookup(args[0]) == nil {
				if format == "markdown" {
					return writeBreakingRuleMarkdown(out, br, "##")
				}
				return writeBreakingRuleText(out, br)
			}
			r := lint.Lookup(args[0])
			if r == nil || onlyBreaking {
				var ids []string
				if !onlyBreaking {
					for _, r := range lint.Rules() {
						ids = append(ids, r.ID)
					}
				}
				for _, r := range breaking.Rules() {
					ids = append(ids, r.ID)
				}
				what := "rule"
				if onlyBreaking {
					what = "breaking rule"
				}
				msg := fmt.Sprintf("no %s %q", what, args[0])
				if s := suggest(args[0], ids); len(s) > 0 {
					msg += "; did you mean " + strings.Join(s, " or ") + "?"
				}
				return fmt.Errorf("%s (run mrtrgen explain to list the rules)", msg)
			}
			if format == "markdown" {
				return writeRuleMarkdown(out, r, "##")
			}
			return writeRuleText(out, r)
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "text", "output format: "+strings.Join(explainFormats, ", "))
	cmd.Flags().BoolVar(&onlyBreaking, "breaking", false, "only the rules of mrtrgen breaking")
	return cmd
}

// usageError marks err as a usage error of cmd, with a pointer to its help.
func usageError(cmd *cobra.Command, err error) error {
	return &exitError{code: ExitFailure, err: fmt.Errorf("%w; see %s --help", err, cmd.CommandPath())}
}

// suggest returns up to three of candidates close to s: within a small
// edit distance, or containing it, nearest first.
func suggest(s string, candidates []string) []string {
	type scored struct {
		name string
		d    int
	}
	var hits []scored
	ls := strings.ToLower(s)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := editDistance(ls, lc)
		switch {
		case d <= max(2, len(s)/4):
		case len(ls) >= 3 && strings.Contains(lc, ls):
			d = len(lc) - len(ls)
		default:
			continue
		}
		hits = append(hits, scored{c, d})
	}
	slices.SortStableFunc(hits, func(a, b scored) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for _, h := range hits {
		if !slices.Contains(out, h.name) {
			out = append(out, h.name)
		}
		if len(out) == 3 {
			break
		}
	}
	return out
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// ruleGroups splits the registry into design rules and loader rules.
func ruleGroups() (design, loader []*lint.Rule) {
	for _, r := range lint.Rules() {
		if r.Loader() {
			loader = append(loader, r)
		} else {
			design = append(design, r)
		}
	}
	byID := func(a, b *lint.Rule) int { return strings.Compare(a.ID, b.ID) }
	slices.SortFunc(design, byID)
	slices.SortFunc(loader, byID)
	return design, loader
}

func writeRuleList(w io.Writer) error {
	design, loader := ruleGroups()
	width := 0
	for _, r := range append(slices.Clone(design), loader...) {
		width = max(width, len(r.ID))
	}
	var b strings.Builder
	b.WriteString("Design rules (a spec may silence one with a reason, see mrtrgen explain RULE):\n\n")
	for _, r := range design {
		fmt.Fprintf(&b, "  %-*s  %-7s  %s\n", width, r.ID, r.Severity, r.Summary)
	}
	b.WriteString("\nLoader rules (the spec cannot be loaded; they cannot be silenced):\n\n")
	for _, r := range loader {
		fmt.Fprintf(&b, "  %-*s  %-7s  %s\n", width, r.ID, r.Severity, r.Summary)
	}
	b.WriteString("\n")
	writeBreakingRows(&b, width)
	b.WriteString("\nRun mrtrgen explain RULE for the long form of one.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// indent prefixes every non-empty line of s.
func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

// ignoreHow says whether and how a spec silences the rule.
func ignoreHow(r *lint.Rule) string {
	if r.Loader() {
		return "No. It reports a spec mrtrgen cannot load; fix the spec."
	}
	if r.Mandatory() {
		return "No. The generated code of such a spec would not compile; fix the spec."
	}
	return `Yes, where it does not apply, with a reason reviewers read. Put
the opt-out on the narrowest place the finding belongs to: a field, an
input request, a state, a tool or prompt, or the whole file:

  lint:
    ignore:
      ` + r.ID + `: <why this does not apply here>

An opt-out of an unknown rule is an error; one that silences nothing is
reported (unused-ignore), so stale exceptions do not pile up.`
}

func writeRuleText(w io.Writer, r *lint.Rule) error {
	return writeExplanation(w, fmt.Sprintf("%s (%s)", r.ID, r.Severity), r.Summary,
		ruleSection{"Why", r.Why},
		ruleSection{"Triggers it", r.Bad},
		ruleSection{"Fixed", r.Good},
		ruleSection{"What to do", sentence(r.Hint)},
		ruleSection{"Severity", severityText(r)},
		ruleSection{"Can it be ignored", ignoreHow(r)})
}

// A ruleSection is one titled part of the text explanation of a rule (a lint
// rule or a breaking rule).
type ruleSection struct{ title, body string }

// writeExplanation writes the text explanation of a rule: its head line,
// its summary, then each section whose body is not blank, indented under
// its title.
func writeExplanation(w io.Writer, head, summary string, sections ...ruleSection) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n%s\n", head, indent(sentence(summary), "  "))
	for _, s := range sections {
		if strings.TrimSpace(s.body) != "" {
			fmt.Fprintf(&b, "\n%s:\n%s\n", s.title, indent(s.body, "  "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func severityText(r *lint.Rule) string {
	if r.Severity == spec.Error {
		return "error: mrtrgen lint exits 1, and mrtrgen generate writes nothing."
	}
	return "warning: reported; mrtrgen lint exits 1 only with --strict, and generate goes on."
}

// sentence capitalises s and ends it with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, ")") && !strings.HasSuffix(s, "?") {
		s += "."
	}
	return s
}

// lintDocHeader opens docs/lint.md, which is the output of
// `mrtrgen explain --format markdown` (a test keeps them equal).
const lintDocHeader = `<!-- Generated by mrtrgen explain --format markdown. DO NOT EDIT: change the rules in lint/rules.go and regenerate. -->

# Lint rules

` + "`mrtrgen lint`" + ` reports every problem of a spec with its position and a rule id
in brackets; ` + "`mrtrgen explain RULE`" + ` prints what is here for one rule.

- **Design rules** check a loaded spec against the practices of reliable
  multi-round tools. A spec may silence one where it does not apply, with a
  reason (see [Opting out](#opting-out)).
- **Loader rules** report a spec that cannot be loaded at all (YAML, schema,
  names). They cannot be silenced.
- **Mandatory design rules** report a spec whose generated code would not
  compile (two names that are one Go identifier, one check with two sets of
  outcomes). They cannot be silenced either.

Errors fail ` + "`mrtrgen lint`" + ` (exit 1) and stop ` + "`mrtrgen generate`" + `; warnings fail
` + "`mrtrgen lint`" + ` only with ` + "`--strict`" + `.

The rules of ` + "`mrtrgen breaking`" + `, which compares a spec with an earlier version of
it, are in [breaking.md](breaking.md).
`

func writeRulesMarkdown(w io.Writer) error {
	design, loader := ruleGroups()
	var b strings.Builder
	b.WriteString(lintDocHeader)
	table := func(title string, rs []*lint.Rule) {
		fmt.Fprintf(&b, "\n## %s\n\n| Rule | Severity | Finds |\n| --- | --- | --- |\n", title)
		for _, r := range rs {
			fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s |\n", r.ID, r.ID, r.Severity, mdCell(r.Summary))
		}
	}
	table("Design rules", design)
	table("Loader rules", loader)
	b.WriteString(`
## Opting out

A design rule that does not apply somewhere is silenced there, with the
reason, under ` + "`lint: ignore:`" + ` of the narrowest place the finding belongs
to: a field, an input request, a state, a tool or prompt, or the whole
file.

` + "```yaml" + `
tools:
  close_support_ticket:
    lint:
      ignore:
        ask-before-discovery: The conformance suite asks in the first round.
` + "```" + `

An opt-out of an unknown or loader rule is an error (` + "`lint-ignore`" + `); one that
silences nothing, or of a mandatory rule, is a warning (` + "`unused-ignore`" + `).
`)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	for _, r := range append(design, loader...) {
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		if err := writeRuleMarkdown(w, r, "##"); err != nil {
			return err
		}
	}
	return nil
}

func writeRuleMarkdown(w io.Writer, r *lint.Rule, h string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s `%s`\n\n", h, r.ID)
	kind := "design rule"
	switch {
	case r.Loader():
		kind = "loader rule, cannot be silenced"
	case r.Mandatory():
		kind = "mandatory design rule, cannot be silenced"
	}
	fmt.Fprintf(&b, "**%s** (%s). %s\n", r.Severity, kind, mdText(sentence(r.Summary)))
	if why := strings.TrimSpace(r.Why); why != "" {
		fmt.Fprintf(&b, "\n%s\n", strings.Join(strings.Fields(why), " "))
	}
	writeYAMLBlock(&b, "Triggers it:", r.Bad)
	writeYAMLBlock(&b, "Fixed:", r.Good)
	writeHint(&b, r.Hint)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeYAMLBlock writes an example of a rule's Markdown page under its
// title, unless it is blank.
func writeYAMLBlock(b *strings.Builder, title, body string) {
	if strings.TrimSpace(body) != "" {
		fmt.Fprintf(b, "\n%s\n\n```yaml\n%s\n```\n", title, strings.TrimRight(body, "\n"))
	}
}

// writeHint writes what to do about a rule's finding on its Markdown page,
// unless the rule says nothing.
func writeHint(b *strings.Builder, hint string) {
	if hint != "" {
		fmt.Fprintf(b, "\nWhat to do: %s\n", mdText(sentence(hint)))
	}
}

// mdText escapes the Markdown that rule texts could start by accident;
// backquoted code is kept.
func mdText(s string) string {
	return strings.NewReplacer("<", `\<`, ">", `\>`, "*", `\*`, "|", `\|`).Replace(s)
}

func mdCell(s string) string { return mdText(s) }
