//go:build !(linux && amd64)

package seal

import "time"

// wallClock is time.Now where no cheaper wall-clock read is known
// (clock_linux_amd64.go explains up).
func wallClock(bool) time.Time { return time.Now() }
