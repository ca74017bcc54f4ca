// Package response is the client's answer to one input request as the engine
// (package mrtr) hands it to the plumbing generated code calls (package
// mrtrimpl): defined once, below both, and exported by neither.
package response

// Status says what the client answered to one input request.
type Status uint8

// Response is the client's answer to one input request.
type Response struct {
	Status Status
	// Content is the form's content (Elicit, when Accepted).
	Content map[string]any
	// Text is the sampled text (Sample, when Accepted).
	Text string
	// URIs are the roots (Roots, when Accepted).
	URIs []string
	// Problem says why an answer is Malformed.
	Problem string
}

const (
	// Missing: no usable answer this round (not sent, sent to a state that
	// cannot take it, or a gate that was not shown yet). Ask again.
	Missing Status = iota
	// Accepted: an answer to validate.
	Accepted
	// Declined: the user said no (elicitation action "decline").
	Declined
	// Cancelled: the user dismissed the request (action "cancel").
	Cancelled
	// Malformed: an answer of the wrong kind or shape. Ask again, saying why.
	Malformed
)
