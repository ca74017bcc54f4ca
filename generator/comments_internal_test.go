package generator

import (
	"strings"
	"testing"
)

// wrapComments refills only the comment blocks with a line over
// commentWidth and no directive, code or list line, keeps paragraph
// breaks and each block's indentation, and leaves every other byte as is.
func TestWrapComments(t *testing.T) {
	long := strings.Repeat("word ", 24) + "end." // 124 columns after "// "
	cases := []struct{ name, src, want string }{
		{"fits", "// short\nfunc f() {}\n", "// short\nfunc f() {}\n"},
		{"long", "// " + long + "\nvar x int\n",
			"// " + strings.Repeat("word ", 18) + "word\n// word word word word word end.\nvar x int\n"},
		{"indented, two paragraphs", "func f() {\n\t// " + long + "\n\t//\n\t// b\n\tx()\n}\n",
			"func f() {\n\t// " + strings.Repeat("word ", 17) + "word\n\t// word word word word word word end.\n\t//\n\t// b\n\tx()\n}\n"},
		{"directive kept", "//go:generate x\n// " + long + "\n", "//go:generate x\n// " + long + "\n"},
		{"list kept", "// " + long + "\n//  - item\n", "// " + long + "\n//  - item\n"},
		{"no final newline", "x\n// " + long, "x\n// " + strings.Repeat("word ", 18) + "word\n// word word word word word end."},
		{"indent ends a block", "// a\n\t// " + long + "\n// b\n",
			"// a\n\t// " + strings.Repeat("word ", 17) + "word\n\t// word word word word word word end.\n// b\n"},
	}
	for _, c := range cases {
		if got := string(wrapComments([]byte(c.src))); got != c.want {
			t.Errorf("%s:\ngot  %q\nwant %q", c.name, got, c.want)
		}
	}
}
