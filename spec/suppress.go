package spec

// Suppressing returns the first entry of the ignore lists of configs
// (innermost first; nil ones are skipped) that opts out of rule, or nil.
// lint and breaking ask it before they report a finding.
func Suppressing(rule string, configs []*LintConfig) *Suppression {
	for _, lc := range configs {
		if lc == nil {
			continue
		}
		for i := range lc.Ignore {
			if lc.Ignore[i].Rule == rule {
				return &lc.Ignore[i]
			}
		}
	}
	return nil
}
