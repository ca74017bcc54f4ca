//go:build !race

package breaking

const slowdown = 1
