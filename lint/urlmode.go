package lint

import (
	"regexp"
	"strings"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// The rules of URL-mode elicitation (elicitUrl): accepting the URL is not
// the step, and the URL is no credential.
var urlRules = []*Rule{
	{
		ID: "url-step-unverified", Severity: spec.Error,
		Summary: "the state after a URL-mode elicitation is not a check",
		Hint:    "make next a check that asks the service whether the step was completed, by this user for this workflow",
		Why: `A URL-mode elicitation sends the user to a page outside the client (an OAuth consent,
a card form, an identity check). "accept" only says the user agreed to open it: not that
they finished, nor that the one who finished is the caller. The MCP 2026-07-28 revision
has no completion notification; the server must verify on the next round. The state
after the ask must therefore be a check, whose method asks the service (by
f.Call.Principal and f.Call.WorkflowID) and refuses, or asks again with askAgain, when
the step is not done.`,
		Bad: `askGrant:
  ask:
    grant:
      elicitUrl: {message: Grant access, url: '/oob/grant/{workflowId}'}
  next: enableSync`,
		Good: `askGrant:
  ask:
    grant:
      elicitUrl: {message: Grant access, url: '/oob/grant/{workflowId}'}
  next: verifyGrant
verifyGrant:
  check: grantCompleted
  next: enableSync`,
		check: checkURLStepVerified,
	},
	{
		ID: "url-carries-credential", Severity: spec.Error,
		Summary: "the URL of a URL-mode elicitation carries a credential",
		Hint:    "pass an id ({workflowId}) and let the page authenticate the user itself",
		Why: `The URL passes through the client, its logs and the user's browser history; whoever
has it may open it. It must not be a pre-authenticated link: no token, code, key,
signature or session in its query, and no placeholder naming a secret (a sensitive
value is sensitive-in-template's). The page the URL opens signs the user in itself, and
the check after the ask verifies the step for the caller of the workflow.`,
		Bad:   `url: 'https://pay.example.com/confirm?token={paymentToken}'`,
		Good:  `url: 'https://pay.example.com/confirm/{workflowId}'`,
		check: checkURLCredential,
	},
}

// urlRequests calls fn for every URL-mode elicitation of the file.
func (c *checker) urlRequests(fn func(t *spec.Tool, s *spec.State, q *spec.InputRequest)) {
	for _, t := range c.file.Workflows() {
		for _, s := range t.States {
			for _, q := range s.Requests {
				if q.Kind == vocab.ElicitURL {
					fn(t, s, q)
				}
			}
		}
	}
}

func checkURLStepVerified(c *checker, r *Rule) {
	c.urlRequests(func(t *spec.Tool, s *spec.State, q *spec.InputRequest) {
		if s.Next == nil {
			return
		}
		next := t.State(s.Next.Name)
		if next == nil || next.Kind == vocab.StateCheck {
			return
		}
		c.report(r, q.Pos, c.toolScope(t, q.Lint, s.Lint), "%s %q: state %q goes on to %s state %q after the URL step %q: accepting the URL does not mean the step was completed; verify it in a check",
			t.Kind, t.Name, s.Name, next.Kind, next.Name, q.Key)
	})
}

// credentialParams are query parameter names of links that authenticate
// whoever holds them (besides the names secretName recognises).
var credentialParams = map[string]bool{
	"code": true, "auth": true, "authorization": true, "session": true, "sessionid": true, "sid": true,
	"sig": true, "signature": true, "key": true, "jwt": true, "ticket": true, "login": true,
}

var queryParam = regexp.MustCompile(`[?&]([^=&#]+)=`)

func checkURLCredential(c *checker, r *Rule) {
	c.urlRequests(func(t *spec.Tool, s *spec.State, q *spec.InputRequest) {
		if q.URL == nil {
			return
		}
		sc := c.toolScope(t, q.Lint, s.Lint)
		var literal strings.Builder
		for _, p := range q.URL.Parts {
			if p.Ref == nil {
				literal.WriteString(p.Literal)
				continue
			}
			literal.WriteString("x") // a value between literals
			name := p.Ref.Path[len(p.Ref.Path)-1]
			if w := secretName(name); w != "" {
				c.report(r, p.Ref.Pos, sc, "%s %q: the URL of %q renders {%s}, named like a secret (%s): a link carrying it authenticates whoever holds it",
					t.Kind, t.Name, q.Key, p.Ref.Name(), w)
			}
		}
		for _, m := range queryParam.FindAllStringSubmatch(literal.String(), -1) {
			name := m[1]
			if credentialParams[strings.ToLower(name)] || secretName(name) != "" {
				c.report(r, q.URL.Pos, sc, "%s %q: the URL of %q has the query parameter %q, which makes it a pre-authenticated link",
					t.Kind, t.Name, q.Key, name)
			}
		}
	})
}
