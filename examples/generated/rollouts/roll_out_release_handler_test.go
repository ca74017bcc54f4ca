package rollouts

import (
	"context"
	"testing"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domaintest"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

func release(component, version string) RollOutReleaseArgs {
	return RollOutReleaseArgs{Component: component, Version: version}
}

func ticket(id string) RollOutReleaseTicketAnswer { return RollOutReleaseTicketAnswer{ID: id} }

// TestRollOutReleaseRealMatrix runs the MRTR matrix against the real
// handler on fraud-model v3.2.0 (high risk: the rollout is asked, canary first),
// which only its deployers alice and bob may roll out; the variant rolls out
// without a canary.
func TestRollOutReleaseRealMatrix(t *testing.T) {
	data := domaintest.New(t)
	mrtrtest.RunMatrix(t, NewRollOutReleaseProgram(&RollOutReleaseImpl{Data: data}), mrtrtest.Fixtures{
		Args: release("fraud-model", "v3.2.0"),
		Answers: mrtrtest.Answers(ticket("CHG-1005"),
			RollOutReleaseRolloutAnswer{Strategy: RollOutReleaseStrategyCanary},
			RollOutReleaseCanaryAnswer{Percent: 5}),
		Invalid:      mrtrtest.Answers(ticket("CHG-x")),
		Principal:    "alice",
		Other:        "bob",
		Unauthorized: "mallory",
		OtherArgs:    release("fraud-model", "v3.3.0"),
		Effects:      data.Effects(rolloutTool, "fraud-model"),
		Break:        data.BreakWrites,
		Variants: []mrtrtest.Variant{{
			Name:    "a rolling update",
			Answers: mrtrtest.Answers(RollOutReleaseRolloutAnswer{Strategy: RollOutReleaseStrategyRolling}),
		}},
	}, data.Harness(t))
}

// A ticket for another release is refused as it is answered, by the
// validator that reads the release from the flow, saying why; the right one
// goes through, and a low-risk component asks no rollout.
func TestRollOutReleaseAsksAgainForTheTicket(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewRollOutReleaseProgram(&RollOutReleaseImpl{Data: data}))
	DriveRollOutRelease(t, h, release("docs-site", "v2.1.0")).
		WantQuestion("ticket", "covers rolling out docs-site v2.1.0 to production (now v2.0.0)").
		Answer(ticket("CHG-1001")).
		WantQuestion("ticket", "Please correct: id: ticket CHG-1001 is for payments-api, not docs-site; give the ticket of docs-site v2.1.0.").
		Answer(ticket("CHG-9999")).
		WantQuestion("ticket", "Please correct: id: there is no change ticket CHG-9999.").
		Answer(ticket("CHG-1003")).
		WantAsks("confirmRolling").
		WantQuestion("confirmRolling", "Roll out docs-site v2.1.0 to PRODUCTION under CHG-1003 as a rolling update?").
		Confirm().
		WantEnd(mrtr.OutcomeSuccess, "Rolling out docs-site v2.1.0 under CHG-1003 (rollout ro_")
	s, _, _ := domain.Load[domain.Component](ctx, data, domain.ComponentKey("docs-site"))
	ro, ok, _ := domain.Load[domain.Rollout](ctx, data, domain.RolloutKey(s.Rollout))
	if s.Version != "v2.1.0" || !ok || ro.Strategy != "rolling" || ro.Ticket != "CHG-1003" {
		t.Fatalf("component %+v, rollout %+v (found %v)", s, ro, ok)
	}
	// A second workflow for the same release shares its operation: refused.
	DriveRollOutRelease(t, h, release("docs-site", "v2.1.0")).WantEnd(mrtr.OutcomeRejected, "already running")
	if n := data.Effects(rolloutTool, "docs-site")(); n != 1 {
		t.Fatalf("rolled out %d times", n)
	}
}

// A ticket for the release that is not approved yet passes the validator
// and is refused by the check, which asks again saying why.
func TestRollOutReleaseAsksAgainForAnApprovedTicket(t *testing.T) {
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewRollOutReleaseProgram(&RollOutReleaseImpl{Data: data}))
	DriveRollOutRelease(t, h, release("payments-api", "v1.5.0")).
		Answer(ticket("CHG-1002")).
		WantQuestion("ticket", "ticket CHG-1002 is pending, not approved; give a ticket that approves payments-api v1.5.0 (2 attempts left)").
		Answer(ticket("CHG-1001")).
		WantAsks("rollout")
}

