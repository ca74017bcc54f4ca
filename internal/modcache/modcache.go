// Package modcache prepares the module cache for tests that run the go
// command in a module of their own (a walkthrough, a quick start, the
// golden files). Those tests run go with GOPROXY=off, so that a module
// they forgot to provide fails at once instead of slowing the test down
// or making it depend on the network; this package is what provides the
// modules: it downloads this repository's module graph once, with the
// caller's own GOPROXY, before GOPROXY=off takes over.
package modcache

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

var (
	once sync.Once
	err  error
)

// Download runs "go mod download all" in root (this repository's module
// root) with the environment of the test (its GOPROXY, GOMODCACHE and
// GOFLAGS), once per test binary. "all" is every module of the module
// graph: also those needed only on other platforms
// (github.com/inconshreveable/mousetrap, which cobra imports on Windows)
// and by the tests of dependencies (github.com/bsm/ginkgo/v2, for
// go-redis), which go get -tool and go mod tidy in a new module that
// requires mrtrgen look up. On a warm cache it does not touch the network:
// every version is pinned by go.mod and verified against go.sum.
func Download(root string) error {
	once.Do(func() {
		// On copies of go.mod and go.sum: go mod download all records the
		// checksums of every module it fetches, and a test must not edit
		// the checkout's go.sum.
		tmp, e := os.MkdirTemp("", "modcache")
		if e != nil {
			err = e
			return
		}
		defer os.RemoveAll(tmp)
		for _, f := range []string{"go.mod", "go.sum"} {
			b, e := os.ReadFile(filepath.Join(root, f))
			if e == nil {
				e = os.WriteFile(filepath.Join(tmp, f), b, 0o644)
			}
			if e != nil {
				err = e
				return
			}
		}
		cmd := exec.Command("go", "mod", "download", "-modfile="+filepath.Join(tmp, "go.mod"), "all")
		cmd.Dir = root
		// A workspace of the caller would change the module graph; the
		// caller's -mod flag does not apply to go mod.
		cmd.Env = append(withoutKey(withoutKey(os.Environ(), "GOWORK"), "GOFLAGS"), "GOWORK=off", "GOFLAGS="+otherFlags())
		out, e := cmd.CombinedOutput()
		if e != nil {
			err = fmt.Errorf("go mod download all in %s (needed before the go commands of this test run with GOPROXY=off): %w\n%s", root, e, out)
		}
	})
	return err
}

// otherFlags is GOFLAGS without -mod and -modfile.
func otherFlags() string {
	var out []string
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if !strings.HasPrefix(f, "-mod=") && !strings.HasPrefix(f, "-modfile=") {
			out = append(out, f)
		}
	}
	return strings.Join(out, " ")
}

func withoutKey(env []string, key string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return out
}
