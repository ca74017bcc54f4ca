package rivertasks_test

import (
	"context"
	"log"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/rivertasks"
)

// Each instance of a deployment runs an executor on the same database and
// queue; the task Manager is its Runner.
func ExampleNewPostgres() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "postgres://app@db.internal/app")
	if err != nil {
		log.Fatal(err)
	}
	exec, err := rivertasks.NewPostgres(pool, rivertasks.Options{
		Schema:      "mrtr",          // created beforehand; River's tables go there
		JobTimeout:  2 * time.Minute, // the longest a step may take
		RescueAfter: 3 * time.Minute, // a dead instance's step runs again after this
	})
	if err != nil {
		log.Fatal(err)
	}
	var manager tasks.Runner // the *tasks.Manager of this instance
	if err := exec.Start(ctx, manager); err != nil {
		log.Fatal(err)
	}
	// At shutdown, before closing the database: exec.Stop(ctx).
}

// On SQLite, every process opens the shared file with OpenSQLite.
func ExampleNewSQLite() {
	db, err := rivertasks.OpenSQLite("/var/lib/app/tasks.db")
	if err != nil {
		log.Fatal(err)
	}
	exec, err := rivertasks.NewSQLite(db, rivertasks.Options{Workers: 4})
	if err != nil {
		log.Fatal(err)
	}
	var manager tasks.Runner // the *tasks.Manager of this process
	if err := exec.Start(context.Background(), manager); err != nil {
		log.Fatal(err)
	}
	// At shutdown, before closing the database: exec.Stop(ctx).
}