// Three tickets for other releases end the workflow (the validator's
// refusals are bounded by the ask's maxAttempts); nothing is rolled out.
func TestRollOutReleaseRunsOutOfTickets(t *testing.T) {
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewRollOutReleaseProgram(&RollOutReleaseImpl{Data: data}))
	DriveRollOutRelease(t, h, release("payments-api", "v1.5.0")).
		Answer(ticket("CHG-1004")).
		WantQuestion("ticket", "ticket CHG-1004 is for payments-api v1.4.9, not v1.5.0").
		Answer(ticket("CHG-1003")).
		WantQuestion("ticket", "ticket CHG-1003 is for docs-site, not payments-api").
		Answer(ticket("CHG-9999")).
		WantEnd(mrtr.OutcomeFailed, "No approved change ticket covers payments-api v1.5.0")
	if n := data.Effects(rolloutTool, "payments-api")(); n != 0 {
		t.Fatalf("rolled out %d times", n)
	}
}

// A high-risk component chooses its rollout; a canary asks for its share,
// which the rollout records.
func TestRollOutReleaseCanary(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewRollOutReleaseProgram(&RollOutReleaseImpl{Data: data}))
	DriveRollOutRelease(t, h, release("payments-api", "v1.5.0")).
		Answer(ticket("CHG-1001")).
		WantAsks("rollout").
		Answer(RollOutReleaseRolloutAnswer{Strategy: RollOutReleaseStrategyCanary}).
		Answer(RollOutReleaseCanaryAnswer{Percent: 10}).
		WantQuestion("confirmCanary", "under CHG-1001, 10 % of the traffic first?").
		Confirm().
		WantEnd(mrtr.OutcomeSuccess, "Rolling out payments-api v1.5.0")
	s, _, _ := domain.Load[domain.Component](ctx, data, domain.ComponentKey("payments-api"))
	ro, _, _ := domain.Load[domain.Rollout](ctx, data, domain.RolloutKey(s.Rollout))
	if ro.Strategy != "canary" || ro.CanaryPercent != 10 {
		t.Fatalf("rollout %+v, want a 10 %% canary", ro)
	}
}

// The ticket withdrawn while the user decided: nothing is rolled out.
func TestRollOutReleaseTicketWithdrawn(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewRollOutReleaseProgram(&RollOutReleaseImpl{Data: data}))
	d := DriveRollOutRelease(t, h, release("docs-site", "v2.1.0")).Answer(ticket("CHG-1003")).WantAsks("confirmRolling")
	if err := domain.Update(ctx, data, domain.ChangeKey("CHG-1003"), "", func(c *domain.ChangeTicket) error {
		c.Status = "rejected"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	d.Confirm().WantEnd(mrtr.OutcomeRejected, "ticket CHG-1003 no longer approves docs-site v2.1.0")
	if n := data.Effects(rolloutTool, "docs-site")(); n != 0 {
		t.Fatalf("rolled out %d times", n)
	}
}

func TestRollOutReleaseRefusals(t *testing.T) {
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewRollOutReleaseProgram(&RollOutReleaseImpl{Data: data}))
	for _, c := range []struct {
		principal, component, version string
		want                          mrtr.Outcome
		text                          string
	}{
		{"alice", "billing-ui", "v1.0.0", mrtr.OutcomeRejected, "unknown component billing-ui"},
		{"alice", "payments-api", "v1.4.2", mrtr.OutcomeRejected, "payments-api v1.4.2 is already running"},
		{"", "fraud-model", "v3.2.0", mrtr.OutcomeUnauthorized, "only the deployers of fraud-model may roll it out"},
		{"mallory", "fraud-model", "v3.2.0", mrtr.OutcomeUnauthorized, "only the deployers of fraud-model may roll it out"},
	} {
		t.Run(c.principal+" rolling out "+c.component, func(t *testing.T) {
			h.Principal = c.principal
			DriveRollOutRelease(t, h, release(c.component, c.version)).WantEnd(c.want, c.text)
		})
	}
}
