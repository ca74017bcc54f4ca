//go:build unix

package multiinstance

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domainopen"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/taskstest"
)

// The durable-execution proof (issue 18, item 4), with real processes of
// the example server on PostgreSQL: its tasks live in pgtasks and their
// steps run as River jobs (tasksopen), and deploy_release is the
// long-running tool: an MRTR round confirms, the task's first step runs
// the canary effect and asks whether to promote, the second promotes.
// Every effect waits taskEffectDelay before it acts (-effect-delay), so an
// instance can die while one is in progress.
//
//	kill mid-effect  SIGKILL the instance running the canary step: River
//	                 rescues the step on the other instance, where the
//	                 effect runs again as a takeover of its claim (at
//	                 least once; the first run died before it acted, so
//	                 the component changed once), then the task asks and
//	                 completes on the survivor.
//	every instance   a task waiting for its answer survives the whole
//	                 fleet: killed, a new instance answers it and the
//	                 promotion runs there.
//	cancel elsewhere tasks/cancel on one instance ends the context of the
//	                 effect running on the other: the task is cancelled,
//	                 the canary never acted, nothing was promoted.

const (
	taskEffectDelay = 5 * time.Second
	taskLease       = 2 * time.Second
	// River: a step may run taskStepTimeout, and one running for
	// taskRescueAfter is taken for stuck. Rescue itself waits for River's
	// rescuer (every 30 s on the leader) and, when the dead instance was
	// the leader, for a new one (up to 21 s): taskRescueBound.
	taskStepTimeout = 5 * time.Second
	taskRescueAfter = 6 * time.Second
	taskRescueBound = 90 * time.Second
	taskSettle      = 30 * time.Second
	taskService     = "docs-site" // in the demo data, no deployers: anyone may deploy it
)

func TestDurableTasks(t *testing.T) {
	bin := buildServer(t)
	storeURL := freshPostgres(t)
	data, err := domainopen.Open(context.Background(), storeURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { data.Close() })
	d := &durable{t: t, data: data, logPath: filepath.Join(t.TempDir(), "effects.log")}
	d.f = newFleet(t, bin, storeURL)
	d.f.args = []string{"-lease", taskLease.String(), "-effect-log", d.logPath, "-effect-delay", taskEffectDelay.String(),
		"-task-step-timeout", taskStepTimeout.String(), "-task-rescue-after", taskRescueAfter.String()}
	if d.keys, err = seal.GenerateKeySpec(1); err != nil {
		t.Fatal(err)
	}
	d.f.slots[0], d.f.slots[1] = d.start("web-0"), d.start("web-1")

	// The subtests share the fleet and the data, one after the other,
	// each deploying its own version.
	t.Run("kill mid-effect", func(t *testing.T) { d.t = t; d.killMidEffect("v2.1.0") })
	t.Run("every instance killed while waiting", func(t *testing.T) { d.t = t; d.waitingSurvivesTheFleet("v2.2.0") })
	t.Run("cancel on another instance", func(t *testing.T) { d.t = t; d.cancelElsewhere("v2.3.0") })
}

type durable struct {
	t       *testing.T
	f       *fleet
	keys    string
	data    domain.Store
	logPath string
}

func (d *durable) start(name string) *proc {
	d.t.Helper()
	return d.f.start(name, "127.0.0.1:0", d.keys, 0)
}

func (d *durable) client(p *proc) *taskstest.Client {
	return taskstest.NewClient(d.t, "http://"+p.addr+"/mcp")
}

// startDeploy confirms a deployment of version in an MRTR round on p and
// returns the id of the task its second round creates.
func (d *durable) startDeploy(p *proc, version string) string {
	d.t.Helper()
	c := d.client(p)
	args := map[string]any{"service": taskService, "version": version}
	first := c.Tool("deploy_release", args)
	if first["resultType"] != "input_required" {
		d.t.Fatalf("deploy %s, first round: %v", version, first)
	}
	created := c.OK("tools/call", map[string]any{"name": "deploy_release", "arguments": args,
		"requestState":   first["requestState"],
		"inputResponses": map[string]any{"start": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}})
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || id == "" {
		d.t.Fatalf("deploy %s, confirmed round: not a CreateTaskResult: %v", version, created)
	}
	return id
}

