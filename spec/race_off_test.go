//go:build !race

package spec_test

// slowdown scales time bounds: the race detector makes code 5-10x slower.
const slowdown = 1
