package mrtrtest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// recorder is a tb that records failures instead of failing the test, so
// tests can check the messages the matrix and the Driver give: a Fatal
// ends the subtest it happens in, as on a *testing.T. Everything else
// (Helper, Cleanup, TempDir) goes to the real test.
type recorder struct {
	testing.TB
	name string
	log  *record
}

// record is what a recorder and its subtests saw.
type record struct {
	mu       sync.Mutex
	failures []string // "subtest/subtest: message", or the message of the top level
	logs     []string
}

// stopped is the panic a recorder's Fatal ends a subtest with.
type stopped struct{}

func newRecorder(t testing.TB) *recorder {
	return &recorder{TB: t, name: t.Name(), log: &record{}}
}

func (r *recorder) fail(msg string) {
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	if sub := strings.TrimPrefix(strings.TrimPrefix(r.name, r.TB.Name()), "/"); sub != "" {
		msg = sub + ": " + msg
	}
	r.log.failures = append(r.log.failures, msg)
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fail(fmt.Sprintf(format, args...))
	panic(stopped{})
}
func (r *recorder) Fatal(args ...any)                 { r.fail(fmt.Sprint(args...)); panic(stopped{}) }
func (r *recorder) Errorf(format string, args ...any) { r.fail(fmt.Sprintf(format, args...)) }
func (r *recorder) Error(args ...any)                 { r.fail(fmt.Sprint(args...)) }
func (r *recorder) Fail()                             { r.fail("Fail called") }
func (r *recorder) FailNow()                          { r.fail("FailNow called"); panic(stopped{}) }
func (r *recorder) Name() string                      { return r.name }

func (r *recorder) Failed() bool {
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	return len(r.log.failures) > 0
}

func (r *recorder) Logf(format string, args ...any) {
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	r.log.logs = append(r.log.logs, fmt.Sprintf(format, args...))
}

func (r *recorder) Log(args ...any) { r.Logf("%s", fmt.Sprint(args...)) }

func (r *recorder) sub(name string, f func(tb)) {
	r.run(&recorder{TB: r.TB, name: r.name + "/" + name, log: r.log}, f)
}

// run runs f on c, ending at c's first Fatal.
func (r *recorder) run(c *recorder, f func(tb)) {
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(stopped); !ok {
				panic(v)
			}
		}
	}()
	f(c)
}

// failures are the messages recorded so far.
func (r *recorder) failures() []string {
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	return append([]string(nil), r.log.failures...)
}
