package mrtrimpl

import (
	"net/url"

	answer "github.com/mrtrgen/mrtrgen/mrtr/internal/response"

	"github.com/mrtrgen/mrtrgen/mrtr/problem"
)

// CheckRoots validates a roots answer against its bounds.
func (Export) CheckRoots(uris []string, minItems, maxItems int) Problems {
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

// The client's answer to one input request, as Round.Response returns it,
// and what the client did (one definition, in mrtr/internal/response: the
// engine fills it, generated code never names it).
type response = answer.Response

const (
	missing   = answer.Missing
	accepted  = answer.Accepted
	declined  = answer.Declined
	cancelled = answer.Cancelled
	malformed = answer.Malformed
)
