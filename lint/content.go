package lint

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Rules of content kinds, resources and completions.
var contentRules = []*Rule{
	{
		ID: "completion-value-invalid", Severity: spec.Error,
		Summary: "a completion value is one its argument refuses",
		Hint:    "drop the value, or widen the argument's constraints",
		Why: `completion/complete offers the values to the user, who picks one; the prompt or resource
then validates the argument on every round and refuses a value outside its minLength,
maxLength or pattern. A suggestion that can only fail wastes the user's pick and reads as a
bug in the server.`,
		Bad: `arguments:
  city: {type: string, maxLength: 4, complete: {values: [paris, rome]}}`,
		Good: `arguments:
  city: {type: string, maxLength: 10, complete: {values: [paris, rome]}}`,
		check: checkCompletionValues,
	},
	{
		ID: "content-mime-type", Severity: spec.Warning,
		Summary: "an image or audio content item has a MIME type of another kind",
		Hint:    "give an image an image/* type and audio an audio/* type",
		Why: `Clients pick a renderer by the content's type and check its MIME type: an image with
mimeType text/plain is shown as nothing, or refused. The bytes come from a handler
method, so the spec's MIME type is the only promise of what they are.`,
		Bad:   `- image: {mimeType: application/pdf, from: renderReport}`,
		Good:  `- resource: {uri: 'reports://{id}.pdf', mimeType: application/pdf, from: renderReport}`,
		check: checkContentMIMETypes,
	},
	{
		ID: "resource-with-effect", Severity: spec.Warning,
		Summary: "a resource performs a side effect",
		Hint:    "make the change a tool, and let the resource only read",
		Why: `Reading a resource is meant to change nothing: clients read resources to show or attach
them, prefetch them, and read them again when a cached result is stale. An effect in a
resource's workflow runs on such reads, though the user asked for none (the engine still
runs it once per workflow round). Ask and check in a resource freely; change things in a
tool.`,
		Bad: `resources:
  export:
    states:
      markExported: {effect: markExported, next: done}`,
		Good: `tools:
  mark_exported:
    states:
      markExported: {effect: markExported, next: done}`,
		check: checkResourceEffects,
	},
	{
		ID: "content-uri-structure", Severity: spec.Error,
		Summary: "a content item's uri does not fix its scheme, or has an optional part",
		Hint:    "write the scheme and the fixed path out, with each value one segment: 'reports://{region}/summary'",
		Why: `A content item's uri names a resource the client may fetch, show or open. The values put
into it are escaped (one segment each, no query or fragment of their own), and the runtime
refuses the URI it builds if it has a dot segment, a control character, no scheme, or the
scheme javascript:, vbscript: or data: (the workflow ends rejected). A template that does
not start with its scheme lets a value choose what kind of URI it is; a section
({?name}…{/name}) puts text into the URI that no escaping covers.`,
		Bad:   `- resourceLink: {uri: '{kind}:{region}/data.csv', name: data}`,
		Good:  `- resourceLink: {uri: 'charts://{region}/data.csv', name: data}`,
		check: checkContentURIStructure,
	},
	{
		ID: "content-uri-from-value", Severity: spec.Warning,
		Summary: "a content item's uri is one whole value: the caller chooses it",
		Hint:    "build the uri from a fixed scheme and path, or silence this with the reason the caller may choose it",
		Why: `A uri such as '{resourceUri}' is taken as the caller gave it: the client will show or
fetch whatever URI was passed in, under this server's name. The runtime refuses the worst
(no scheme, javascript:, vbscript:, data:, dot segments, control characters), but any other
absolute URI goes through. Say in an opt-out why that is what the tool is for.`,
		Bad:   `- resource: {uri: '{target}', mimeType: text/plain, text: Notes}`,
		Good:  `- resource: {uri: 'notes://{target}', mimeType: text/plain, text: Notes}`,
		check: checkContentURIFromValue,
	},
}

