package mrtr

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
)

func TestCheckURI(t *testing.T) {
	for _, tc := range []struct {
		uri  string
		use  uriUse
		fine bool
	}{
		{"charts://emea/notes", contentItemURI, true},
		{"test://template/123/data", contentItemURI, true},
		{"file:///srv/reports/q3.csv", contentItemURI, true},
		{"https://example.com/a%2Fb/c", contentItemURI, true},
		{"charts://emea/..", contentItemURI, false},
		{"charts://emea/../admin", contentItemURI, false},
		{"charts://emea/./x", contentItemURI, false},
		{"charts://emea/%2e%2E/x", contentItemURI, false},
		{"charts://emea/.%2e", contentItemURI, false},
		{"charts://emea/...", contentItemURI, true}, // three dots are a name
		{"charts://emea/a b", contentItemURI, false},
		{"charts://emea/a\nb", contentItemURI, false},
		{"charts://emea\\x", contentItemURI, false},
		{"javascript:alert(1)", contentItemURI, false},
		{"JavaScript:alert(1)", contentItemURI, false},
		{"vbscript:msgbox", contentItemURI, false},
		{"data:text/html,<script>", contentItemURI, false},
		{"/relative/path", contentItemURI, false},
		{"relative", contentItemURI, false},
		{"", contentItemURI, false},
		{"/oob/calendar/acct-1/connect?x=1", elicitationURL, true},
		{"/oob/calendar/../admin", elicitationURL, false},
		{"/oob/calendar/%2E%2E/admin", elicitationURL, false},
		{"https://pay.example.com/c/../d", elicitationURL, false},
		{"https://pay.example.com/c?next=../d", elicitationURL, true}, // a query value is no segment
	} {
		err := checkURI(tc.uri, tc.use)
		if (err == nil) != tc.fine {
			t.Errorf("checkURI(%q, %d) = %v, want fine=%v", tc.uri, tc.use, err, tc.fine)
		}
	}
}

// A value escaped by URLValue cannot add structure, but ".." stays ".."
// (dots are unreserved): checkURI is what refuses it.
func TestEscapedDotsAreStillRefused(t *testing.T) {
	uri := "charts://" + mrtrimpl.X.URLValue("..") + "/x"
	if uri != "charts://../x" {
		t.Fatalf("mrtrimpl.X.URLValue(..) = %q", uri)
	}
	if checkURI("charts://r/"+mrtrimpl.X.URLValue("..")+"/x", contentItemURI) == nil {
		t.Error("an escaped .. accepted")
	}
	if err := checkURI("charts://r/"+mrtrimpl.X.URLValue("a/../../b?c#d")+"/x", contentItemURI); err != nil {
		t.Errorf("an escaped value with slashes: %v", err)
	}
}

func FuzzCheckURI(f *testing.F) {
	for _, s := range []string{"charts://a/b", "..", "%2e%2e", "javascript:x", "/a/./b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		uri := "charts://r/" + mrtrimpl.X.URLValue(v) + "/x"
		if err := checkURI(uri, contentItemURI); err == nil && isDotSegment(mrtrimpl.X.URLValue(v)) {
			t.Fatalf("%q accepted with a dot segment", uri)
		}
	})
}
