package binenc

// Fail makes err the reader's error (when it has none yet), as a read that
// finds a malformed value does: generated code fails a continuation whose
// value does not convert to the Go type the spec binds it to (goType).
func (r *Fields) Fail(err error) { r.fail(err) }

// Fail makes the positional reader's data corrupt, as a read that finds a
// malformed value does (a value that does not convert to its goType).
func (r *Reader) Fail() { r.fail() }
