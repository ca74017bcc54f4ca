package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mrtrgen/mrtrgen/breaking"
	"github.com/mrtrgen/mrtrgen/spec"
)

func newBreakingCmd() *cobra.Command {
	var against, format, failOn string
	var accept []string
	cmd := &cobra.Command{
		Use:   "breaking --against REV [PATH...]",
		Short: "Report spec changes that strand waiting workflows, break clients or change approved behaviour",
		Long: `Breaking compares each spec (files, or directories searched recursively
for *.mrtr.yaml) with the same file at a git revision, and reports the
changes that break what the deployed build set in motion, each with its
rule id and category:

  continuation  a workflow waiting for its next round is refused
                after the deploy (docs/evolution.md has the rules)
  client        an MCP client written against the old tools fails
  behaviour     the spec no longer does what a reviewer approved

A spec that is new has nothing to break; a spec deleted since REV
removes its tools. mrtrgen explain RULE says more about a rule.

An intentional break is accepted with a reason in the spec, where the
finding is (the argument, state, tool or file), as lint opt-outs are:

  lint:
    ignore:
      state-removed: Drained for one TTL before the deploy (OPS-12).

or for one run with --accept RULE.

Exit status: 0 when nothing breaks (warnings and info allowed unless
--fail-on says otherwise), 1 when something does, 2 when mrtrgen could
not run (unknown revision, a spec that does not load).`,
		Example: `  git fetch origin main
  mrtrgen breaking --against origin/main             # every spec under the current directory
  mrtrgen breaking --against HEAD~1 specs/payments.mrtr.yaml
  mrtrgen breaking --against origin/main --format github specs/
  mrtrgen breaking --against v1.4.0 --fail-on warning --accept tool-removed specs/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			minSev, err := checkBreakingFlags(cmd, against, format, failOn, accept)
			if err != nil {
				return err
			}
			fs, errs := compareAgainst(against, args)
			fs = slices.DeleteFunc(fs, func(f breaking.Finding) bool { return slices.Contains(accept, f.Rule) })
			if err := breaking.Write(cmd.OutOrStdout(), format, fs); err != nil {
				return err
			}
			if len(errs) > 0 {
				return &exitError{code: ExitFailure, err: errors.Join(errs...)}
			}
			if slices.ContainsFunc(fs, func(f breaking.Finding) bool { return f.Severity >= minSev }) {
				return findings()
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&against, "against", "", "the git revision to compare with: a branch, tag or commit (required)")
	cmd.Flags().StringVarP(&format, "format", "f", "text", "output format: "+strings.Join(breaking.Formats, ", "))
	cmd.Flags().StringVar(&failOn, "fail-on", "error", "the least severity that fails (exit 1): error, warning or info")
	cmd.Flags().StringArrayVar(&accept, "accept", nil, "accept every finding of this rule in this run (repeatable)")
	return cmd
}

// checkBreakingFlags validates the flags and returns the least severity
// that fails the run.
func checkBreakingFlags(cmd *cobra.Command, against, format, failOn string, accept []string) (breaking.Severity, error) {
	if against == "" {
		return 0, usageError(cmd, errors.New("--against REV is required (the revision to compare with, e.g. origin/main)"))
	}
	if !slices.Contains(breaking.Formats, format) {
		return 0, usageError(cmd, fmt.Errorf("unknown --format %q (want one of %s)", format, strings.Join(breaking.Formats, ", ")))
	}
	minSev, err := breaking.ParseSeverity(failOn)
	if err != nil {
		return 0, usageError(cmd, fmt.Errorf("--fail-on: %w", err))
	}
	var ids []string
	for _, r := range breaking.Rules() {
		ids = append(ids, r.ID)
	}
	for _, a := range accept {
		if breaking.Lookup(a) == nil {
			msg := fmt.Sprintf("--accept: no breaking rule %q", a)
			if s := suggest(a, ids); len(s) > 0 {
				msg += "; did you mean " + strings.Join(s, " or ") + "?"
			}
			return 0, usageError(cmd, errors.New(msg))
		}
	}
	return minSev, nil
}

// specAtRev is one spec path and where its old version is.
type specAtRev struct {
	path    string // as shown, relative to the current directory as given
	repo    *gitRev
	rel     string // in the repository
	deleted bool   // not in the work tree
}

// compareAgainst compares every spec under paths with its version at rev.
// Specs that cannot be compared are errors; the others' findings are
// returned anyway.
func compareAgainst(rev string, paths []string) ([]breaking.Finding, []error) {
	specs, err := collectSpecs(newGitRevs(rev), paths)
	if err != nil {
		return nil, []error{err}
	}
	byRepo := map[*gitRev][]string{}
	for _, s := range specs {
		byRepo[s.repo] = append(byRepo[s.repo], s.rel)
	}
	old := map[*gitRev]map[string][]byte{}
	for repo, rels := range byRepo {
		if old[repo], err = repo.read(rels); err != nil {
			return nil, []error{err}
		}
	}
	var all []breaking.Finding
	var errs []error
	for _, s := range specs {
		fs, err := compareOne(s, old[s.repo][s.rel])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		all = append(all, fs...)
	}
	return all, errs
}

func compareOne(s specAtRev, oldData []byte) ([]breaking.Finding, error) {
	if oldData == nil {
		if s.deleted {
			return nil, fmt.Errorf("%s: no such file in the work tree or at %s", s.path, s.repo.rev)
		}
		return nil, nil // new since rev: nothing to break
	}
	oldPath := s.path + "@" + s.repo.rev
	old, ds := spec.Parse(oldPath, oldData, spec.Options{})
	if old == nil {
		return nil, fmt.Errorf("%s does not load with this mrtrgen, so it cannot be compared:\n%s", oldPath, ds.Error())
	}
	if s.deleted {
		return breaking.Compare(old, nil), nil
	}
	cur, ds, err := spec.LoadFile(s.path, spec.Options{})
	if err != nil {
		return nil, err
	}
	if cur == nil {
		return nil, fmt.Errorf("%s does not load (mrtrgen lint %s says more):\n%s", s.path, s.path, ds.Error())
	}
	return breaking.Compare(old, cur), nil
}

// collectSpecs expands paths into the specs of the work tree and those
// deleted since the revision, in path order, without duplicates.
func collectSpecs(revs *gitRevs, paths []string) ([]specAtRev, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var out []specAtRev
	seen := map[string]bool{}
	add := func(path string, repo *gitRev, rel string, deleted bool) {
		if key := repo.top + "\x00" + rel; !seen[key] {
			seen[key] = true
			out = append(out, specAtRev{path: filepath.Clean(path), repo: repo, rel: rel, deleted: deleted})
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		switch {
		case err == nil && st.IsDir():
			if err := collectDir(revs, p, add); err != nil {
				return nil, err
			}
		case err == nil:
			repo, rel, err := locate(revs, p)
			if err != nil {
				return nil, err
			}
			add(p, repo, rel, false)
		case errors.Is(err, os.ErrNotExist):
			// Gone from the work tree: compareOne finds it at the
			// revision, or says it is nowhere.
			repo, rel, err := locate(revs, p)
			if err != nil {
				return nil, err
			}
			add(p, repo, rel, true)
		default:
			return nil, err
		}
	}
	slices.SortStableFunc(out, func(a, b specAtRev) int { return strings.Compare(a.path, b.path) })
	return out, nil
}

// collectDir adds the specs under dir in the work tree and those under it
// at the revision that the work tree no longer has.
func collectDir(revs *gitRevs, dir string, add func(string, *gitRev, string, bool)) error {
	repo, err := revs.forDir(dir)
	if err != nil {
		return err
	}
	relDir, err := repo.rel(dir)
	if err != nil {
		return err
	}
	here, discoverErr := spec.Discover([]string{dir})
	for _, p := range here {
		rel, err := repo.rel(p)
		if err != nil {
			return err
		}
		add(p, repo, rel, false)
	}
	before, err := repo.specsUnder(relDir)
	if err != nil {
		return err
	}
	if discoverErr != nil && len(before) == 0 {
		return discoverErr // no specs now or then
	}
	for _, rel := range before {
		below := rel
		if relDir != "." {
			below = strings.TrimPrefix(rel, relDir+"/")
		}
		if local := filepath.Join(dir, filepath.FromSlash(below)); !exists(local) {
			add(local, repo, rel, true)
		}
	}
	return nil
}

// locate finds the work tree of a file path (which may be gone: its
// nearest existing directory decides).
func locate(revs *gitRevs, path string) (*gitRev, string, error) {
	dir := filepath.Dir(path)
	for !exists(dir) {
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	repo, err := revs.forDir(dir)
	if err != nil {
		return nil, "", err
	}
	rel, err := repo.rel(path)
	return repo, rel, err
}
