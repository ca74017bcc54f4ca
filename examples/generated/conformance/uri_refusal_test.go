package conformance

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

// The embedded resource's uri is the caller's resourceUri as given (the
// spec opts out of content-uri-from-value): the engine still refuses a URI
// that would run script, carry its own content, climb out of its path or
// hide a control character, and the prompt ends rejected without sending
// it.
func TestAHostileResourceURIIsNeverSent(t *testing.T) {
	h := mrtrtest.New(t, NewTestPromptWithEmbeddedResourceProgram(&TestPromptWithEmbeddedResourceImpl{}))
	DriveTestPromptWithEmbeddedResource(t, h, TestPromptWithEmbeddedResourceArgs{ResourceURI: "test://embedded/notes"}).
		WantEnd(mrtr.OutcomeSuccess, "")
	for _, uri := range []string{
		"javascript:alert(1)",
		"JAVASCRIPT:alert(1)",
		"data:text/html,<script>alert(1)</script>",
		"vbscript:msgbox(1)",
		"file:///srv/reports/../../etc/passwd",
		"test://embedded/%2e%2e/secrets",
		"test://embedded/a\\b",
	} {
		d := DriveTestPromptWithEmbeddedResource(t, h, TestPromptWithEmbeddedResourceArgs{ResourceURI: uri})
		if d.Err() == nil {
			d.WantEnd(mrtr.OutcomeRejected, "test_prompt_with_embedded_resource: a URI built from the values given is not allowed")
		}
		if r := d.Reply(); r != nil && r.Final != nil && r.Final.Outcome == mrtr.OutcomeSuccess {
			t.Errorf("resourceUri %q was sent", uri)
		}
	}
}
