package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeApprovals runs the commands of examples/server/README.md's
// "Approvals: send_payout" as written (bash, curl and jq), against a server
// on a free port instead of localhost:8080, and checks what the README
// says they print: the approval waits, bob's decision is "approved", and
// alice's next call sends the payout.
func TestReadmeApprovals(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("the README's walkthrough needs %s, which is not on PATH", tool)
			}
			t.Skipf("the README's walkthrough needs %s, which is not on PATH (install it to run this test)", tool)
		}
	}
	script := readmeSection(t, "## Approvals: send_payout")
	if !strings.Contains(script, "localhost:8080") {
		t.Fatal("the README's approvals section calls no server at localhost:8080")
	}
	s := start(t, "memory:", testRing(t), "readme")
	script = strings.ReplaceAll(script, "localhost:8080", strings.TrimPrefix(s.base, "http://"))
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's commands failed: %v\n%s", err, out)
	}
	got := string(out)
	for _, want := range []string{
		`Waiting for approval: "Send 2,500.00 EUR to pay_acme?". It must be approved by someone in finance other than alice before `,
		"\n\"approved\"\n",
		"\nSent 2,500.00 EUR to pay_acme; payout po_",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the README's commands did not print %q; they printed:\n%s", want, got)
		}
	}
	if n := payoutsSent(t, s, "pay_acme"); n != 1 {
		t.Errorf("%d payouts sent to pay_acme, want 1", n)
	}
}

// readmeSection returns the indented code blocks of a section of
// examples/server/README.md, in order, as one script.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("examples/server/README.md has no %q section", heading)
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	var script []string
	for _, line := range strings.Split(sec, "\n") {
		if code, ok := strings.CutPrefix(line, "    "); ok {
			script = append(script, code)
		}
	}
	if len(script) == 0 {
		t.Fatalf("the README's %q section has no commands", heading)
	}
	return strings.Join(script, "\n") + "\n"
}
