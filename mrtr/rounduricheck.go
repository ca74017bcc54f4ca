package mrtr

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// uriUse says where a URI built from a spec's template goes, which decides
// what checkURI asks of it.
type uriUse int

const (
	// contentItemURI is the uri of a resource link or embedded resource of
	// a result: an absolute URI (it names a resource on its own).
	contentItemURI uriUse = iota + 1
	// elicitationURL is the url of a URL-mode elicitation, which a
	// person's browser opens: a path on Config.PublicURL or an absolute
	// URL.
	elicitationURL
)

// refusedSchemes run code or carry their own content where a client
// renders or opens the URI.
var refusedSchemes = []string{"javascript", "vbscript", "data"}

// checkURI reports why uri, rendered from a spec's template, may not be
// sent. Generated code escapes every value it puts into a URI with
// literal text around it (URLValue), so a value cannot add a segment, a
// query or a fragment; this check is what holds beyond escaping:
//
//   - no control character, space or backslash anywhere (browsers read a
//     backslash as a slash in http URLs);
//   - no dot segment ("." or "..", also percent-encoded: WHATWG URL
//     parsers resolve "%2e%2e" as ".."), which would climb out of the path
//     the template fixed — a value ".." is unreserved, so escaping keeps it;
//   - a content item's URI is absolute, with a scheme that is not
//     javascript:, vbscript: or data: (a template that is one whole value,
//     such as '{resourceUri}', takes the URI as the caller gave it).
func checkURI(uri string, use uriUse) error {
	if uri == "" {
		return errors.New("the URI is empty")
	}
	for i := 0; i < len(uri); i++ {
		if c := uri[i]; c <= ' ' || c == 0x7f || c == '\\' {
			return fmt.Errorf("the URI %q has a control character, a space or a backslash at byte %d", uri, i)
		}
	}
	u, err := url.Parse(uri)
	if err != nil {
		return fmt.Errorf("the URI %q does not parse: %w", uri, err)
	}
	if use == contentItemURI {
		if u.Scheme == "" {
			return fmt.Errorf("the URI %q is not absolute (it has no scheme)", uri)
		}
		for _, s := range refusedSchemes {
			if strings.EqualFold(u.Scheme, s) {
				return fmt.Errorf("the URI %q has the scheme %s:, which is never sent", uri, s)
			}
		}
	}
	path := u.EscapedPath()
	if u.Opaque != "" {
		path = u.Opaque
	}
	for _, seg := range strings.Split(path, "/") {
		if isDotSegment(seg) {
			return fmt.Errorf("the URI %q has the dot segment %q in its path", uri, seg)
		}
	}
	return nil
}

// isDotSegment reports whether seg is "." or "..", literally or with any
// of its dots percent-encoded.
func isDotSegment(seg string) bool {
	s := strings.ReplaceAll(strings.ToLower(seg), "%2e", ".")
	return s == "." || s == ".."
}
