package mrtrimpl

import (
	"context"
	"fmt"
	"strings"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/handlertypes"
)

// Content is one declared content item of a final result (mrtr.Final's
// Content), as the generated code fills it. Its Type is written as the MCP
// type itself ("image", "audio", "resource_link", "resource": the content
// kinds of docs/spec.md), which is what the type's constants hold.
type Content = handlertypes.Content

// Bytes calls the handler method that gives the body of a declared content
// item, and refuses an empty one: the spec declared the item, so a result
// without its body would be half a result. The error names the item and
// fails the round as a dependency failure.
func (Export) Bytes(ctx context.Context, what string, get func(context.Context) ([]byte, error)) ([]byte, error) {
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

// CompleteValues returns the values that start with prefix, ignoring case,
// in the spec's order.
func (Export) CompleteValues(values []string, prefix string) []string {
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
