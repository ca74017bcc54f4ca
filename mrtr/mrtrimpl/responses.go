package mrtrimpl

import (
	"net/url"

	"github.com/mrtrgen/mrtrgen/mrtr/problem"
)

// ResponseStatus says what the client answered to one input request.
type ResponseStatus uint8

// Response is the client's answer to one input request.
type Response struct {
	Status ResponseStatus
	// Content is the form's content (Elicit, when Accepted).
	Content map[string]any
	// Text is the sampled text (Sample, when Accepted).
	Text string
	// URIs are the roots (Roots, when Accepted).
	URIs []string
	// Problem says why an answer is Malformed.
	Problem string
}

// CheckRoots validates a roots answer against its bounds.
func CheckRoots(uris []string, minItems, maxItems int) Problems {
	var p Problems
	if len(uris) < minItems {
		p.Add(problem.RootsTooFew(minItems, len(uris)))
	}
	if len(uris) > maxItems {
		p.Add(problem.RootsTooMany(maxItems, len(uris)))
	}
	for _, u := range uris {
		if len(u) > maxRootURIBytes {
			p.Add(problem.RootTooLong(maxRootURIBytes))
			continue
		}
		if pu, err := url.Parse(u); err != nil || pu.Scheme == "" {
			p.Add(problem.RootNotAbsolute(u))
		}
	}
	return p
}

// maxRootURIBytes bounds one root URI.
const maxRootURIBytes = 512

// Sampled is the answer to a sampling request: the text the client's model
// produced, validated against the request's bounds.
type Sampled struct {
	Text string
}

// URLStep is the answer to a URL-mode elicitation: the user accepted
// opening its URL. It carries nothing, and it does not mean the step on
// that page was completed: the check after the ask verifies it.
type URLStep struct{}

// RootList is the answer to a roots request: the client's root URIs.
type RootList struct {
	URIs []string
}

const (
	// Missing: no usable answer this round (not sent, sent to a state that
	// cannot take it, or a gate that was not shown yet). Ask again.
	Missing ResponseStatus = iota
	// Accepted: an answer to validate.
	Accepted
	// Declined: the user said no (elicitation action "decline").
	Declined
	// Cancelled: the user dismissed the request (action "cancel").
	Cancelled
	// Malformed: an answer of the wrong kind or shape. Ask again, saying why.
	Malformed
)
