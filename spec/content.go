package spec

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// ContentKind is the kind of a declared content item (docs/spec.md,
// Content kinds).
type ContentKind uint8

const (
	ContentImage ContentKind = iota + 1
	ContentAudio
	ContentResourceLink
	ContentResource // an embedded resource, or one of a resource's contents
)

var contentKindKeys = map[string]ContentKind{
	"image": ContentImage, "audio": ContentAudio, "resourceLink": ContentResourceLink, "resource": ContentResource,
}

func (k ContentKind) String() string {
	for key, v := range contentKindKeys {
		if v == k {
			return key
		}
	}
	return "content"
}

// Content is one content item a tool's result, a prompt message or a
// resource's contents declare: its kind and MIME type are fixed in the
// spec; the bytes of an image, an audio clip or a binary resource come
// from a handler method (From), the text of a text resource and URIs from
// templates.
type Content struct {
	Kind     ContentKind
	MIMEType string
	// From names the handler method returning the bytes ([]byte); nil for
	// a text resource and a resource link.
	From *NameRef
	// URI is a template (resource links, embedded resources); nil in a
	// resource's contents means the URI read.
	URI *Template
	// Text is the text of a text resource.
	Text *Template
	// Name, Title and Description describe a resource link.
	Name, Title, Description string
	Pos                      Pos
}

// Templates lists the item's templates.
func (c *Content) Templates() []*Template {
	var ts []*Template
	for _, t := range []*Template{c.URI, c.Text} {
		if t != nil {
			ts = append(ts, t)
		}
	}
	return ts
}

// Completion is how a prompt argument or a resource template variable is
// completed on completion/complete: fixed Values, or a handler method.
type Completion struct {
	Values []string
	From   *NameRef
	Pos    Pos
}

// ResourceDecl is what a resource workflow reads: a fixed URI or a URI
// template, and its MIME type.
type ResourceDecl struct {
	URI         string
	URITemplate string
	MIMEType    string
	Pos         Pos
}

// Variables lists the variables of the URI template in order.
func (r *ResourceDecl) Variables() []string {
	var out []string
	for _, m := range uriTemplateVar.FindAllStringSubmatch(r.URITemplate, -1) {
		out = append(out, m[1])
	}
	return out
}

var (
	uriTemplateVar = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)
	// uriTemplateExpr is any expression of RFC 6570; only {name} (level 1)
	// is served.
	uriTemplateExpr = regexp.MustCompile(`\{[^}]*\}?`)
)

// decodeContentItem decodes one item of content: (a mapping with one key
// naming its kind), or, with kind given, the body of an item of that kind.
func (d *decoder) decodeContentBody(kind ContentKind, k, n *yaml.Node) *Content {
	c := &Content{Kind: kind, Pos: d.pos(k)}
	for _, p := range pairs(n) {
		switch p.key {
		case "mimeType":
			c.MIMEType = p.v.Value
		case "from":
			c.From = &NameRef{Name: p.v.Value, Pos: d.pos(p.v)}
			d.checkIdent(p.v, "content method")
		case "uri":
			c.URI = d.template(p.v)
		case "text":
			c.Text = d.template(p.v)
		case "name":
			c.Name = p.v.Value
		case "title":
			c.Title = p.v.Value
		case "description":
			c.Description = p.v.Value
		}
	}
	return c
}

// decodeContentList decodes a state's content: (each item a mapping with
// one key naming its kind).
func (d *decoder) decodeContentList(n *yaml.Node) []*Content {
	var out []*Content
	for _, item := range n.Content {
		for _, p := range pairs(item) {
			if kind, ok := contentKindKeys[p.key]; ok {
				out = append(out, d.decodeContentBody(kind, p.k, p.v))
			}
		}
	}
	return out
}

// decodeContents decodes a resource's contents: each item a resource.
func (d *decoder) decodeContents(n *yaml.Node) []*Content {
	var out []*Content
	for _, item := range n.Content {
		out = append(out, d.decodeContentBody(ContentResource, item, item))
	}
	return out
}

