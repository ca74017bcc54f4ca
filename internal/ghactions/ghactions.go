// Package ghactions writes GitHub Actions workflow commands: the
// "::error file=…,line=…::message" lines a workflow log turns into
// annotations on a pull request's diff. lint and breaking both report
// findings this way.
package ghactions

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Workflow commands escape their data and their properties differently.
var (
	data       = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	properties = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// Annotation is one workflow command: level is "error", "warning" or
// "notice"; line and col are clamped to 1 (GitHub rejects 0).
func Annotation(level, file string, line, col int, title, message string) string {
	return fmt.Sprintf("::%s file=%s,line=%d,col=%d,title=%s::%s\n", level,
		properties.Replace(filepath.ToSlash(file)), max(line, 1), max(col, 1), properties.Replace(title), data.Replace(message))
}
