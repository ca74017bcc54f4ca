package spec

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Ext is the file name suffix of spec files.
const Ext = ".mrtr.yaml"

// Discover expands paths (files or directories) into the spec files they
// name, sorted and without duplicates. Directories are searched recursively
// for *.mrtr.yaml, skipping hidden directories, testdata, vendor and
// node_modules, as the go command does. A file named explicitly is taken
// whatever its name.
func Discover(paths []string) ([]string, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, filepath.Clean(p))
			continue
		}
		found := 0
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && SkipDir(d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(d.Name(), Ext) {
				out = append(out, path)
				found++
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if found == 0 {
			return nil, fmt.Errorf("no %s files under %s", Ext, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// SkipDir reports whether Discover skips a directory of this name below
// the paths it is given: hidden ones, testdata, vendor and node_modules,
// as the go command does.
func SkipDir(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" || name == "node_modules"
}
