package app

import (
	"context"
	"time"

	"github.com/mrtrgen/mrtrgen/examples/generated/conformancetasks"
	"github.com/mrtrgen/mrtrgen/examples/generated/deployments"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// newTasks builds the manager of the Tasks extension (SEP-2663), which the
// engine runs long-running tools on (mrtr.Config.Tasks) as resumable
// tasks. Tasks live in this instance's memory (tasks.MemoryStore) and their
// steps run in its goroutines (tasks.InProcess, the default executor):
// they do not survive it, and other instances do not see them. A shared
// task store and the River executor make them durable (docs/tasks.md).
func (a *App) newTasks() error {
	m, err := tasks.New(tasks.Config{Instance: a.cfg.Instance, Logger: a.log, Authenticate: authenticate})
	if err != nil {
		return err
	}
	a.Tasks = m
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
// the step would run again elsewhere) and ends the hand-written tasks still
// running (they fail with "server shutting down"), within grace.
func (a *App) closeTasks(grace time.Duration) error {
	if a.Tasks == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	return a.Tasks.Close(ctx)
}
