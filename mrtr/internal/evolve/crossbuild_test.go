//go:build unix

package evolve_test

import (
	"bufio"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/evolve/evolvetest"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storeopen"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

// Two builds of one server, before and after a spec change, side by side
// as in a rolling deploy: two processes, one key ring, one store (a SQLite
// file, then PostgreSQL). Every change of docs/evolution.md is played in
// each direction it allows: a workflow started on one process finishes on
// the other when the change is compatible, and is refused with the
// documented reason in the other process's log when it is not.
func TestCrossBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the build of two servers")
	}
	bins := buildServers(t)
	key, err := seal.GenerateKeySpec(1)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("sqlite", func(t *testing.T) {
		playFleet(t, bins, key, "sqlite:"+filepath.Join(t.TempDir(), "fleet.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		base := storetest.PostgresURL(t)
		prefix := storetest.UniqueName() + "_"
		t.Cleanup(func() { dropPostgres(base, prefix) })
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set(storeopen.PrefixParam, prefix)
		u.RawQuery = q.Encode()
		playFleet(t, bins, key, u.String())
	})
}

// buildServers builds cmd/before and cmd/after with one go build.
func buildServers(t *testing.T) map[string]string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command builds the two servers: %v", err)
	}
	dir := t.TempDir()
	began := time.Now()
	cmd := exec.Command(gobin, "build", "-o", dir+string(filepath.Separator), "./cmd/before", "./cmd/after")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Logf("built both servers in %v", time.Since(began).Round(time.Millisecond))
	return map[string]string{evolvetest.Before: filepath.Join(dir, "before"), evolvetest.After: filepath.Join(dir, "after")}
}

func playFleet(t *testing.T, bins map[string]string, key, storeURL string) {
	ctx := context.Background()
	b := startBuild(t, bins, evolvetest.Before, key, storeURL)
	a := startBuild(t, bins, evolvetest.After, key, storeURL)
	for _, c := range evolvetest.Cases {
		for _, d := range c.Directions(b, a) {
			t.Run(c.Name+"/"+d[0].Name+" to "+d[1].Name, func(t *testing.T) {
				if err := evolvetest.Play(ctx, c, d[0], d[1]); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// startBuild runs one server process, waits until it listens, and
// connects a client; its log (JSON, one record a line) is where the
// reasons of its refusals are read.
func startBuild(t *testing.T, bins map[string]string, name, key, storeURL string) *evolvetest.Build {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bins[name], "-store", storeURL)
	cmd.Env = append(os.Environ(), seal.EnvKeys+"="+key)
	cmd.Stderr = logFile
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("%s did not stop on SIGTERM", name)
		}
		logFile.Close()
	})
	endpoint := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				endpoint <- u
			}
		}
	}()
	var u string
	select {
	case u = <-endpoint:
	case <-exited:
		log, _ := os.ReadFile(logPath)
		t.Fatalf("%s exited before listening:\n%s", name, log)
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not listen within 30s", name)
	}
	cs, err := evolvetest.Connect(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &evolvetest.Build{Name: name, Session: cs, Rejections: func(tool string) []string {
		log, err := os.ReadFile(logPath)
		if err != nil {
			t.Error(err)
		}
		return evolvetest.ReasonsInJSONLog(log, tool)
	}}
}

func dropPostgres(base, prefix string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	for _, table := range []string{"ops", "states"} {
		if _, err := conn.Exec(ctx, fmt.Sprintf("DROP TABLE IF EXISTS %s%s", prefix, table)); err != nil {
			return // best effort: leftovers have unique prefixes
		}
	}
}
