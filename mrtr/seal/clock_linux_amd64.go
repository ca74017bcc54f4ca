package seal

import (
	"syscall"
	"time"
)

// wallClock reads the wall clock alone: gettimeofday, a vDSO call on
// linux/amd64 (about half of time.Now, which reads the monotonic clock as
// well, unused here: tokens carry wall-clock seconds). Its resolution is a
// microsecond; up is false for the time a token is sealed at (truncated:
// an expiry never later than the nanosecond clock would give) and true for
// the time a token is judged at (the end of the microsecond: never more
// lenient than the nanosecond clock).
func wallClock(up bool) time.Time {
	var tv syscall.Timeval
	if err := syscall.Gettimeofday(&tv); err != nil {
		return time.Now()
	}
	ns := tv.Usec * 1000
	if up {
		ns += 999
	}
	return time.Unix(tv.Sec, ns)
}
