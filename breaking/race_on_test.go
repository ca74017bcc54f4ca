//go:build race

package breaking

// slowdown scales time bounds: the race detector makes code 5-10x slower.
const slowdown = 10
