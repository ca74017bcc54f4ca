package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestMain lets the driver start this test binary as its server (serve
// mode), as it starts its own binary in a real run.
func TestMain(m *testing.M) {
	if v := os.Getenv(envServe); v != "" {
		os.Exit(serve(v))
	}
	os.Exit(m.Run())
}

// TestLoadTiny runs the driver at a tiny N on the memory store (one
// instance and three), both variants: every workflow must complete, every
// effect be counted once, and the report carry both variants and the
// ratios.
func TestLoadTiny(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	code := run([]string{"-n", "30", "-c", "5", "-duration", "15s", "-stores", "memory:", "-instances", "1,3", "-exe", exe}, &out, &errs)
	t.Logf("stdout:\n%s\nstderr:\n%s", out.String(), errs.String())
	if code != 0 {
		t.Fatalf("run exited %d", code)
	}
	for _, want := range []string{"generated", "handwritten", "generated/hand-written"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Four runs of 30 workflows: ok 30, errors 0, effects 30 on each line.
	runs := 0
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[0] != "memory" || (f[2] != "generated" && f[2] != "handwritten") {
			continue
		}
		runs++
		if f[3] != "30" || f[4] != "0" || f[5] != "30" {
			t.Errorf("want 30 ok, 0 errors, 30 effects: %s", line)
		}
	}
	if runs != 4 {
		t.Errorf("want 4 runs in the report, got %d", runs)
	}
}

// TestRunRejectsBadFlags: bad input is refused before anything starts.
func TestRunRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-n", "0"}, {"-variants", "fast"}, {"-instances", "x"}} {
		var out, errs bytes.Buffer
		if code := run(args, &out, &errs); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, errs.String())
		}
	}
}
