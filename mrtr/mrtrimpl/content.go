package mrtrimpl

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ContentType is the MCP type of one content item a result carries besides
// its text: "image", "audio", "resource_link" or "resource" (embedded).
type ContentType string

// The content types a spec can declare (docs/spec.md, Content kinds).
const (
	ContentImage        ContentType = "image"
	ContentAudio        ContentType = "audio"
	ContentResourceLink ContentType = "resource_link"
	ContentResource     ContentType = "resource"
)

// Content is one declared content item of a final result, as the
// generated code filled it: the spec fixes its type, MIME type and URI
// template; a handler method gave the bytes (Data) of an image, an audio
// clip or a binary resource, or a template rendered the text of a text
// resource. It is recorded with the round, so a replayed final round
// returns the same items.
type Content struct {
	Type        ContentType `json:"type"`
	MIMEType    string      `json:"mimeType,omitempty"`
	URI         string      `json:"uri,omitempty"`
	Name        string      `json:"name,omitempty"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description,omitempty"`
	// Text is the text of an embedded (or read) text resource; Blob
	// reports that Data is the resource's binary body instead.
	Text string `json:"text,omitempty"`
	Data []byte `json:"data,omitempty"`
	Blob bool   `json:"blob,omitempty"`
}

// MCP is the content item on the wire (tools/call content, a prompt
// message's content).
func (c Content) MCP() mcp.Content {
	switch c.Type {
	case ContentImage:
		return &mcp.ImageContent{Data: c.Data, MIMEType: c.MIMEType}
	case ContentAudio:
		return &mcp.AudioContent{Data: c.Data, MIMEType: c.MIMEType}
	case ContentResourceLink:
		return &mcp.ResourceLink{URI: c.URI, Name: c.Name, Title: c.Title, Description: c.Description, MIMEType: c.MIMEType}
	default:
		return &mcp.EmbeddedResource{Resource: c.Resource()}
	}
}

// Resource is the item as resource contents (an embedded resource, or
// one of the contents of a resources/read result).
func (c Content) Resource() *mcp.ResourceContents {
	rc := &mcp.ResourceContents{URI: c.URI, MIMEType: c.MIMEType}
	if c.Blob {
		rc.Blob = c.Data
		if rc.Blob == nil {
			rc.Blob = []byte{}
		}
	} else {
		rc.Text = c.Text
	}
	return rc
}

// Bytes calls the handler method that gives the body of a declared content
// item, and refuses an empty one: the spec declared the item, so a result
// without its body would be half a result. The error names the item and
// fails the round as a dependency failure.
func Bytes(ctx context.Context, what string, get func(context.Context) ([]byte, error)) ([]byte, error) {
	b, err := get(ctx)
	if err != nil {
		return nil, fmt.Errorf("content %s: %w", what, err)
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("content %s: the handler returned no data", what)
	}
	return b, nil
}

// Completer is implemented by a generated program whose spec declares
// completions for arguments of a prompt or variables of a resource
// template: Complete gives the suggestions for what the user typed so far
// (value) of argument; context holds the other arguments the client
// already resolved. An argument without completions gives none.
type Completer interface {
	Complete(ctx context.Context, argument, value string, context map[string]string) ([]string, error)
}

// MaxCompletions is the most values one completion/complete result holds
// (MCP's limit); more are cut, and the result says it has more.
const MaxCompletions = 100

// CompleteValues returns the values that start with prefix, ignoring case,
// in the spec's order.
func CompleteValues(values []string, prefix string) []string {
	out := []string{}
	for _, v := range values {
		if len(v) >= len(prefix) && strings.EqualFold(v[:len(prefix)], prefix) {
			out = append(out, v)
		}
	}
	return out
}

// ResourceInfo describes a resource workflow: a fixed URI or a URI
// template (RFC 6570 level 1: {name} variables, one path segment each),
// and the MIME type of what it returns.
type ResourceInfo struct {
	URI         string
	URITemplate string
	MIMEType    string
}
