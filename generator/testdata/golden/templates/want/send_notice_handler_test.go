// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package notify

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestSendNoticeHandler drives SendNoticeImpl through one send_notice workflow as a client would:
// typed arguments, each question answered with its typed answer, what it asks and how it ends
// checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another caller
// for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless you set
// it): set h.Principal before DriveSendNotice to start one as another caller.
func TestSendNoticeHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewSendNoticeProgram(&SendNoticeImpl{}))
	d := DriveSendNotice(t, h, SendNoticeArgs{
		Count:  1,
		Level:  SendNoticeLevelLow,
		Ratio:  1.0,
		To:     "example",
		Urgent: true,
	})
	d.WantAsks("details", "draft", "places")
	d.Answer(
		SendNoticeDetailsAnswer{
			Badges: []SendNoticeBadges{SendNoticeBadgesNew},
			Bonus:  new(1.0),
			Copies: 1,
			Extra:  new(int64(1)),
			Font:   new(SendNoticeFontSerif),
			Mute:   new(true),
			Note:   new("example"),
			Pin:    true,
			Title:  "example",
			Tone:   SendNoticeTonePlain,
			Weight: 1.0,
		},
		mrtrtest.Respond("draft", mrtrtest.Text("A sampled answer.")),
		mrtrtest.Respond("places", mrtrtest.RootsOf("file:///workspace/1")),
	)
	d.WantAsks("confirm")
	d.Confirm()
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestSendNoticeHandlerMatrix runs the MRTR test matrix against SendNoticeImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestSendNoticeHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &SendNoticeImpl{}
	mrtrtest.RunMatrix(t, NewSendNoticeProgram(h), mrtrtest.Fixtures{
		Answers: mrtrtest.Answers(
			SendNoticeDetailsAnswer{
				Badges: []SendNoticeBadges{SendNoticeBadgesNew},
				Bonus:  new(1.0),
				Copies: 1,
				Extra:  new(int64(1)),
				Font:   new(SendNoticeFontSerif),
				Mute:   new(true),
				Note:   new("example"),
				Pin:    true,
				Title:  "example",
				Tone:   SendNoticeTonePlain,
				Weight: 1.0,
			},
			mrtrtest.Respond("draft", mrtrtest.Text("A sampled answer.")),
			mrtrtest.Respond("places", mrtrtest.RootsOf("file:///workspace/1")),
		),
		Args: map[string]any{"count": int64(1), "level": "low", "ratio": 1.0, "to": "example", "urgent": true},
		Invalid: map[string]mcp.InputResponse{
			"details": mrtrtest.Accept(map[string]any{
				"copies": "not a number",
				"pin":    true,
				"title":  "example",
				"tone":   "plain",
				"weight": 1.0,
			}),
			"draft":  mrtrtest.Text(strings.Repeat("x", 501)),
			"places": mrtrtest.RootsOf("file:///workspace/1", "file:///workspace/2", "file:///workspace/3"),
		},
		Other:        "bob",
		OtherArgs:    map[string]any{"count": int64(2), "level": "high", "ratio": 1.0, "to": "another", "urgent": false},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
