package lint

import "testing"

// A gate's key names an inputRequests entry, never a Go identifier: a gate
// keyed "state" (the Go name of a member every flow has) generates and
// compiles, so lint has nothing to say about it.
func TestGateKeyIsNotAFlowMember(t *testing.T) {
	const src = `version: 1
package: gate
tools:
  wipe:
    description: Wipes a thing after the user confirms it.
    destructive: true
    arguments:
      thingId: {type: string, required: true, maxLength: 36}
    continuation:
      ttl: 5m
    initial: confirm
    states:
      confirm:
        confirm:
          key: state
          message: Wipe thing {thingId}?
        next: wipe
      wipe:
        effect: wipeThing
        irreversible: true
        next: done
      done:
        terminal: success
        message: Wiped {thingId}.
`
	f, ds := loadAndLint("gate.mrtr.yaml", []byte(src))
	if f == nil || ds.HasErrors() {
		t.Fatalf("a gate keyed %q is refused:\n%s", "state", ds.Error())
	}
}
