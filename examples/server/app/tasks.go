package app

import (
	"context"
	"errors"
	"time"

	"github.com/mrtrgen/mrtrgen/examples/generated/conformancetasks"
	"github.com/mrtrgen/mrtrgen/examples/generated/deployments"
	"github.com/mrtrgen/mrtrgen/examples/server/backends"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// newTasks builds the manager of the Tasks extension (SEP-2663), which the
// engine runs long-running tools on (mrtr.Config.Tasks) as resumable
// tasks. The task store and executor follow the store URL (Backends.Tasks):
// in the fleet build (allstores, mrtr/tasks/tasksopen), on PostgreSQL and on
// a SQLite file the tasks are shared by every instance on that database and
// their steps run on River, so a step whose instance dies runs again on
// another; on Redis, and on a SQLite file in the embedded build, the tasks
// are shared and their steps run in the instance that enqueued them; in
// memory they are this instance's alone. Every instance derives the
// principal keys and the at-rest sealing from the one key ring, so any of
// them answers for any task, and a task outlives a key rotation while its
// key is in the ring.
func (a *App) newTasks() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := a.cfg.Backends.Tasks(ctx, a.cfg.StoreURL, backends.TaskOptions{
		Logger: a.log, StepTimeout: a.cfg.TaskStepTimeout, RescueAfter: a.cfg.TaskRescueAfter,
	})
	if err != nil {
		return err
	}
	m, err := tasks.New(tasks.Config{
		Store: b.Store, Executor: b.Executor, Instance: a.cfg.Instance, Logger: a.log, Authenticate: authenticate,
		PrincipalKeys: a.cfg.Ring.DeriveKeys("tasks/principal"),
		Sealer:        mrtr.TaskSealer(seal.New(a.cfg.Ring, seal.Options{}), a.cfg.Audience),
	})
	if err != nil {
		_ = b.Close()
		return err
	}
	a.Tasks, a.taskBackend = m, b
	a.log.Info("tasks", "backend", b.Name, "durable", b.Durable())
	return nil
}

// registerTasks installs the extension on the server and registers the
// long-running tools, all generated from specs: deploy_release and the
// fixtures of the conformance suite's tasks scenarios (with greet, their
// one tool that never runs as a task).
func (a *App) registerTasks(deploy deployments.DeployReleaseHandler) error {
	if err := a.Tasks.Install(a.Server); err != nil {
		return err
	}
	deployments.RegisterAll(a.Server, a.Engine, deploy)
	conformancetasks.Register(a.Server, a.Engine)
	return nil
}

// closeTasks stops the task executor (a running step's effect finishes;
// the step would run again elsewhere), ends the hand-written tasks still
// running (they fail with "server shutting down"), within grace, and closes
// the task backend.
func (a *App) closeTasks(grace time.Duration) error {
	if a.Tasks == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	return errors.Join(a.Tasks.Close(ctx), a.taskBackend.Close())
}
