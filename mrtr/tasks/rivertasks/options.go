package rivertasks

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"regexp"
	"time"

	"github.com/riverqueue/river/rivertype"
)

// Options configure an executor. The zero value is valid: every field has
// a default.
type Options struct {
	// Queue is the River queue the steps go through; every instance of a
	// deployment uses the same one. Letters, digits, '_' and '-', at most
	// 128 characters; default DefaultQueue.
	Queue string
	// Schema is the PostgreSQL schema of River's tables, which must exist;
	// empty means the connection's search_path. SQLite takes no schema.
	Schema string
	// Workers is how many steps this instance runs at once; default
	// DefaultWorkers.
	Workers int
	// JobTimeout is how long a step may run before its context ends (it
	// is then retried); default DefaultJobTimeout.
	JobTimeout time.Duration
	// RescueAfter is how long a step may be running before River's rescuer
	// takes it for stuck (its instance died) and has it run again,
	// elsewhere if need be. It must exceed JobTimeout; default JobTimeout
	// + 1 minute.
	RescueAfter time.Duration
	// MaxAttempts is how many times a step is run before River gives up on
	// it: its job is discarded and, when the Runner is a tasks.Abandoner
	// (*tasks.Manager is), its task fails unless another run still holds
	// the step. Default DefaultMaxAttempts, about 48 minutes of retries
	// 30 s apart. Runs cut off by Stop do not count.
	MaxAttempts int
	// Logger receives River's logs and the executor's own; default
	// slog.Default().
	Logger *slog.Logger
}

// Defaults of Options.
const (
	DefaultQueue       = "mrtr_tasks"
	DefaultWorkers     = 16
	DefaultJobTimeout  = 5 * time.Minute
	DefaultMaxAttempts = 100
)

// River's queue names: letters, digits, '_' and '-' (river's own rule,
// which it checks only when a queue is configured, with a less precise
// message).
var queueName = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// withDefaults returns o with its defaults filled in, or what is wrong
// with it.
func (o Options) withDefaults() (Options, error) {
	if o.Queue == "" {
		o.Queue = DefaultQueue
	}
	if len(o.Queue) > 128 || !queueName.MatchString(o.Queue) {
		return o, fmt.Errorf("rivertasks: Options.Queue %q: want 1 to 128 letters, digits, '_' or '-'", o.Queue)
	}
	if o.Workers == 0 {
		o.Workers = DefaultWorkers
	}
	if o.Workers < 0 || o.Workers > 10_000 {
		return o, fmt.Errorf("rivertasks: Options.Workers %d: want 1 to 10000", o.Workers)
	}
	if o.JobTimeout == 0 {
		o.JobTimeout = DefaultJobTimeout
	}
	if o.JobTimeout < 0 {
		return o, fmt.Errorf("rivertasks: Options.JobTimeout %v is negative", o.JobTimeout)
	}
	if o.RescueAfter == 0 {
		o.RescueAfter = o.JobTimeout + time.Minute
	}
	if o.RescueAfter <= o.JobTimeout {
		return o, fmt.Errorf("rivertasks: Options.RescueAfter %v must exceed JobTimeout %v (a step still running would be rescued and run twice)",
			o.RescueAfter, o.JobTimeout)
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.MaxAttempts < 0 {
		return o, fmt.Errorf("rivertasks: Options.MaxAttempts %d is negative", o.MaxAttempts)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o, nil
}

var errSQLiteSchema = errors.New("rivertasks: Options.Schema is for PostgreSQL; SQLite keeps River's tables in the database file")

// Retry delays of a failed step: the first retry after retryBase, doubling
// up to retryMax. Steps are short and their failures mostly transient (a
// store that did not answer, a lease still held by an instance that just
// died), so seconds, where River's default (attempt⁴ seconds) waits hours
// by the tenth attempt.
const (
	retryBase = time.Second
	retryMax  = 30 * time.Second
)

// retryPolicy is the river.ClientRetryPolicy of steps.
type retryPolicy struct{}

// NextRetry returns when job runs again: retryBase·2ⁿ⁻¹ after now, at most
// retryMax, n being the number of errors so far counting this one (like
// River's own policy, so that snoozes do not count), ±10 % so that steps
// failed together do not come back together.
func (retryPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	return time.Now().Add(retryDelay(len(job.Errors) + 1))
}

func retryDelay(failures int) time.Duration {
	d := retryMax
	if failures <= 5 { // 2⁵ s > retryMax
		d = min(retryBase<<max(failures-1, 0), retryMax)
	}
	jitter := time.Duration(rand.Int64N(int64(d)/5)) - d/10
	return d + jitter
}
