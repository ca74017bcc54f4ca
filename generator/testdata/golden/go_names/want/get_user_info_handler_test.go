// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package names

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestGetUserInfoHandler drives GetUserInfoImpl through one get-user.info workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveGetUserInfo to start one as another caller.
func TestGetUserInfoHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewGetUserInfoProgram(&GetUserInfoImpl{}))
	d := DriveGetUserInfo(t, h, GetUserInfoArgs{
		Type:   GetUserInfoTypeAB,
		UserID: "example",
	})
	d.WantAsks("sso_URL")
	d.Answer(GetUserInfoSSOURLAnswer{
		State:  GetUserInfoSSOURLStateCA,
		String: GetUserInfoStringGo,
		URL:    "https://example.com/a",
	})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestGetUserInfoHandlerMatrix runs the MRTR test matrix against GetUserInfoImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestGetUserInfoHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &GetUserInfoImpl{}
	mrtrtest.RunMatrix(t, NewGetUserInfoProgram(h), mrtrtest.Fixtures{
		Answers: mrtrtest.Answers(GetUserInfoSSOURLAnswer{
			State:  GetUserInfoSSOURLStateCA,
			String: GetUserInfoStringGo,
			URL:    "https://example.com/a",
		}),
		Args: map[string]any{"userId": "example"},
		Invalid: map[string]mcp.InputResponse{"sso_URL": mrtrtest.Accept(map[string]any{
			"string": 12345,
			"url":    "https://example.com/a",
		})},
		Other:        "bob",
		OtherArgs:    map[string]any{"userId": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
