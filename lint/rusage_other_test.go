//go:build !unix

package lint

func cpuTime() int64 { return 0 }
