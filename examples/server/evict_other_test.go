//go:build !unix

package main

// offHeap is a heap allocation here (no mmap): it raises the garbage
// collector's heap goal by n bytes for the benchmarks that follow.
func offHeap(n int) []byte { return make([]byte, n) }
