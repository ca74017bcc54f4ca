// Hand-written tests of the generated code of this case, run next to it
// by TestGoldenCompile: each kind of section shows its text when it should,
// the "else" when it should not, and a per-item section once per item.
package releases

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

func TestSections(t *testing.T) {
	text := "ship it"
	full := &TagReleaseFlow{
		Call: &mrtr.Call{WorkflowID: "wf1"},
		Args: TagReleaseArgs{ReleaseID: "v2", Regions: []TagReleaseRegions{TagReleaseRegionsEu, TagReleaseRegionsAp}},
		Continuation: TagReleaseContinuation{
			Services: []mrtr.Option{{Value: "api", Title: "Public API"}, {Value: "web"}},
			Shards:   []int64{1, 12000},
		},
		Note:   &TagReleaseNoteAnswer{Text: &text, Picked: []string{"api"}},
		Places: &mrtr.RootList{URIs: []string{"file:///a", "file:///b"}},
	}
	bare := &TagReleaseFlow{Call: &mrtr.Call{WorkflowID: "wf2"}, Args: TagReleaseArgs{ReleaseID: "v3"}}
	answeredEmpty := &TagReleaseFlow{Call: &mrtr.Call{WorkflowID: "wf3"}, Args: TagReleaseArgs{ReleaseID: "v4"}, Note: &TagReleaseNoteAnswer{}}
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"ask, regions and shards", tagReleaseAskNoteNoteMessage(full), "Tag v2? Regions: Europe; Asia Pacific; #1 #12,000"},
		{"ask, no regions: the else", tagReleaseAskNoteNoteMessage(bare), "Tag v3? All regions."},
		{"end, answered in full", tagReleaseDoneMessage(full), "Tagged v2. With a note: ship it [api] (Public API) (web). <file:///a> <file:///b>"},
		{"end, answered with nothing in it", tagReleaseDoneMessage(answeredEmpty), "Tagged v4. With a note."},
		{"end, declined: the else", tagReleaseDoneMessage(bare), "Tagged v3. Without a note."},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, tc.got, tc.want)
		}
	}
}
