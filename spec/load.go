package spec

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// Options tune the loader. The zero value is what mrtrgen uses.
type Options struct {
	Limits Limits
}

// LoadFile reads and loads the spec at path. A file that cannot be read is
// reported as an error; problems in its content as Diagnostics.
func LoadFile(path string, opts Options) (*File, Diagnostics, error) {
	lim := opts.Limits.withDefaults()
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	if st, err := fh.Stat(); err == nil && st.IsDir() {
		return nil, nil, fmt.Errorf("%s is a directory", path)
	}
	// Read one byte past the limit so oversized files are caught without
	// reading them whole.
	data, err := io.ReadAll(io.LimitReader(fh, int64(lim.MaxFileBytes)+1))
	if err != nil {
		return nil, nil, err
	}
	f, ds := Parse(path, data, opts)
	return f, ds, nil
}

// Parse loads a spec from bytes; path names it in diagnostics. It reports
// every problem it finds in the file, each at its line and column, in
// phases: YAML syntax and input limits, then the JSON Schema, then the
// model's own rules and names. A later phase runs only when the earlier ones
// found no errors, so one mistake is not reported three times. The File is
// nil when there are errors.
func Parse(path string, data []byte, opts Options) (*File, Diagnostics) {
	lim := opts.Limits.withDefaults()
	root, ds := parseYAML(path, data, lim)
	if ds != nil {
		return nil, ds
	}
	// The JSON Schema check and the decoder only read the tree: run them
	// at once. What the decoder finds counts only when the schema passes
	// (it may stumble over what the schema refuses, its panics included).
	type decoded struct {
		f        *File
		diags    Diagnostics
		panicked any
	}
	done := make(chan decoded, 1)
	go func() {
		var out decoded
		defer func() {
			if r := recover(); r != nil {
				// Keep where it happened: it is re-raised on another goroutine.
				out.panicked = fmt.Sprintf("%v\n\ndecoder goroutine:\n%s", r, debug.Stack())
			}
			done <- out
		}()
		d := &decoder{file: path}
		out.f = d.decodeFile(root)
		if d.diags.HasErrors() {
			out.diags = d.diags
			return
		}
		r := &resolver{f: out.f}
		r.resolveFile()
		if r.diags.HasErrors() {
			out.diags = r.diags
		}
	}()
	schema := validateSchema(path, toJSON(root), newLocator(path, root))
	dec := <-done
	switch {
	case schema != nil:
		schema.Sort()
		return nil, schema
	case dec.panicked != nil:
		panic(dec.panicked)
	case dec.diags != nil:
		dec.diags.Sort()
		return nil, dec.diags
	}
	return dec.f, nil
}