// promote answers the task's promotion question on p.
func (d *durable) promote(p *proc, id string, task map[string]any) {
	d.t.Helper()
	asked, _ := task["inputRequests"].(map[string]any)
	if len(asked) != 1 {
		d.t.Fatalf("task %s asks %v, want the one promotion question", id, task["inputRequests"])
	}
	for key := range asked {
		d.client(p).OK(tasks.MethodUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{
			key: map[string]any{"action": "accept", "content": map[string]any{"action": "promote"}}}})
	}
}

// runs returns the effect runs logged for effect ("canary" or "promote").
func (d *durable) runs(effect string) []domain.EffectEvent {
	return runsOf(d.t, d.logPath)["deploy_release:"+effect+":"+taskService]
}

// awaitStart waits until the n-th run of effect started and returns the
// process it started on.
func (d *durable) awaitStart(effect string, n int) *proc {
	d.t.Helper()
	deadline := time.Now().Add(taskSettle)
	for {
		var starts []domain.EffectEvent
		for _, ev := range d.runs(effect) {
			if ev.Event == "start" {
				starts = append(starts, ev)
			}
		}
		if len(starts) >= n {
			name := starts[n-1].Instance
			for _, p := range d.f.slots {
				if p != nil && p.name == name {
					return p
				}
			}
			d.t.Fatalf("%s started on %s, which is not in the fleet", effect, name)
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("run %d of %s did not start within %v", n, effect, taskSettle)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// other is the instance of the fleet's two that is not p.
func (d *durable) other(p *proc) *proc {
	if d.f.slots[0] == p {
		return d.f.slots[1]
	}
	return d.f.slots[0]
}

// changes is how many times the component's canary or promotion changed.
func (d *durable) changes(effect string) int64 {
	d.t.Helper()
	n, err := domain.Effects(context.Background(), d.data, "deploy_release", effect+":"+taskService)
	if err != nil {
		d.t.Fatal(err)
	}
	return n
}

func (d *durable) killMidEffect(version string) {
	t := d.t
	canaries, promotions := d.changes("canary"), d.changes("promote")
	id := d.startDeploy(d.f.slots[0], version)
	victim := d.awaitStart("canary", 1)
	survivor := d.other(victim)
	d.f.kill(victim)
	killed := time.Now()

	asked := d.client(survivor).Until(id, taskRescueBound, tasks.StatusInputRequired)
	rescued := time.Since(killed)
	if asked["status"] != string(tasks.StatusInputRequired) {
		t.Fatalf("after the kill the task is %v, want input_required: %v", asked["status"], asked)
	}
	runs := d.runs("canary")
	if len(runs) != 3 || runs[0].Instance != victim.name || runs[1].Instance != survivor.name || !runs[1].Takeover || runs[2].Event != "end" || runs[2].Error != "" {
		t.Fatalf("canary runs: %s; want a start on %s that never ended, then a takeover on %s that succeeded", describeRuns(runs), victim.name, survivor.name)
	}
	if n := d.changes("canary") - canaries; n != 1 {
		t.Errorf("the canary changed the component %d times, want 1 (the killed run died before it acted)", n)
	}
	d.promote(survivor, id, asked)
	done := d.client(survivor).Until(id, taskSettle, tasks.StatusCompleted)
	if done["status"] != string(tasks.StatusCompleted) || taskstest.ResultText(done) == "" {
		t.Fatalf("task after the promotion: %v", done)
	}
	if n := d.changes("promote") - promotions; n != 1 {
		t.Errorf("promoted %d times, want 1", n)
	}
	t.Logf("SIGKILL of %s mid-canary: the step ran again on %s and asked %v after the kill (rescue after %v, River's rescuer every 30 s); result %q",
		victim.name, survivor.name, rescued.Round(100*time.Millisecond), taskRescueAfter, taskstest.ResultText(done))
	// The fleet has two instances again for the next subtests.
	d.f.slots[0], d.f.slots[1] = survivor, d.start(victim.name+"-again")
}

func (d *durable) waitingSurvivesTheFleet(version string) {
	t := d.t
	promotions := d.changes("promote")
	id := d.startDeploy(d.f.slots[1], version)
	asked := d.client(d.f.slots[0]).Until(id, taskSettle, tasks.StatusInputRequired)
	if asked["status"] != string(tasks.StatusInputRequired) {
		t.Fatalf("the task is %v, want input_required: %v", asked["status"], asked)
	}
	for _, p := range d.f.slots {
		if p != nil {
			d.f.kill(p)
		}
	}
	fresh := d.start("web-fresh")
	d.f.slots[0], d.f.slots[1] = fresh, nil
	answered := time.Now()
	d.promote(fresh, id, d.client(fresh).Get(id))
	done := d.client(fresh).Until(id, taskSettle, tasks.StatusCompleted)
	if done["status"] != string(tasks.StatusCompleted) {
		t.Fatalf("task answered on a new instance: %v", done)
	}
	if n := d.changes("promote") - promotions; n != 1 {
		t.Errorf("promoted %d times, want 1", n)
	}
	t.Logf("a task waiting for its answer outlived every instance: answered on %s, completed %v later (the promotion waits %v)",
		fresh.name, time.Since(answered).Round(10*time.Millisecond), taskEffectDelay)
	d.f.slots[1] = d.start("web-fresh-2")
}

func (d *durable) cancelElsewhere(version string) {
	t := d.t
	canaries, promotions := d.changes("canary"), d.changes("promote")
	id := d.startDeploy(d.f.slots[0], version)
	runner := d.awaitStart("canary", countEvents(d.runs("canary"), "start")+1)
	elsewhere := d.other(runner)
	sent := time.Now()
	ack, rerr := d.client(elsewhere).Call(tasks.MethodCancel, map[string]any{"taskId": id})
	acked := time.Since(sent)
	if rerr != nil || ack["resultType"] != "complete" {
		t.Fatalf("tasks/cancel on %s: %v %v", elsewhere.name, ack, rerr)
	}
	got := d.client(elsewhere).Until(id, taskSettle, tasks.StatusCancelled)
	cancelled := time.Since(sent)
	if got["status"] != string(tasks.StatusCancelled) {
		t.Fatalf("after tasks/cancel the task is %v: %v", got["status"], got)
	}
	if cancelled >= taskEffectDelay {
		t.Errorf("cancelled %v after tasks/cancel: the effect was not cut off (it takes %v)", cancelled, taskEffectDelay)
	}
	// The canary's run ends with its context's error, before it acted.
	deadline := time.Now().Add(taskSettle)
	for {
		runs := d.runs("canary")
		if last := runs[len(runs)-1]; last.Event == "end" {
			if last.Error == "" || last.Instance != runner.name {
				t.Errorf("the cancelled canary ended %+v, want an error on %s", last, runner.name)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cancelled canary never ended: %s", describeRuns(runs))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := d.changes("canary") - canaries; n != 0 {
		t.Errorf("the cancelled canary changed the component %d times", n)
	}
	if n := d.changes("promote") - promotions; n != 0 {
		t.Errorf("a cancelled task promoted %d times", n)
	}
	t.Logf("tasks/cancel on %s while the canary ran on %s: acked in %v, cancelled %v after it (the effect would take %v)",
		elsewhere.name, runner.name, acked.Round(time.Millisecond), cancelled.Round(time.Millisecond), taskEffectDelay)
}
