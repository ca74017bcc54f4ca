package generator_test

import (
	"regexp"
	"strings"
	"testing"
)

// A form a check asks again is prefilled with the refused answer, but a
// sensitive field never becomes a default: a default is sent to the client
// and kept in the round's record.
func TestAskAgainPrefillLeavesSensitiveFieldsOut(t *testing.T) {
	p := writeSpec(t, t.TempDir(), "prefill.mrtr.yaml", `version: 1
package: prefill
tools:
  unlock:
    description: Unlocks a vault with a code and a reason.
    initial: askCode
    states:
      askCode:
        ask:
          code:
            elicit:
              message: Code and reason?
              fields:
                otp: {type: string, required: true, maxLength: 10, sensitive: true}
                reason: {type: string, required: true, maxLength: 40}
                note: {type: string, maxLength: 40}
        next: verify
      verify:
        check: codeIsRight
        next: done
        askAgain: {state: askCode, maxAttempts: 3, onExhausted: locked}
      done: {terminal: success, message: Unlocked.}
      locked: {terminal: failed, message: Locked.}
`)
	for _, file := range generateSpec(t, p) {
		if !strings.HasSuffix(file.Path, "unlock.mrtr.go") {
			continue
		}
		body := regexp.MustCompile(`(?s)func \(unlockProgram\) givenCode\(.*?\n}\n`).Find(file.Content)
		if body == nil {
			t.Fatalf("no givenCode:\n%s", file.Content)
		}
		if strings.Contains(string(body), `m["otp"]`) {
			t.Fatalf("the sensitive field is prefilled:\n%s", body)
		}
		for _, want := range []string{`m["reason"] = a.Reason`, `if a.Note != nil {`} {
			if !strings.Contains(string(body), want) {
				t.Fatalf("givenCode lacks %q:\n%s", want, body)
			}
		}
		return
	}
	t.Fatal("no unlock.mrtr.go")
}
