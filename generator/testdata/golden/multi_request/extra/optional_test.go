// Hand-written tests of the generated code of this case, run next to it
// by TestGoldenCompile: optional requests are left out when the client
// cannot answer them, and a round that can ask none of them fails with
// -32021.
package release

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

func TestOptionalRequests(t *testing.T) {
	for _, tc := range []struct {
		caps []string
		asks []string // nil: the round fails with -32021
	}{
		{[]string{"elicitation", "sampling", "roots"}, []string{"folders", "title"}},
		{[]string{"sampling"}, []string{"title"}},
		{[]string{"roots"}, []string{"folders"}},
		{[]string{"elicitation"}, nil},
		{nil, nil},
	} {
		h := mrtrtest.New(t, NewSuggestTitleProgram(&fakeSuggestTitle{}))
		h.Capabilities = mrtrtest.Capabilities(tc.caps...)
		reply, err := h.Call(context.Background(), map[string]any{"topic": "Go"}, "", nil)
		if tc.asks == nil {
			if code := mrtrtest.ErrorCode(err); code != -32021 {
				t.Errorf("%v: %v %+v, want -32021", tc.caps, err, reply)
			}
			continue
		}
		if err != nil || !reply.NeedsInput() {
			t.Fatalf("%v: %v %+v", tc.caps, err, reply)
		}
		if got := slices.Sorted(maps.Keys(reply.InputRequests)); !slices.Equal(got, tc.asks) {
			t.Errorf("%v: asks %v, want %v", tc.caps, got, tc.asks)
		}
		// The mixed state of draft_release leaves out what it cannot ask.
		h2 := mrtrtest.New(t, NewDraftReleaseProgram(&fakeDraftRelease{}))
		h2.Capabilities = mrtrtest.Capabilities(tc.caps...)
		r2, err := h2.Call(context.Background(), map[string]any{"version": "v1.2.3"}, "", nil)
		if slices.Contains(tc.caps, "elicitation") {
			want := []string{"audience"}
			if slices.Contains(tc.caps, "sampling") {
				want = append(want, "outline")
			}
			if slices.Contains(tc.caps, "roots") {
				want = append(want, "workspace")
			}
			if err != nil || !slices.Equal(slices.Sorted(maps.Keys(r2.InputRequests)), want) {
				t.Errorf("draft_release with %v: %v %+v, want %v", tc.caps, err, r2, want)
			}
		} else if mrtrtest.ErrorCode(err) != -32021 {
			t.Errorf("draft_release without elicitation: %v", err)
		}
	}
}
