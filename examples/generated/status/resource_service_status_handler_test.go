package status

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domaintest"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

func view(detail string) mcp.InputResponseMap {
	return mcp.InputResponseMap{"view": mrtrtest.Accept(map[string]any{"detail": detail})}
}

// brokenReads is a store whose reads fail while broken is set.
type brokenReads struct {
	domain.Store
	broken atomic.Bool
}

func (b *brokenReads) Get(ctx context.Context, key string) (string, bool, error) {
	if b.broken.Load() {
		return "", false, errors.New("the catalog is down")
	}
	return b.Store.Get(ctx, key)
}

// TestServiceStatusRealMatrix runs the MRTR matrix against the real
// handler: billing's status in full, another service's for the argument
// binding, the catalog down for a dependency failure.
func TestServiceStatusRealMatrix(t *testing.T) {
	data := domaintest.New(t)
	store := &brokenReads{Store: data}
	mrtrtest.RunMatrix(t, NewServiceStatusProgram(&ServiceStatusImpl{Data: store}), mrtrtest.Fixtures{
		Args:        map[string]any{"service": "billing"},
		Answers:     map[string]mcp.InputResponse{"view": view("full")["view"]},
		Invalid:     map[string]mcp.InputResponse{"view": view("everything")["view"]},
		Other:       "bob",
		OtherArgs:   map[string]any{"service": "search"},
		WantOutcome: mrtr.OutcomeSuccess,
		Break: func() func() {
			store.broken.Store(true)
			return func() { store.broken.Store(false) }
		},
		NotApplicable: map[string]string{mrtrtest.ScenarioUnauthorized: "anyone may read a service's status"},
	}, data.Harness(t))
}

// The status reads the catalog and the environments: billing's latest
// build is 1.5.0, staging runs it, production runs 1.4.2; ledger was never
// deployed to production; an unknown service ends, before anything is
// asked, at the spec's notFound terminal (resource-not-found on the wire).
func TestServiceStatusReadsTheCatalog(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewServiceStatusProgram(&ServiceStatusImpl{Data: data}))
	for _, c := range []struct{ service, detail, want string }{
		{"billing", "full", "billing: latest build 1.5.0; staging runs 1.5.0, production runs 1.4.2."},
		{"billing", "summary", "billing: latest build 1.5.0."},
		{"ledger", "full", "ledger: latest build 0.9.1; staging runs 0.9.1, production runs none."},
	} {
		args := map[string]any{"service": c.service}
		first, err := h.Call(ctx, args, "", nil)
		if err != nil || !first.NeedsInput() || first.InputRequests["view"] == nil {
			t.Fatalf("%s round 1: %+v, %v", c.service, first, err)
		}
		done, err := h.Call(ctx, args, first.RequestState, view(c.detail))
		if err != nil || done.NeedsInput() || done.Final.Outcome != mrtr.OutcomeSuccess || len(done.Final.Content) != 1 {
			t.Fatalf("%s round 2: %+v, %v", c.service, done, err)
		}
		if got := done.Final.Content[0].Text; got != c.want {
			t.Errorf("%s %s: %q, want %q", c.service, c.detail, got, c.want)
		}
	}
	r, err := h.Call(ctx, map[string]any{"service": "nosuch"}, "", nil)
	if err != nil || r.NeedsInput() || r.Final.Outcome != mrtr.OutcomeFailed || !r.Final.NotFound || r.Final.Text != "There is no service nosuch." {
		t.Fatalf("an unknown service: %+v, %v", r, err)
	}
}

// The service's name completes from the catalog.
func TestServiceNamesComplete(t *testing.T) {
	data := domaintest.New(t)
	p := NewServiceStatusProgram(&ServiceStatusImpl{Data: data}).(serviceStatusProgram)
	got, err := p.Complete(context.Background(), "service", "B", nil)
	if err != nil || len(got) != 1 || got[0] != "billing" {
		t.Fatalf("complete B: %v, %v", got, err)
	}
	if got, _ := p.Complete(context.Background(), "other", "", nil); len(got) != 0 {
		t.Fatalf("another argument: %v", got)
	}
}
