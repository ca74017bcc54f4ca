// Package rivertasks runs the steps of resumable tasks as River jobs
// (github.com/riverqueue/river) on PostgreSQL or SQLite, so that a step
// whose instance dies is rescued and run again by another instance that
// shares the database. [NewPostgres] and [NewSQLite] return a
// [tasks.Executor].
//
// # What is guaranteed
//
// Each enqueued step runs at least once: Enqueue returns only once the job
// is committed, and River settles a job only when RunStep returned nil for
// it, or when its attempts ran out (Options.MaxAttempts).
// At least once is not exactly once: a step runs again when its instance
// died, when it ran past JobTimeout, when Stop cut it off, or when the
// rescuer judged it stuck (RescueAfter) while it was in fact still
// running. What protects a step's effects from a repeat is the step's
// claim in the task store (tasks.Runner), not River.
//
// Enqueueing the same step twice runs it once: jobs are unique by kind,
// queue and args while a job for the step is pending, scheduled,
// available, running, retryable or completed (River's default unique
// states). A completed job is kept for 24 hours (River's
// CompletedJobRetentionPeriod); a step enqueued again after that runs
// again, which RunStep turns into a no-op.
//
// # What River stores
//
// One job per step, of kind "mrtr_task_step", whose args are the task id
// and the step number ({"task_id": "...", "step": 2}) and nothing else: no
// user data reaches River's tables. The tables are River's own
// (river_job, river_leader, river_queue, river_client, river_client_queue,
// river_notification and river_migration), created by River's migrations
// (rivermigrate) when the executor starts, in Options.Schema on
// PostgreSQL. The queue is Options.Queue (default "mrtr_tasks"); every
// instance of one deployment must use the same queue and schema, and no
// other application should work jobs of this kind on it.
//
// # Retries and rescue
//
// A step whose RunStep returned an error is retried after 1 s, 2 s, 4 s …
// up to 30 s between attempts (±10 %), not River's default schedule of
// hours. A step whose instance died stays "running" in River's table
// until River's rescuer, which runs on the elected leader instance every
// 30 s (fixed in River v0.51), finds it running for longer than
// RescueAfter and makes it retryable (as an error: after the retry delay,
// and it counts as an attempt); River's scheduler, every 5 s, then makes it
// available. Rescue therefore comes between RescueAfter and RescueAfter +
// 35 s (plus the retry delay) after the step started, plus up to 21 s of
// leader election when the dead instance was the leader (its term lapses
// 15 s after its last renewal; the others try every 5 to 6 s), when the
// new leader's rescuer runs at once. Measured (TestKilledInstanceIsRescued,
// RescueAfter 1 s, the dead instance the leader): 18 to 20 s from SIGKILL
// to the step running elsewhere. RescueAfter must exceed JobTimeout, so
// that River does not rescue a step that is still within its time; a
// RescueAfter shorter than the longest step only costs repeated runs that
// the step's claim turns away.
//
// # Knobs
//
// Options: Queue and Schema (where), Workers (steps at once per
// instance), JobTimeout (a step's time; default 5 min), RescueAfter (when
// a dead instance's step is run again; default JobTimeout + 1 min),
// MaxAttempts (default 100) and Logger. River's other settings keep their
// defaults; those that shape latency: a new job is fetched when its
// insert is notified (LISTEN/NOTIFY on PostgreSQL, a polled table on
// SQLite) but at most every 100 ms (FetchCooldown), else every 1 s
// (FetchPollInterval). Measured (TestEnqueueToRunLatency, one step at a
// time, both databases): median 100 ms, at most 1 s from Enqueue on one
// instance to RunStep on another. The rescuer's 30 s, the scheduler's 5 s
// and leader election's 5 s / 15 s are not configurable in River v0.51.
//
// # Stop
//
// Stop stops fetching jobs, ends the context of the steps running on this
// instance at once (River's StopAndCancel) and waits for them to return,
// or for its ctx. A step cut off this way goes back to the queue
// immediately (River's JobSnooze(0): it does not count as an attempt) and
// is run by the next instance that fetches it.
//
// # SQLite
//
// River on SQLite wants one connection per process (riversqlite's advice,
// since River runs its operations concurrently) and, to share the file
// with other processes, a busy timeout and immediate transactions; use
// [OpenSQLite], or open the database the same way.
package rivertasks
