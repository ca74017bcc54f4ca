// Package evolve holds the proof that in-flight workflows survive a spec
// change (docs/evolution.md): two builds of one spec, before and after a
// change (./before, ./after, each tool changed in one way), their servers
// (./cmd, ./serve), and the test that runs them side by side on one store
// and one key ring (crossbuild_test.go). The cases and the driver are in
// ./evolvetest; the runtime's in-process test of the same cases is
// mrtr/evolve_test.go.
//
// Regenerate the two builds with the others:
//
//	go run ./cmd/mrtrgen generate mrtr/internal/evolve/before mrtr/internal/evolve/after
package evolve
