package domain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// An EffectLog counts effects from the handler's side: one line when an
// effect method starts and one when it returns, appended to a file that
// every instance of a fleet may share.
//
// Fault tests need it because the counter effects:<tool>:<id> counts
// changes, not runs: the example effects are idempotent themselves (a
// retry that finds its own change already made succeeds without making it
// again), so a second run shows there as one change, while a downstream
// without an idempotency key (an e-mail, a payment API called naively) would
// have acted twice. Lines are written with one write(2) each on a file
// opened O_APPEND, so lines of several processes do not interleave, and a
// line that was written survives a SIGKILL of its process.
type EffectLog struct {
	mu       sync.Mutex
	f        *os.File
	instance string
	seq      int64
}

// EffectEvent is one line of an EffectLog.
type EffectEvent struct {
	// Event is "start" or "end".
	Event string `json:"event"`
	Tool  string `json:"tool"`
	// ID is the record the effect changes (ticket, invoice, customer id or
	// team slug).
	ID       string `json:"id"`
	Workflow string `json:"workflow"`
	// Operation and Takeover are what the engine told the effect about
	// this attempt (mrtr.Call.Attempt), when it tells.
	Operation string `json:"operation,omitempty"`
	Takeover  bool   `json:"takeover,omitempty"`
	Instance  string `json:"instance"`
	PID       int    `json:"pid"`
	// Seq numbers the lines of one process.
	Seq int64     `json:"seq"`
	At  time.Time `json:"at"`
	// Error is what the effect returned ("end" only; "" for success).
	Error string `json:"error,omitempty"`
}

// OpenEffectLog opens (creating it if needed) the log at path for appending;
// instance names this process in its lines.
func OpenEffectLog(path, instance string) (*EffectLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("domain: effect log: %w", err)
	}
	return &EffectLog{f: f, instance: instance}, nil
}

// Start writes the start line of an effect run and returns the function
// that writes its end line with the effect's error.
func (l *EffectLog) Start(ev EffectEvent) (end func(error), err error) {
	ev.Event = "start"
	if err := l.write(ev); err != nil {
		return nil, err
	}
	return func(err error) {
		ev.Event = "end"
		if err != nil {
			ev.Error = err.Error()
		}
		// An end line that cannot be written shows as a run that never
		// ended, which the tests report; the effect's own outcome stands.
		_ = l.write(ev)
	}, nil
}

func (l *EffectLog) write(ev EffectEvent) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	ev.Instance, ev.PID, ev.Seq, ev.At = l.instance, os.Getpid(), l.seq, time.Now().UTC()
	b, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("domain: effect log: %w", err)
	}
	return nil
}

// Close closes the file.
func (l *EffectLog) Close() error { return l.f.Close() }

// ReadEffectLog reads every line of the log at path (none if it does not
// exist yet), in the order they were written. A last line still being
// written (no newline yet) is left for the next read.
func ReadEffectLog(path string) ([]EffectEvent, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []EffectEvent
	for n := 1; ; n++ {
		line, rest, ok := bytes.Cut(b, []byte("\n"))
		if !ok {
			return out, nil
		}
		var ev EffectEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, ev)
		b = rest
	}
}
