package app

import (
	"context"
	"time"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/generated/calendars"
	"github.com/mrtrgen/mrtrgen/examples/generated/customers"
	"github.com/mrtrgen/mrtrgen/examples/generated/deployments"
	"github.com/mrtrgen/mrtrgen/examples/generated/onboarding"
	"github.com/mrtrgen/mrtrgen/examples/generated/payments"
	"github.com/mrtrgen/mrtrgen/examples/generated/payouts"
	"github.com/mrtrgen/mrtrgen/examples/generated/refunds"
	"github.com/mrtrgen/mrtrgen/examples/generated/releases"
	"github.com/mrtrgen/mrtrgen/examples/generated/rollouts"
	"github.com/mrtrgen/mrtrgen/examples/generated/subscriptions"
	"github.com/mrtrgen/mrtrgen/examples/generated/tickets"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// effectProbe wraps the effect methods of the example handlers for fault
// tests (Config.EffectLog, Config.EffectDelay): every run the engine makes
// is logged from the handler's side, before the handler acts and after it
// returns, and may be slowed down. The handlers themselves are unchanged.
type effectProbe struct {
	log   *domain.EffectLog // nil: delay only
	delay time.Duration
}

func newEffectProbe(path, instance string, delay time.Duration) (*effectProbe, error) {
	p := &effectProbe{delay: delay}
	if path != "" {
		l, err := domain.OpenEffectLog(path, instance)
		if err != nil {
			return nil, err
		}
		p.log = l
	}
	return p, nil
}

func (p *effectProbe) close() error {
	if p.log == nil {
		return nil
	}
	return p.log.Close()
}

// run logs the start of an effect, waits out the delay (the effect is then
// in progress: a kill now is a crash mid-effect), runs it and logs its end.
func (p *effectProbe) run(ctx context.Context, call *mrtr.Call, tool, id string, effect func(context.Context) error) error {
	end := func(error) {}
	if p.log != nil {
		var err error
		if end, err = p.log.Start(attemptEvent(call, tool, id)); err != nil {
			return err
		}
	}
	if p.delay > 0 {
		t := time.NewTimer(p.delay)
		select {
		case <-ctx.Done():
			t.Stop()
			end(ctx.Err())
			return ctx.Err()
		case <-t.C:
		}
	}
	err := effect(ctx)
	end(err)
	return err
}

// probed is run for an effect method of a handler: it runs effect(ctx, f)
// under the probe, so each wrapper below is one line of what differs (the
// tool, the id the effect log knows the run by, the wrapped method).
func probed[F any](ctx context.Context, p *effectProbe, call *mrtr.Call, tool, id string,
	effect func(context.Context, F) error, f F) error {
	return p.run(ctx, call, tool, id, func(ctx context.Context) error { return effect(ctx, f) })
}

// attemptEvent describes the run: which workflow, and what the engine says
// about this attempt.
func attemptEvent(call *mrtr.Call, tool, id string) domain.EffectEvent {
	ev := domain.EffectEvent{Tool: tool, ID: id, Workflow: call.WorkflowID}
	if a := call.Attempt; a != nil {
		ev.Operation, ev.Takeover = string(a.OperationID), a.Takeover
	}
	return ev
}

// handlers are the example tools' handlers, as the app registers them.
type handlers struct {
	tickets       tickets.CloseSupportTicketHandler
	customers     customers.DeleteCustomerHandler
	payments      payments.ChargePaymentHandler
	onboarding    onboarding.ProvisionWorkspaceHandler
	subscriptions subscriptions.CancelSubscriptionHandler
	releases      releases.ApproveDeploymentHandler
	refunds       refunds.RefundOrderHandler
	rollouts      rollouts.RollOutReleaseHandler
	calendars     calendars.ConnectCalendarHandler
	deployments   deployments.DeployReleaseHandler
	payouts       payouts.SendPayoutHandler
}

func (p *effectProbe) wrap(h handlers) handlers {
	return handlers{
		tickets:       probedTicket{h.tickets, p},
		customers:     probedCustomer{h.customers, p},
		payments:      probedPayment{h.payments, p},
		onboarding:    probedWorkspace{h.onboarding, p},
		subscriptions: probedSubscription{h.subscriptions, p},
		releases:      probedRelease{h.releases, p},
		refunds:       probedRefund{h.refunds, p},
		rollouts:      probedRollout{h.rollouts, p},
		calendars:     probedCalendar{h.calendars, p},
		deployments:   probedDeploy{h.deployments, p},
		payouts:       probedPayout{h.payouts, p},
	}
}

type probedTicket struct {
	tickets.CloseSupportTicketHandler
	p *effectProbe
}

func (h probedTicket) CloseTicket(ctx context.Context, f *tickets.CloseSupportTicketFlow) error {
	return probed(ctx, h.p, f.Call, "close_support_ticket", f.Args.TicketID, h.CloseSupportTicketHandler.CloseTicket, f)
}

type probedCustomer struct {
	customers.DeleteCustomerHandler
	p *effectProbe
}

func (h probedCustomer) DeleteCustomer(ctx context.Context, f *customers.DeleteCustomerFlow) error {
	return probed(ctx, h.p, f.Call, "delete_customer", f.Args.CustomerID, h.DeleteCustomerHandler.DeleteCustomer, f)
}

type probedPayment struct {
	payments.ChargePaymentHandler
	p *effectProbe
}

func (h probedPayment) ChargeCard(ctx context.Context, f *payments.ChargePaymentFlow) error {
	return probed(ctx, h.p, f.Call, "charge_payment", f.Args.InvoiceID, h.ChargePaymentHandler.ChargeCard, f)
}

type probedWorkspace struct {
	onboarding.ProvisionWorkspaceHandler
	p *effectProbe
}

func (h probedWorkspace) CreateWorkspace(ctx context.Context, f *onboarding.ProvisionWorkspaceFlow) error {
	return probed(ctx, h.p, f.Call, "provision_workspace", f.Args.Team, h.ProvisionWorkspaceHandler.CreateWorkspace, f)
}

type probedSubscription struct {
	subscriptions.CancelSubscriptionHandler
	p *effectProbe
}

func (h probedSubscription) CancelSubscription(ctx context.Context, f *subscriptions.CancelSubscriptionFlow) error {
	return probed(ctx, h.p, f.Call, "cancel_subscription", f.Continuation.CustomerID, h.CancelSubscriptionHandler.CancelSubscription, f)
}

type probedRelease struct {
	releases.ApproveDeploymentHandler
	p *effectProbe
}

func (h probedRelease) DeployBuilds(ctx context.Context, f *releases.ApproveDeploymentFlow) error {
	return probed(ctx, h.p, f.Call, "approve_deployment", string(f.Args.Environment), h.ApproveDeploymentHandler.DeployBuilds, f)
}

type probedRefund struct {
	refunds.RefundOrderHandler
	p *effectProbe
}

func (h probedRefund) RefundToCard(ctx context.Context, f *refunds.RefundOrderFlow) error {
	return probed(ctx, h.p, f.Call, "refund_order", f.Args.OrderID, h.RefundOrderHandler.RefundToCard, f)
}

type probedRollout struct {
	rollouts.RollOutReleaseHandler
	p *effectProbe
}

func (h probedRollout) StartRollout(ctx context.Context, f *rollouts.RollOutReleaseFlow) error {
	return probed(ctx, h.p, f.Call, "roll_out_release", f.Args.Component, h.RollOutReleaseHandler.StartRollout, f)
}

type probedCalendar struct {
	calendars.ConnectCalendarHandler
	p *effectProbe
}

func (h probedCalendar) EnableSync(ctx context.Context, f *calendars.ConnectCalendarFlow) error {
	return probed(ctx, h.p, f.Call, "connect_calendar", f.Call.Principal+":"+string(f.Args.Provider), h.ConnectCalendarHandler.EnableSync, f)
}

type probedDeploy struct {
	deployments.DeployReleaseHandler
	p *effectProbe
}

func (h probedDeploy) DeployCanary(ctx context.Context, f *deployments.DeployReleaseFlow) error {
	return probed(ctx, h.p, f.Call, "deploy_release", "canary:"+f.Args.Service, h.DeployReleaseHandler.DeployCanary, f)
}

func (h probedDeploy) PromoteRelease(ctx context.Context, f *deployments.DeployReleaseFlow) error {
	return probed(ctx, h.p, f.Call, "deploy_release", "promote:"+f.Args.Service, h.DeployReleaseHandler.PromoteRelease, f)
}

func (h probedDeploy) RollbackCanary(ctx context.Context, f *deployments.DeployReleaseFlow) error {
	return probed(ctx, h.p, f.Call, "deploy_release", "rollback:"+f.Args.Service, h.DeployReleaseHandler.RollbackCanary, f)
}

type probedPayout struct {
	payouts.SendPayoutHandler
	p *effectProbe
}

func (h probedPayout) SendPayout(ctx context.Context, f *payouts.SendPayoutFlow) error {
	return probed(ctx, h.p, f.Call, "send_payout", f.Args.Payee, h.SendPayoutHandler.SendPayout, f)
}
