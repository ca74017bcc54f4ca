package spec

import (
	"net/url"
	"strings"

	"go.yaml.in/yaml/v3"
)

// urlTemplate reads the url of a URL-mode elicitation: a template whose
// literal start fixes where the URL goes, so that no placeholder can send
// the user to another origin. It is either a path ("/connect/{workflowId}",
// resolved against the engine's PublicURL) or an absolute https URL whose
// host is written out in full before any placeholder
// ("https://pay.example.com/confirm/{workflowId}"); http is accepted only
// for localhost and 127.0.0.1 (development). A URL with user information
// ("https://user:secret@host/") carries a credential and is refused.
func (d *decoder) urlTemplate(n *yaml.Node) *Template {
	t := d.template(n)
	if t == nil {
		return nil
	}
	prefix := ""
	if len(t.Parts) > 0 && t.Parts[0].Ref == nil {
		prefix = t.Parts[0].Literal
	}
	if msg := urlPrefixProblem(prefix); msg != "" {
		d.errorf(n, "url", "write https://host/path/{placeholder}, or a path /path/{placeholder} served at the engine's PublicURL", "url %q %s", t.Raw, msg)
		return nil
	}
	for _, p := range t.Parts {
		if p.Open != nil || p.Close {
			// Every value of a url is escaped as it is put in; a section
			// would put in text around it, unchecked.
			d.errorf(n, "url", "write the url whole; an optional part belongs in the message", "url %q has a section ({?name}…{/name}): a url is one address, not a text with optional parts", t.Raw)
			return nil
		}
	}
	return t
}

// urlPrefixProblem says what is wrong with the literal start of a URL
// template, or "" when it fixes the origin (or is a path).
func urlPrefixProblem(prefix string) string {
	if strings.HasPrefix(prefix, "/") {
		if strings.HasPrefix(prefix, "//") || strings.HasPrefix(prefix, "/\\") {
			return "starts with //, which names another host; write a path (/connect/...) or an https URL"
		}
		return ""
	}
	scheme, rest, ok := strings.Cut(prefix, "://")
	if !ok {
		return "is neither a path (/...) nor an absolute URL written out up to its path"
	}
	hostEnd := strings.IndexAny(rest, "/?#")
	if hostEnd < 0 {
		return "names its host with a placeholder or has no path: write the host in full, followed by /"
	}
	host := rest[:hostEnd]
	u, err := url.Parse(scheme + "://" + host + "/")
	switch {
	case err != nil || u.Host == "":
		return "has no valid host"
	case u.User != nil || strings.Contains(host, "@"):
		return "carries user information (user:password@), a credential in the link"
	case strings.EqualFold(scheme, "https"):
		return ""
	case strings.EqualFold(scheme, "http") && (u.Hostname() == "localhost" || u.Hostname() == "127.0.0.1"):
		return ""
	}
	return "is not https (http is accepted for localhost and 127.0.0.1 only)"
}

// IsPath reports whether a URL-mode elicitation's url is a path on the
// engine's PublicURL rather than an absolute URL.
func (r *InputRequest) IsPath() bool {
	return r.URL != nil && len(r.URL.Parts) > 0 && r.URL.Parts[0].Ref == nil && strings.HasPrefix(r.URL.Parts[0].Literal, "/")
}