// contentItems lists the content items of state s: its result's content and
// its messages'.
func contentItems(s *spec.State) []*spec.Content {
	items := append([]*spec.Content(nil), s.Content...)
	for _, m := range s.Messages {
		if m.Content != nil {
			items = append(items, m.Content)
		}
	}
	return items
}

// wholeValueURI reports whether tpl is one placeholder and nothing else.
func wholeValueURI(tpl *spec.Template) bool {
	return len(tpl.Parts) == 1 && tpl.Parts[0].Ref != nil
}

func checkContentURIStructure(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		for _, s := range t.States {
			for _, it := range contentItems(s) {
				tpl := it.URI
				if tpl == nil || wholeValueURI(tpl) {
					continue
				}
				where := fmt.Sprintf("%s %q: state %q: %s uri %q", t.Kind, t.Name, s.Name, it.Kind, tpl.Raw)
				for _, p := range tpl.Parts {
					if p.Open != nil || p.Close {
						c.report(r, tpl.Pos, c.toolScope(t, s.Lint), "%s has a section ({?name}…{/name}): a uri is one address, not a text with optional parts", where)
						break
					}
				}
				first := tpl.Parts[0]
				if first.Ref != nil || !hasScheme(first.Literal) {
					c.report(r, tpl.Pos, c.toolScope(t, s.Lint), "%s does not start with its scheme (such as reports://): a value would choose what kind of URI it is", where)
				}
			}
		}
	}
}

// hasScheme reports whether literal starts with an RFC 3986 scheme and its
// colon.
func hasScheme(literal string) bool {
	i := strings.IndexByte(literal, ':')
	if i <= 0 {
		return false
	}
	for j, ch := range literal[:i] {
		letter := ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z'
		if !letter && (j == 0 || !(ch >= '0' && ch <= '9' || ch == '+' || ch == '-' || ch == '.')) {
			return false
		}
	}
	return true
}

func checkContentURIFromValue(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		for _, s := range t.States {
			for _, it := range contentItems(s) {
				if it.URI != nil && wholeValueURI(it.URI) {
					c.report(r, it.URI.Pos, c.toolScope(t, s.Lint), "%s %q: state %q: %s uri %q is the value the caller gave", t.Kind, t.Name, s.Name, it.Kind, it.URI.Raw)
				}
			}
		}
	}
}

func checkCompletionValues(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		for _, a := range t.Arguments {
			if a.Complete == nil {
				continue
			}
			for _, v := range a.Complete.Values {
				n := utf8.RuneCountInString(v)
				var why string
				switch {
				case a.MinLength != nil && n < *a.MinLength:
					why = "is shorter than minLength"
				case a.MaxLength != nil && n > *a.MaxLength:
					why = "is longer than maxLength"
				case a.Regexp != nil && !a.Regexp.MatchString(v):
					why = "does not match pattern"
				default:
					continue
				}
				c.report(r, a.Complete.Pos, c.toolScope(t, a.Lint), "%s %q: completion value %q of argument %q %s", t.Kind, t.Name, v, a.Name, why)
			}
		}
	}
}

func checkContentMIMETypes(c *checker, r *Rule) {
	want := map[spec.ContentKind]string{spec.ContentImage: "image/", spec.ContentAudio: "audio/"}
	for _, t := range c.file.Workflows() {
		for _, s := range t.States {
			for _, it := range contentItems(s) {
				prefix, ok := want[it.Kind]
				if ok && it.MIMEType != "" && !strings.HasPrefix(strings.ToLower(it.MIMEType), prefix) {
					c.report(r, it.Pos, c.toolScope(t, s.Lint), "%s %q: state %q returns %s with MIME type %q", t.Kind, t.Name, s.Name, it.Kind, it.MIMEType)
				}
			}
		}
	}
}

func checkResourceEffects(c *checker, r *Rule) {
	for _, t := range c.file.Resources {
		for _, s := range t.States {
			if s.Kind == vocab.StateEffect {
				c.report(r, s.Pos, c.toolScope(t, s.Lint), "resource %q: state %q performs effect %s on a read", t.Name, s.Name, s.Effect.Name)
			}
		}
	}
}
