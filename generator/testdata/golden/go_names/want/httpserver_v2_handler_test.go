// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package names

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestHTTPServerV2Handler drives HTTPServerV2Impl through one HTTPServer-v2 workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveHTTPServerV2 to start one as another caller.
func TestHTTPServerV2Handler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewHTTPServerV2Program(&HTTPServerV2Impl{}))
	d := DriveHTTPServerV2(t, h, HTTPServerV2Args{ID: "example"})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestHTTPServerV2HandlerMatrix runs the MRTR test matrix against HTTPServerV2Impl.
// Fixtures.Variants cover the branches the fixture workflow does not take;
// Fixtures.Scenarios a scenario that needs other callers or arguments.
func TestHTTPServerV2HandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &HTTPServerV2Impl{}
	mrtrtest.RunMatrix(t, NewHTTPServerV2Program(h), mrtrtest.Fixtures{
		Args:         map[string]any{"ID": "example"},
		Other:        "bob",
		OtherArgs:    map[string]any{"ID": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
