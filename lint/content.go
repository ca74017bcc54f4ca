package lint

import (
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
			items := append([]*spec.Content(nil), s.Content...)
			for _, m := range s.Messages {
				if m.Content != nil {
					items = append(items, m.Content)
				}
			}
			for _, it := range items {
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
