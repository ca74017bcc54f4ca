// Package testfiles is what the tests of the generator and of the mrtrgen
// command share: walking the files a generation wrote, and a spec to
// generate from.
package testfiles

import (
	"io/fs"
	"path/filepath"
)

// Walk calls f for every file under dir (not for directories) with its
// slash path relative to dir and its path; it stops at the first error,
// its own or f's.
func Walk(dir string, f func(rel, path string) error) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		return f(filepath.ToSlash(rel), p)
	})
}

// TwoTools is a spec of two tools (package pair, first_tool and
// second_tool) that generates next to itself.
const TwoTools = `version: 1
package: pair
tools:
  first_tool:
    description: One.
    initial: done
    states:
      done: {terminal: success, message: one}
  second_tool:
    description: Two.
    initial: done
    states:
      done: {terminal: success, message: two}
`
