//go:build !race

package lint

// slowdown scales time bounds: the race detector makes code 5-10x slower.
const slowdown = 1
