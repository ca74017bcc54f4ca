package calendars

//go:generate go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen generate ../../specs/calendars.mrtr.yaml

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ConnectCalendarImpl implements ConnectCalendarHandler on the domain store.
// The out-of-band step (the user signs in on the calendar page and grants
// access) is recorded by that page as a domain.CalendarGrant of the signed-in
// user for the workflow in its URL. GrantCompleted looks up the grant of
// f.Call.Principal for f.Call.WorkflowID: accepting the URL in the client
// proves nothing, and a grant made by another user (who opened the same
// link) is not this caller's.
//
// Access rule: only a signed-in caller may connect a calendar (a calendar
// belongs to a person); anonymous callers are refused.
type ConnectCalendarImpl struct {
	Data domain.Store
}

var _ ConnectCalendarHandler = (*ConnectCalendarImpl)(nil)

const calendarTool = "connect_calendar"

// Authorize refuses anonymous callers on every round.
func (h *ConnectCalendarImpl) Authorize(ctx context.Context, f *ConnectCalendarFlow) error {
	if f.Call.Principal == "" {
		return mrtr.Forbidden("connect_calendar connects the calendar of a signed-in user; sign in first")
	}
	return nil
}

// NotConnectedYet refuses a calendar the caller already connected.
func (h *ConnectCalendarImpl) NotConnectedYet(ctx context.Context, f *ConnectCalendarFlow) error {
	_, ok, err := domain.Load[domain.CalendarLink](ctx, h.Data, domain.CalendarLinkKey(f.Call.Principal, string(f.Args.Provider)))
	switch {
	case err != nil:
		return err
	case ok:
		return mrtr.Reject("your %s calendar is already connected", f.Args.Provider)
	}
	return nil
}

// GrantCompleted asks the calendar service for the caller's grant for this
// workflow: not there yet (the user accepted the URL but did not finish, or
// someone else did) asks again, up to the spec's three answers.
func (h *ConnectCalendarImpl) GrantCompleted(ctx context.Context, f *ConnectCalendarFlow) error {
	g, ok, err := domain.Load[domain.CalendarGrant](ctx, h.Data, domain.CalendarGrantKey(f.Call.Principal, f.Call.WorkflowID))
	switch {
	case err != nil:
		return err
	case !ok:
		return mrtr.AskAgain("The calendar service has no grant from you yet: open the page, sign in and choose Grant access.")
	case g.Provider != string(f.Args.Provider):
		return mrtr.AskAgain("The grant you gave is for your %s calendar, not your %s one: open the page again.", g.Provider, f.Args.Provider)
	}
	f.Continuation.GrantID = g.ID
	return nil
}

// EnableSync records the connected calendar once (the counter
// effects:connect_calendar:<user>:<provider> counts it); a retry that finds
// its own link already made succeeds without counting again.
func (h *ConnectCalendarImpl) EnableSync(ctx context.Context, f *ConnectCalendarFlow) error {
	user, provider := f.Call.Principal, string(f.Args.Provider)
	link := domain.CalendarLink{User: user, Provider: provider, GrantID: f.Continuation.GrantID}
	key := domain.CalendarLinkKey(user, provider)
	raw, err := jsonRecord(link)
	if err != nil {
		return err
	}
	swapped, err := h.Data.Swap(ctx, key, "", raw, domain.EffectKey(calendarTool, user+":"+provider))
	if err != nil || swapped {
		return err
	}
	have, ok, err := domain.Load[domain.CalendarLink](ctx, h.Data, key)
	switch {
	case err != nil:
		return err
	case !ok:
		return errors.New("connect_calendar: the calendar link vanished while it was written")
	case have.GrantID != link.GrantID:
		return mrtr.Reject("your %s calendar was connected meanwhile by another workflow", provider)
	}
	return nil
}

func jsonRecord(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("connect_calendar: %w", err)
	}
	return string(b), nil
}
