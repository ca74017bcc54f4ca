//go:build unix

package main

import "syscall"

// offHeap returns n bytes the garbage collector does not know of: a buffer
// on its heap would raise the heap goal of every benchmark after it, and so
// change how often they collect.
func offHeap(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		panic(err)
	}
	return b
}
