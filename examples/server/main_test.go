package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/seal"
)

func TestGenkey(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-genkey"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if _, err := seal.ParseRing(out.String()); err != nil {
		t.Fatalf("-genkey printed %q, not a key ring entry: %v", out.String(), err)
	}
}

func TestRefusesToStartWithoutKeys(t *testing.T) {
	t.Setenv(seal.EnvKeys, "")
	t.Setenv(seal.EnvKeysFile, "")
	var out, errOut bytes.Buffer
	code := run([]string{"-store", "memory:", "-addr", "127.0.0.1:0"}, &out, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "no requestState key configured") ||
		!strings.Contains(errOut.String(), "-genkey") || !strings.Contains(errOut.String(), "-dev") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut.String())
	}
}

func TestRefusesBadKeys(t *testing.T) {
	t.Setenv(seal.EnvKeys, "1:tooshort")
	t.Setenv(seal.EnvKeysFile, "")
	var out, errOut bytes.Buffer
	// Even with -dev: configured keys that do not parse are an error.
	if code := run([]string{"-dev", "-store", "memory:"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), seal.EnvKeys) {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut.String())
	}
	if strings.Contains(errOut.String(), "tooshort") {
		t.Fatal("the error echoes the secret")
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-nope"}, {"extra"}, {"-log-level", "loud", "-dev"}, {"-log-format", "xml", "-dev"}} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}
