package mrtrimpl

import (
	"net/url"
	"testing"
)

// A value rendered into a URL stays one segment or one query value: it can
// add no path segment, parameter or fragment, and reads back unchanged.
func TestURLValue(t *testing.T) {
	for _, v := range []string{
		"../../admin", "a/b", "x?token=1", "a&b=c", "#frag", "100%", "%2F", "a b+c", "é☃", "\\evil", "javascript:alert(1)", "",
	} {
		got := X.URLValue(v)
		for _, c := range []string{"/", "?", "&", "=", "#", "+", " ", "\\", ":"} {
			if containsAny(got, c) {
				t.Errorf("X.URLValue(%q) = %q keeps %q", v, got, c)
			}
		}
		u, err := url.Parse("https://pay.example.com/confirm/" + got + "?v=" + got)
		if err != nil {
			t.Fatalf("X.URLValue(%q) = %q: %v", v, got, err)
		}
		if back, _ := url.PathUnescape(u.EscapedPath()[len("/confirm/"):]); back != v {
			t.Errorf("path of %q reads back as %q", v, back)
		}
		if q := u.Query(); len(q) != 1 || q.Get("v") != v || u.Fragment != "" || u.Host != "pay.example.com" {
			t.Errorf("X.URLValue(%q): query %v, fragment %q, host %q", v, q, u.Fragment, u.Host)
		}
	}
}

func containsAny(s, chars string) bool {
	for _, c := range chars {
		for _, r := range s {
			if r == c {
				return true
			}
		}
	}
	return false
}
