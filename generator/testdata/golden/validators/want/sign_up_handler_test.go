// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package signup

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestSignUpHandler drives SignUpImpl through one sign_up workflow as a client would:
// typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As
// another caller for the next rounds, d.Replay a round. The workflow starts as h.Principal
// ("alice" unless you set it): set h.Principal before DriveSignUp to start one as another caller.
func TestSignUpHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewSignUpProgram(&SignUpImpl{}))
	d := DriveSignUp(t, h, SignUpArgs{Email: "ada@example.com"})
	d.WantAsks("terms", "welcome")
	d.Answer(
		SignUpTermsAnswer{
			Accepted: true,
			Motto:    new("example"),
			Share:    new(1.0),
			Topics:   []SignUpTopics{SignUpTopicsNews},
		},
		mrtrtest.Respond("welcome", mrtrtest.Text("A sampled answer.")),
	)
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestSignUpHandlerMatrix runs the MRTR test matrix against SignUpImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestSignUpHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &SignUpImpl{}
	mrtrtest.RunMatrix(t, NewSignUpProgram(h), mrtrtest.Fixtures{
		Answers: mrtrtest.Answers(
			SignUpTermsAnswer{
				Accepted: true,
				Motto:    new("example"),
				Share:    new(1.0),
				Topics:   []SignUpTopics{SignUpTopicsNews},
			},
			mrtrtest.Respond("welcome", mrtrtest.Text("A sampled answer.")),
		),
		Args: map[string]any{"email": "ada@example.com"},
		Invalid: map[string]mcp.InputResponse{
			"terms":   mrtrtest.Accept(map[string]any{"accepted": "not a number"}),
			"welcome": mrtrtest.Text(strings.Repeat("x", 121)),
		},
		Other:        "bob",
		OtherArgs:    map[string]any{"email": "grace@example.com"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