// decodeCompletion decodes a field's complete.
func (d *decoder) decodeCompletion(n *yaml.Node) *Completion {
	c := &Completion{Pos: d.pos(n)}
	for _, p := range pairs(n) {
		switch p.key {
		case "values":
			for _, v := range p.v.Content {
				c.Values = append(c.Values, v.Value)
			}
		case "from":
			c.From = &NameRef{Name: p.v.Value, Pos: d.pos(p.v)}
			d.checkIdent(p.v, "completion method")
		}
	}
	return c
}

// checkResource checks a resource workflow's URI and fills in its
// arguments from the template's variables, or checks the declared ones
// against them: every variable is a required string argument, and there
// are no others.
func (d *decoder) checkResource(t *Tool, at *yaml.Node, keys map[string]*yaml.Node) {
	if t.Kind != vocab.KindResource {
		for _, key := range []string{"uri", "uriTemplate", "mimeType"} {
			if k := keys[key]; k != nil {
				d.errorf(k, "schema", "", "%s applies to resources, not %ss", key, t.Kind)
			}
		}
		return
	}
	r := t.Resource
	switch {
	case r == nil || (r.URI == "" && r.URITemplate == ""):
		d.errorf(at, "schema", "add uri: <uri> or uriTemplate: <template>", "resource %q has no uri or uriTemplate", t.Name)
		return
	case r.URI != "" && r.URITemplate != "":
		d.errorf(keys["uriTemplate"], "schema", "keep one", "resource %q has both uri and uriTemplate", t.Name)
		return
	case r.URITemplate != "" && len(r.Variables()) == 0:
		d.errorf(keys["uriTemplate"], "schema", "use uri: for a fixed URI", "uriTemplate %q of resource %q has no {variable}", r.URITemplate, t.Name)
		return
	}
	if r.URI != "" && uriTemplateExpr.MatchString(r.URI) {
		d.errorf(keys["uri"], "schema", "use uriTemplate: for a URI with variables", "uri %q of resource %q has a {variable}", r.URI, t.Name)
	}
	for _, e := range uriTemplateExpr.FindAllString(r.URITemplate, -1) {
		if !uriTemplateVar.MatchString(e) || uriTemplateVar.FindString(e) != e {
			d.errorf(keys["uriTemplate"], "schema", "use {name} variables (RFC 6570 level 1)", "uriTemplate %q of resource %q has expression %s, which is not served", r.URITemplate, t.Name, e)
			return
		}
	}
	vars := r.Variables()
	for i, v := range vars {
		if slices.Contains(vars[:i], v) {
			d.errorf(keys["uriTemplate"], "schema", "", "uriTemplate %q of resource %q names {%s} twice", r.URITemplate, t.Name, v)
		}
	}
	if t.Arguments == nil {
		for i, v := range vars {
			t.Arguments = append(t.Arguments, &Field{Name: v, Written: i, Type: TypeString, Required: true, Pos: r.Pos})
		}
		slices.SortFunc(t.Arguments, func(a, b *Field) int { return strings.Compare(a.Name, b.Name) })
		return
	}
	// Declared arguments (to constrain or complete a variable) are the
	// variables, each required: a read always has them all.
	for _, a := range t.Arguments {
		if !slices.Contains(vars, a.Name) {
			d.errorfAt(a.Pos, "schema", "declare only the template's variables", "argument %q of resource %q is not a variable of uriTemplate %q", a.Name, t.Name, r.URITemplate)
		}
		a.Required = true
	}
	for _, v := range vars {
		if t.Argument(v) == nil {
			d.errorf(keys["arguments"], "schema", "declare every variable, or none", "resource %q declares arguments but not {%s} of its uriTemplate", t.Name, v)
		}
	}
}

func (d *decoder) errorfAt(p Pos, rule, hint, format string, args ...any) {
	d.diags = append(d.diags, Diagnostic{Pos: p, Severity: Error, Rule: rule, Message: fmt.Sprintf(format, args...), Hint: hint})
}

