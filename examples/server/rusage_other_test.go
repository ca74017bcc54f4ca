//go:build !unix

package main

// cpuTime is not measured here: benchmarks report no cpu-ns/op.
func cpuTime() int64 { return 0 }
