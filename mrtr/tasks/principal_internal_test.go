package tasks

import (
	"bytes"
	"testing"
)

// A task is its principal's under any of the principal keys, so a key
// rotation keeps tasks created before it: created under K1, the task is
// alice's on an instance whose keys are K2 then K1, and no longer once K1
// left the ring; it is never bob's.
func TestPrincipalKeysRotate(t *testing.T) {
	k1, k2 := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	manager := func(keys ...[]byte) *Manager {
		m, err := New(Config{PrincipalKeys: keys, SweepInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = m.Close(t.Context()) })
		return m
	}
	before, during, after := manager(k1), manager(k2, k1), manager(k2)
	rec := &Record{Principal: before.hashPrincipal("alice")}
	for _, tc := range []struct {
		name      string
		m         *Manager
		principal string
		want      bool
	}{
		{"created under K1, K1", before, "alice", true},
		{"K2 seals, K1 still in the ring", during, "alice", true},
		{"K1 retired", after, "alice", false},
		{"another principal", during, "bob", false},
		{"anonymous", during, "", false},
	} {
		if got := tc.m.owns(rec, tc.principal); got != tc.want {
			t.Errorf("%s: owns = %v, want %v", tc.name, got, tc.want)
		}
	}
	if during.hashPrincipal("alice") == rec.Principal {
		t.Error("new tasks are still hashed under the old key")
	}
	if _, err := New(Config{PrincipalKeys: [][]byte{k1, []byte("short")}}); err == nil {
		t.Error("a short principal key was accepted")
	}
}
