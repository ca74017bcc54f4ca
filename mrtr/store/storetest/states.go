package storetest

import (
	"fmt"
	"strings"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

func rec(ref, workflow, data string) store.StateRecord {
	return store.StateRecord{
		Ref:       ref,
		Workflow:  workflow,
		Subject:   "tools/call:close_ticket",
		Principal: "sha256:" + strings.Repeat("ab", 32),
		Data:      []byte(data),
	}
}

func testStatePutGet(e *env) {
	r := rec("ref-1", "wf-1", `{"step":2,"ticket":"T-1"}`)
	e.put(r, time.Hour)
	e.wantState(r)
	e.wantNoState("ref-missing")
	r2 := store.StateRecord{Ref: "ref-2", Workflow: "wf-1", Data: []byte("x")} // empty subject, principal
	e.put(r2, time.Hour)
	e.wantState(r2)
	e.wantState(r)
}

func testStateExpiry(e *env) {
	r := rec("ref-1", "wf-1", "data")
	e.put(r, time.Minute)
	e.clock.Advance(time.Minute - time.Millisecond)
	e.wantState(r)
	e.clock.Advance(time.Millisecond)
	e.wantNoState("ref-1")
	e.sweep(1)
	e.wantNoState("ref-1")
}

func testStateOverwrite(e *env) {
	r := rec("ref-1", "wf-1", "v1")
	e.put(r, time.Minute)
	r.Data = []byte("v2")
	e.put(r, time.Hour)
	e.clock.Advance(30 * time.Minute)
	e.wantState(r)
	// Moving a ref to another workflow detaches it from the first one.
	r.Workflow = "wf-2"
	e.put(r, time.Hour)
	if err := e.s.DeleteWorkflowStates(e.ctx, "wf-1"); err != nil {
		e.Fatal(err)
	}
	e.wantState(r)
	if err := e.s.DeleteWorkflowStates(e.ctx, "wf-2"); err != nil {
		e.Fatal(err)
	}
	e.wantNoState("ref-1")
}

func testStateDeleteWorkflow(e *env) {
	var a, b []store.StateRecord
	for i := range 5 {
		a = append(a, rec(fmt.Sprintf("ref-a%d", i), "wf-A", fmt.Sprintf("a%d", i)))
		b = append(b, rec(fmt.Sprintf("ref-b%d", i), "wf-B", fmt.Sprintf("b%d", i)))
	}
	// A workflow id that is a prefix / pattern of another.
	c := rec("ref-c", "wf-*", "c")
	for _, r := range append(append(a, b...), c) {
		e.put(r, time.Hour)
	}
	if err := e.s.DeleteWorkflowStates(e.ctx, "wf-A"); err != nil {
		e.Fatalf("DeleteWorkflowStates(wf-A): %v", err)
	}
	for _, r := range a {
		e.wantNoState(r.Ref)
	}
	for _, r := range b {
		e.wantState(r)
	}
	e.wantState(c)
	if err := e.s.DeleteWorkflowStates(e.ctx, "wf-A"); err != nil {
		e.Fatalf("second DeleteWorkflowStates(wf-A): %v", err)
	}
	if err := e.s.DeleteWorkflowStates(e.ctx, "wf-never"); err != nil {
		e.Fatalf("DeleteWorkflowStates(unknown): %v", err)
	}
	if err := e.s.DeleteWorkflowStates(e.ctx, "wf-*"); err != nil {
		e.Fatal(err)
	}
	e.wantNoState("ref-c")
	for _, r := range b {
		e.wantState(r)
	}
	// Nothing expired yet, and deleted records are not counted again.
	e.sweep(0)
	// A workflow reuses nothing after its deletion: a new record under the
	// same workflow id lives normally.
	n := rec("ref-a-new", "wf-A", "new")
	e.put(n, time.Hour)
	e.wantState(n)
}

func testStateData(e *env) {
	for name, data := range map[string][]byte{"empty": {}, "nil": nil, "big": binary(64 << 10)} {
		r := store.StateRecord{Ref: "ref-" + name, Workflow: "wf", Subject: "s", Principal: "p", Data: data}
		e.put(r, time.Hour)
		e.wantState(r)
	}
}
