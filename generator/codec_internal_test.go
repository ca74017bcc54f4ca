package generator

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
	"github.com/mrtrgen/mrtrgen/spec"
)

// The generator computes the keys of the tagged encoding without importing
// the runtime, and spec numbers its wire kinds (what mrtrgen breaking
// compares) without it: both must be the runtime's.
func TestCodecAgreesWithBinenc(t *testing.T) {
	for _, name := range []string{"", "a", "continuation", "answers", "gates", "closeReason", "ünïcødé", "f6059"} {
		if got, want := fieldKey(name), binenc.FieldKey(name); got != want {
			t.Errorf("fieldKey(%q) = %#x, binenc.FieldKey = %#x", name, got, want)
		}
	}
	for k := spec.WireBool; k <= spec.WireGroup; k++ {
		if got := binenc.Kind(k).String(); got != k.String() {
			t.Errorf("wire kind %d is %s in spec and %s in binenc", k, k, got)
		}
	}
}

// An approval gate's digest (its revision) covers its policy: each change
// of the policy, or adding or removing it, is another digest; a gate
// without approval keeps the digest it had before approvals existed.
func TestGateDigestCoversApproval(t *testing.T) {
	digest := func(approval string) uint64 {
		t.Helper()
		src := "version: 1\npackage: p\ntools:\n  pay:\n    description: Pay.\n    initial: approve\n    states:\n      approve:\n        confirm:\n          message: Pay now?\n" +
			approval + "        next: done\n      done: {terminal: success, message: paid}\n"
		f, ds := spec.Parse("p.mrtr.yaml", []byte(src), spec.Options{})
		if f == nil || ds.HasErrors() {
			t.Fatalf("%s\n%s", src, ds.Error())
		}
		return gateDigest(f.Tools[0].State("approve"))
	}
	plain := digest("")
	// (A plain gate keeps its old digest: the goldens pin theirs.)
	seen := map[uint64]string{plain: "none"}
	for _, a := range []string{
		"{}",
		"{count: 2}",
		"{requester: page}",
		"{requester: chat}",
		"{approvers: finance}",
		"{approvers: managers}",
		"{deadline: 48h}",
		"{remind: [1h]}",
		"{remind: [2h]}",
		"{escalate: {after: 1h, to: cfo}}",
		"{escalate: {after: 2h, to: cfo}}",
		"{escalate: {after: 1h, to: ceo}}",
	} {
		d := digest("          approval: " + a + "\n")
		if other, dup := seen[d]; dup {
			t.Errorf("approval %s has the digest of %s", a, other)
		}
		seen[d] = a
	}
	if d := digest("          approval: {count: 1, requester: excluded, deadline: 24h}\n"); d != digest("          approval: {}\n") {
		t.Error("the defaults written out change the digest")
	}
}
