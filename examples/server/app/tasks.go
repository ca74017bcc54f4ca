package app

import (
	"context"
	"time"

	"github.com/mrtrgen/mrtrgen/examples/taskfixtures"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// newTasks installs the Tasks extension (SEP-2663) on the server and
// registers the task tools: the fixtures of the conformance suite's tasks
// scenarios. Tasks live in this instance's memory (tasks.MemoryStore):
// they do not survive it, and other instances do not see them.
func (a *App) newTasks() error {
	m, err := tasks.New(tasks.Config{Instance: a.cfg.Instance, Logger: a.log})
	if err != nil {
		return err
	}
	if err := m.Install(a.Server); err != nil {
		return err
	}
	a.Tasks = m
	taskfixtures.Register(a.Server, m)
	return nil
}

// closeTasks ends the tasks still running (they fail with "server
// shutting down") within grace.
func (a *App) closeTasks(grace time.Duration) error {
	if a.Tasks == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	return a.Tasks.Close(ctx)
}
