package mrtrimpl

import "testing"

func TestCheckURI(t *testing.T) {
	for _, tc := range []struct {
		uri  string
		use  URIUse
		fine bool
	}{
		{"charts://emea/notes", ContentItemURI, true},
		{"test://template/123/data", ContentItemURI, true},
		{"file:///srv/reports/q3.csv", ContentItemURI, true},
		{"https://example.com/a%2Fb/c", ContentItemURI, true},
		{"charts://emea/..", ContentItemURI, false},
		{"charts://emea/../admin", ContentItemURI, false},
		{"charts://emea/./x", ContentItemURI, false},
		{"charts://emea/%2e%2E/x", ContentItemURI, false},
		{"charts://emea/.%2e", ContentItemURI, false},
		{"charts://emea/...", ContentItemURI, true}, // three dots are a name
		{"charts://emea/a b", ContentItemURI, false},
		{"charts://emea/a\nb", ContentItemURI, false},
		{"charts://emea\\x", ContentItemURI, false},
		{"javascript:alert(1)", ContentItemURI, false},
		{"JavaScript:alert(1)", ContentItemURI, false},
		{"vbscript:msgbox", ContentItemURI, false},
		{"data:text/html,<script>", ContentItemURI, false},
		{"/relative/path", ContentItemURI, false},
		{"relative", ContentItemURI, false},
		{"", ContentItemURI, false},
		{"/oob/calendar/acct-1/connect?x=1", ElicitationURL, true},
		{"/oob/calendar/../admin", ElicitationURL, false},
		{"/oob/calendar/%2E%2E/admin", ElicitationURL, false},
		{"https://pay.example.com/c/../d", ElicitationURL, false},
		{"https://pay.example.com/c?next=../d", ElicitationURL, true}, // a query value is no segment
	} {
		err := CheckURI(tc.uri, tc.use)
		if (err == nil) != tc.fine {
			t.Errorf("CheckURI(%q, %d) = %v, want fine=%v", tc.uri, tc.use, err, tc.fine)
		}
	}
}

// A value escaped by URLValue cannot add structure, but ".." stays ".."
// (dots are unreserved): CheckURI is what refuses it.
func TestEscapedDotsAreStillRefused(t *testing.T) {
	uri := "charts://" + URLValue("..") + "/x"
	if uri != "charts://../x" {
		t.Fatalf("URLValue(..) = %q", uri)
	}
	if CheckURI("charts://r/"+URLValue("..")+"/x", ContentItemURI) == nil {
		t.Error("an escaped .. accepted")
	}
	if err := CheckURI("charts://r/"+URLValue("a/../../b?c#d")+"/x", ContentItemURI); err != nil {
		t.Errorf("an escaped value with slashes: %v", err)
	}
}

func FuzzCheckURI(f *testing.F) {
	for _, s := range []string{"charts://a/b", "..", "%2e%2e", "javascript:x", "/a/./b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		uri := "charts://r/" + URLValue(v) + "/x"
		if err := CheckURI(uri, ContentItemURI); err == nil && isDotSegment(URLValue(v)) {
			t.Fatalf("%q accepted with a dot segment", uri)
		}
	})
}
