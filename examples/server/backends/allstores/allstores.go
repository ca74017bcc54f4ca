// Package allstores is the example server's backends.Set for a fleet:
// every store of storeopen (memory, SQLite, PostgreSQL, Redis), the
// business data beside it (domainopen), and the tasks of tasksopen, whose
// steps run on River on PostgreSQL and on a SQLite file. It links pgx,
// go-redis and River; the command examples/server/fleet and the tests that
// run fleets import it, the quick start (examples/server) does not.
package allstores

import (
	"context"

	"github.com/mrtrgen/mrtrgen/examples/domain/domainopen"
	"github.com/mrtrgen/mrtrgen/examples/server/backends"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storeopen"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/rivertasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/tasksopen"
)

// Set opens every store URL form of storeopen.
var Set = backends.Set{
	Build: "fleet",
	Forms: storeopen.Forms,
	River: true,
	Store: storeopen.Open,
	Data:  domainopen.Open,
	Tasks: func(ctx context.Context, u string, opts backends.TaskOptions) (*backends.Tasks, error) {
		b, err := tasksopen.Open(ctx, u, tasksopen.Options{River: rivertasks.Options{
			Logger: opts.Logger, JobTimeout: opts.StepTimeout, RescueAfter: opts.RescueAfter,
		}})
		if err != nil {
			return nil, err
		}
		return &backends.Tasks{Store: b.Store, Executor: b.Executor, Name: b.Name, Closer: b.Close}, nil
	},
}
