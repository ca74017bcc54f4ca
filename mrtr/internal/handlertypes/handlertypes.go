// Package handlertypes defines, once, the types a handler author sees
// that the generated plumbing also needs: the result of a finished
// workflow (Final, PromptMessage, Content), a choice found at run time
// (Option) and the answers a flow holds besides forms (Sampled, RootList,
// URLStep). Package mrtr names them for handler authors (mrtr.Final,
// mrtr.PromptMessage, mrtr.Option, mrtr.Sampled); package mrtrimpl refers to them
// through unexported aliases, so neither exports a name twice and mrtr
// keeps importing mrtrimpl, never the reverse.
package handlertypes

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// Final is the result of a finished workflow.
type Final struct {
	Outcome vocab.Outcome `json:"outcome"`
	// Text is a tool's result text.
	Text string `json:"text,omitempty"`
	// Messages are a prompt's resulting messages.
	Messages []PromptMessage `json:"messages,omitempty"`
	// Structured is a tool's structured result (MCP structuredContent), a
	// JSON object checked against the spec's output fields, when the tool
	// has an outputSchema; nil otherwise. Round records store it with the
	// rest of the reply, so a replayed final round returns the same bytes
	// (records written before it existed have none, as their tools had no
	// outputSchema).
	Structured json.RawMessage `json:"structured,omitempty"`
	// Content are the declared content items of a tool's result (after
	// its text), or the contents of a resource's (docs/spec.md, Content
	// kinds).
	Content []Content `json:"content,omitempty"`
	// NotFound marks the end of a resource's workflow at a terminal state
	// the spec declares notFound: the resource read does not exist, and
	// the reader gets the protocol's resource-not-found error instead of
	// -32000. Round records keep it with the rest of the reply.
	NotFound bool `json:"notFound,omitempty"`
}

// IsError reports whether the result is an error result (MCP isError).
func (f *Final) IsError() bool {
	switch f.Outcome {
	case vocab.OutcomeSuccess, vocab.OutcomeCancelled, vocab.OutcomeExpired, vocab.OutcomePending:
		return false
	}
	return true
}

// PromptMessage is one message of a prompt's result.
type PromptMessage struct {
	Role string `json:"role"`
	Text string `json:"text"`
	// Content, when set, is the message's content instead of Text (an
	// image, an audio clip, a resource link or an embedded resource).
	Content *Content `json:"content,omitempty"`
}

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

// Sampled is the answer to a sampling request: the text the client's model
// produced, validated against the request's bounds.
type Sampled struct {
	Text string
}

// RootList is the answer to a roots request: the client's root URIs.
type RootList struct {
	URIs []string
}

// URLStep is the answer to a URL-mode elicitation: the user accepted
// opening its URL. It carries nothing, and it does not mean the step on
// that page was completed: the check after the ask verifies it.
type URLStep struct{}

// Option is one choice a check discovered at run time: the value an answer
// gives back, and the title a client shows for it. A check stores a list of
// them in the continuation; a form field with valuesFrom offers that list,
// and its answer must be one of the values offered. Package mrtr exports
// it as mrtr.Option, the name handlers use.
type Option struct {
	Value string
	Title string
}
