// Hand-written tests of the generated code of this case, run next to it
// by TestGoldenCompile: each placeholder kind renders its value, absent
// values render as nothing, and {{ }} are literal braces.
package notify

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

func ptr[T any](v T) *T { return &v }

func TestTemplates(t *testing.T) {
	full := &SendNoticeFlow{
		Call: &mrtr.Call{WorkflowID: "wf1"},
		Args: SendNoticeArgs{
			To: "ops", Cc: ptr("dev"), Count: 2, Retries: ptr(int64(1)), Ratio: 0.5, Factor: ptr(1e-7),
			Urgent: true, Silent: ptr(false), Level: SendNoticeLevelHigh, Mood: ptr(SendNoticeMoodCalm), Labels: []string{"a", "b"},
		},
		Continuation: SendNoticeContinuation{Subject: "Outage", Sent: 3, Cost: 1.25, Queued: true, Channel: SendNoticeChannelChat, Recipients: []string{"x@y"}},
		Details: &SendNoticeDetailsAnswer{
			Title: "T", Note: ptr("n"), Copies: 2, Extra: ptr(int64(0)), Weight: 1.5, Bonus: ptr(0.0),
			Pin: true, Mute: ptr(true), Tone: SendNoticeToneFormal, Font: ptr(SendNoticeFontSans), Badges: []SendNoticeBadges{SendNoticeBadgesHot},
		},
		Draft:  &mrtr.Sampled{Text: "Hello"},
		Places: &mrtr.RootList{URIs: []string{"file:///a", "file:///b"}},
	}
	empty := &SendNoticeFlow{Call: &mrtr.Call{WorkflowID: "wf2"}}
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"compose, full", sendNoticeComposeDetailsMessage(full), `Compose notice {#wf1} "Outage" to ops (cc dev): 2x, 1 retries, ratio 0.5, factor 0.0000001, urgent true, silent false, level high, mood calm, labels a, b; 3 sent, cost 1.25, queued true, via chat to x@y.`},
		{"compose, empty", sendNoticeComposeDetailsMessage(empty), `Compose notice {#wf2} "" to  (cc ): 0x,  retries, ratio 0, factor , urgent false, silent , level , mood , labels ; 0 sent, cost 0, queued false, via  to .`},
		{"prompt", sendNoticeComposeDraftPrompt(full), "Draft a notice to ops about Outage."},
		{"gate, full", sendNoticeConfirmSendMessage(full), `Send "T" (n) x2+0, weight 1.5+0, pin true, mute true, formal/sans, badges hot, drafted as "Hello" with files from file:///a, file:///b?`},
		{"gate, no answers", sendNoticeConfirmSendMessage(empty), `Send "" () x+, weight +, pin , mute , /, badges , drafted as "" with files from ?`},
		{"operation id", sendNoticeSendOperationID(full), "notice-ops-2-0.5-true-high-T-2-true-formal-Outage-3-wf1"},
		{"literal", sendNoticeSentMessage(full), "Sent. {done}"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, tc.got, tc.want)
		}
	}
}
