package spec

import (
	"strings"
	"testing"
)

// The literal start of a URL template must fix the origin: no placeholder
// can pick the host, no user information, https (http on loopback only).
func TestURLPrefix(t *testing.T) {
	ok := []string{
		"/oob/calendar/", "/", "https://pay.example.com/", "https://pay.example.com/confirm?x=",
		"https://pay.example.com:8443/c/", "HTTPS://pay.example.com/", "http://localhost:8080/", "http://127.0.0.1/",
		"https://pay.example.com?invoice=", "https://pay.example.com#",
	}
	for _, p := range ok {
		if msg := urlPrefixProblem(p); msg != "" {
			t.Errorf("%q refused: %s", p, msg)
		}
	}
	bad := []string{
		"", "//evil.example/", "/\\evil.example/", "https://", "https://pay.example.com", "https://pay.",
		"https://user:pw@pay.example.com/", "https://pay.example.com@evil.example/", "http://pay.example.com/",
		"http://localhost.evil.example/", "http://127.0.0.1.evil.example/", "javascript:alert(1)//", "ftp://pay.example.com/",
		"oob/calendar/", "data:text/html,", " https://pay.example.com/",
	}
	for _, p := range bad {
		if msg := urlPrefixProblem(p); msg == "" {
			t.Errorf("%q accepted", p)
		}
	}
}

// A url that starts with a placeholder is refused at load time, with its
// position; a good one resolves its placeholders.
func TestURLTemplateLoads(t *testing.T) {
	spec := func(url string) []byte {
		return []byte(`version: 1
package: p
tools:
  t:
    description: d
    arguments:
      id: {type: string, required: true, maxLength: 10}
    initial: a
    states:
      a:
        ask:
          step:
            elicitUrl:
              message: Go there.
              url: '` + url + `'
        next: c
      c:
        check: done
        next: end
      end:
        terminal: success
        message: ok
`)
	}
	f, ds := Parse("t.mrtr.yaml", spec("{id}/x"), Options{})
	if f != nil || len(ds) == 0 || ds[0].Rule != "url" || ds[0].Pos.Line != 15 {
		t.Fatalf("url {id}/x: %v %v", f != nil, ds)
	}
	// A section would put unescaped text into the url (issue 14 item 3).
	f, ds = Parse("t.mrtr.yaml", spec("/x?a=1{?id}&id={id}{/id}"), Options{})
	if f != nil || len(ds) == 0 || ds[0].Rule != "url" || ds[0].Pos.Line != 15 || !strings.Contains(ds[0].Message, "section") {
		t.Fatalf("url with a section: %v %v", f != nil, ds)
	}
	f, ds = Parse("t.mrtr.yaml", spec("/x/{id}?w={workflowId}"), Options{})
	if f == nil || ds.HasErrors() {
		t.Fatalf("good url: %v", ds)
	}
	q := f.Tools[0].State("a").Request("step")
	if !q.IsPath() || q.URL.Refs()[0].Kind != RefArgument || q.URL.Refs()[1].Kind != RefWorkflowID {
		t.Fatalf("resolved %+v", q.URL)
	}
}