// checkNotFound checks a terminal state's notFound: it is for resources
// (tools and prompts have no resource to miss), on a terminal that ends
// failed (the reader gets an error, not contents).
func (d *decoder) checkNotFound(s *State, keys map[string]*yaml.Node) {
	k := keys["notFound"]
	switch {
	case k == nil || !s.NotFound:
	case d.kind != vocab.KindResource:
		s.NotFound = false
		d.errorf(k, "state", "end with terminal: failed and a message the caller reads", "state %q: notFound is for resources (resources/read); a %s has no resource to miss", s.Name, d.kind)
	case s.Outcome != vocab.OutcomeFailed:
		s.NotFound = false
		d.errorf(k, "state", "use terminal: failed for the end that means the resource does not exist", "state %q: notFound needs terminal: failed (it ends %s)", s.Name, s.Outcome)
	}
}

// checkTerminalContent checks a terminal state's content items against
// the workflow's kind: content is for tools, contents for resources, and
// a resource that ends in success has contents. Each item has the fields
// its kind needs.
func (d *decoder) checkTerminalContent(s *State, keys map[string]*yaml.Node) {
	switch {
	case d.kind != vocab.KindTool && keys["content"] != nil:
		hint := "put an image or resource in a message: messages: [{role: user, image: {...}}]"
		if d.kind == vocab.KindResource {
			hint = "use contents: [{text: ...}] for what a resource returns"
		}
		d.errorf(keys["content"], "state", hint, "state %q: content is for tools", s.Name)
		return
	case d.kind != vocab.KindResource && keys["contents"] != nil:
		d.errorf(keys["contents"], "state", "use content: for a tool's content items", "state %q: contents is for resources", s.Name)
		return
	case d.kind == vocab.KindResource && keys["messages"] != nil:
		d.errorf(keys["messages"], "state", "use contents: [{text: ...}]", "state %q: messages is for prompts", s.Name)
		return
	case d.kind == vocab.KindResource && s.Outcome == vocab.OutcomeSuccess && len(s.Content) == 0:
		d.errorf(keys["terminal"], "state", "add contents: [{text: ...}] or [{from: <method>}]", "resource terminal state %q has no contents", s.Name)
		return
	case d.kind == vocab.KindResource && s.Outcome != vocab.OutcomeSuccess && keys["contents"] != nil:
		d.errorf(keys["contents"], "state", "give a message: the reader gets an error", "state %q: a resource that ends %s returns no contents", s.Name, s.Outcome)
		return
	}
	items := slices.Clone(s.Content)
	for _, m := range s.Messages {
		if m.Content != nil {
			items = append(items, m.Content)
		}
	}
	for _, c := range items {
		d.checkContent(s, c, d.kind == vocab.KindResource)
	}
}

// checkContent checks that an item has what its kind needs.
func (d *decoder) checkContent(s *State, c *Content, read bool) {
	bad := func(hint, format string, args ...any) {
		d.errorfAt(c.Pos, "state", hint, "state %q: "+format, append([]any{s.Name}, args...)...)
	}
	switch c.Kind {
	case ContentImage, ContentAudio:
		if c.From == nil || c.MIMEType == "" {
			bad("give mimeType and from: <method> (the handler returns the bytes)", "%s needs mimeType and from", c.Kind)
		}
		if c.URI != nil || c.Text != nil || c.Name != "" {
			bad("", "%s takes only mimeType and from", c.Kind)
		}
	case ContentResourceLink:
		if c.URI == nil || c.Name == "" {
			bad("give uri and name", "resourceLink needs uri and name")
		}
		if c.From != nil || c.Text != nil {
			bad("use resource: to embed its contents", "resourceLink takes no text or from")
		}
	case ContentResource:
		if (c.Text == nil) == (c.From == nil) {
			bad("give text: <template> for a text resource, or from: <method> for a binary one", "a resource has either text or from")
		}
		if !read && (c.URI == nil || c.MIMEType == "") {
			bad("give uri and mimeType", "an embedded resource needs uri and mimeType")
		}
		if c.Name != "" || c.Title != "" || c.Description != "" {
			bad("", "a resource's contents take uri, mimeType, text or from")
		}
	}
}
