package mrtrtest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

// recorder is a testing.TB that keeps the errors reported to it.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestBrokenReportsAMissingCheck(t *testing.T) {
	valid := map[string]any{"name": "ok"}
	lax := func(map[string]any) mrtr.Problems { return nil }
	strict := func(in map[string]any) mrtr.Problems {
		if s, _ := in["name"].(string); len(s) > 3 {
			return mrtr.Problems{"name: at most 3 characters (got 4)"}
		}
		return nil
	}
	r := &recorder{TB: t}
	mrtrtest.Broken(r, strict, valid, "name", "long", "name: at most 3 characters")
	if len(r.errors) != 0 {
		t.Fatalf("a validator that reports the problem failed: %q", r.errors)
	}
	mrtrtest.Broken(r, lax, valid, "name", "long", "name: at most 3 characters")
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], `want one starting "name: at most 3 characters"`) {
		t.Fatalf("a validator that lost the check passed: %q", r.errors)
	}
	if valid["name"] != "ok" {
		t.Fatal("Broken changed the valid input")
	}
	r.errors = nil
	refuseAll := func(map[string]any) mrtr.Problems { return mrtr.Problems{"name: at most 3 characters"} }
	mrtrtest.Broken(r, refuseAll, valid, "name", "long", "name: at most 3 characters")
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "the valid input") {
		t.Fatalf("a validator that refuses valid input passed: %q", r.errors)
	}
}

func TestArgumentDecoderRunsNewFlow(t *testing.T) {
	decode := mrtrtest.ArgumentDecoder(testprog.NewTransferProgram(&testprog.TransferImpl{}))
	if ps := decode(map[string]any{"account": "acc-000", "amount": int64(1)}); len(ps) != 0 {
		t.Fatalf("valid arguments: %q", ps)
	}
	ps := decode(map[string]any{"amount": int64(1), "extra": true})
	if !strings.Contains(strings.Join(ps, "\n"), "account: required") {
		t.Fatalf("arguments without the required account: %q", ps)
	}
}
