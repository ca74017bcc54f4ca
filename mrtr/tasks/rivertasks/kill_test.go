package rivertasks

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The child process of TestKilledInstanceIsRescued is this test binary run
// again with these variables set: it runs TestChildInstance.
const (
	childDriverEnv = "MRTR_RIVERTASKS_CHILD_DRIVER" // "postgres" or "sqlite"
	childDSNEnv    = "MRTR_RIVERTASKS_CHILD_DSN"    // PostgreSQL URL or SQLite file
	childSchemaEnv = "MRTR_RIVERTASKS_CHILD_SCHEMA" // PostgreSQL schema
	childMarkEnv   = "MRTR_RIVERTASKS_CHILD_MARK"   // file created when the step runs
)

// TestKilledInstanceIsRescued: an instance (a child process) takes a step
// and is SIGKILLed while it runs it; another instance, started after the
// kill with a RescueAfter of 1 s, runs the step. It reports how long after
// the kill. The child, the only instance until then, was River's leader:
// the new instance waits for the dead leader's term to lapse (up to 15 s),
// then its rescuer runs at once.
func TestKilledInstanceIsRescued(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process and waits for River's rescuer")
	}
	eachBackend(t, func(t *testing.T, b backend) {
		mark := filepath.Join(t.TempDir(), "running")
		var out bytes.Buffer
		child := exec.Command(os.Args[0], "-test.run=^TestChildInstance$", "-test.count=1", "-test.v")
		child.Env = append(os.Environ(), append(b.env, childMarkEnv+"="+mark)...)
		child.Stdout, child.Stderr = &out, &out
		if err := child.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- child.Wait() }()
		t.Cleanup(func() { _ = child.Process.Kill() })

		deadline := time.Now().Add(20 * time.Second)
		for {
			if _, err := os.Stat(mark); err == nil {
				break
			}
			select {
			case err := <-exited:
				t.Fatalf("child exited before running the step (%v):\n%s", err, out.String())
			case <-time.After(20 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("child did not run the step within 20 s:\n%s", out.String())
			}
		}
		if err := child.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		killed := time.Now()
		if err := <-exited; err == nil {
			t.Fatalf("child exited cleanly, want killed:\n%s", out.String())
		}

		log := newCallLog()
		rescuer := b.open(t, Options{JobTimeout: 500 * time.Millisecond, RescueAfter: time.Second})
		start(t, rescuer, &fakeRunner{instance: "rescuer", log: log})
		calls := log.waitFor(t, 40*time.Second, "the rescued step", func(c []call) bool { return len(c) >= 1 })
		if c := calls[0]; c.taskID != "killed" || c.step != 1 {
			t.Fatalf("ran %+v, want task killed step 1", c)
		}
		t.Logf("%s: step of the SIGKILLed instance ran elsewhere %v after the kill", b.name,
			calls[0].at.Sub(killed).Round(time.Millisecond))
	})
}

// TestChildInstance is the child process of TestKilledInstanceIsRescued:
// an instance with the default options that enqueues step 1 of task
// "killed", creates the mark file when it runs it and blocks until killed
// (two minutes at most, should its parent die first).
func TestChildInstance(t *testing.T) {
	driver := os.Getenv(childDriverEnv)
	if driver == "" {
		t.Skip("the child process of TestKilledInstanceIsRescued")
	}
	var e *Executor
	switch dsn := os.Getenv(childDSNEnv); driver {
	case "postgres":
		e = openPostgres(t, dsn, Options{Schema: os.Getenv(childSchemaEnv)})
	case "sqlite":
		e = openSQLite(t, dsn, Options{})
	default:
		t.Fatalf("%s=%q", childDriverEnv, driver)
	}
	hang := func(context.Context, string, int) error {
		if err := os.WriteFile(os.Getenv(childMarkEnv), nil, 0o600); err != nil {
			return err
		}
		time.Sleep(2 * time.Minute) // deaf to ctx: a process that hangs, then dies
		return errors.New("child was not killed")
	}
	start(t, e, &fakeRunner{log: newCallLog(), run: hang})
	enqueue(t, e, "killed", 1)
	time.Sleep(2 * time.Minute)
	t.Fatal("child was not killed")
}
