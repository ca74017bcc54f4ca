package tickets

//go:generate go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen generate ../../specs/tickets.mrtr.yaml

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// CloseSupportTicketImpl implements CloseSupportTicketHandler on the domain
// store: tickets are looked up there and closed there, exactly once.
//
// Access rule: a ticket that has assignees may be closed only by them; an
// unassigned ticket (the seeded demo tickets) by anyone, anonymous callers
// included.
type CloseSupportTicketImpl struct {
	Data domain.Store
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

var _ CloseSupportTicketHandler = (*CloseSupportTicketImpl)(nil)

const closeTool = "close_support_ticket"

func (h *CloseSupportTicketImpl) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Authorize applies the access rule on every round: an assignee removed
// while the user was answering can no longer finish the workflow. An
// unknown ticket is left to the lookup check, which says so.
func (h *CloseSupportTicketImpl) Authorize(ctx context.Context, f *CloseSupportTicketFlow) error {
	t, ok, err := domain.Load[domain.Ticket](ctx, h.Data, domain.TicketKey(f.Args.TicketID))
	if err != nil || !ok {
		return err
	}
	if !domain.Allowed(f.Call.Principal, t.Assignees) {
		return mrtr.Forbidden("only the ticket's assignees may close ticket %s", t.ID)
	}
	return nil
}

// TicketIsOpen looks the ticket up: it must exist and be open. Its subject
// goes into the question.
func (h *CloseSupportTicketImpl) TicketIsOpen(ctx context.Context, f *CloseSupportTicketFlow) error {
	t, ok, err := domain.Load[domain.Ticket](ctx, h.Data, domain.TicketKey(f.Args.TicketID))
	if err != nil {
		return err
	}
	if !ok {
		return mrtr.Reject("ticket %s does not exist", f.Args.TicketID)
	}
	if t.Status != "open" {
		return mrtr.Reject("ticket %s is already closed", t.ID)
	}
	f.Continuation.Subject = truncate(t.Subject, 120)
	return nil
}

// CloseTicket closes the ticket with the reason and comment the user gave,
// counting the change in effects:close_support_ticket:<id>. The engine runs
// it at most once per ticket (operation close-{ticketId}); should a retry
// still arrive after the ticket was closed by this very workflow (the
// change was made but not recorded), it finds its own change and succeeds
// without making it again.
func (h *CloseSupportTicketImpl) CloseTicket(ctx context.Context, f *CloseSupportTicketFlow) error {
	id := f.Args.TicketID
	err := domain.Update(ctx, h.Data, domain.TicketKey(id), domain.EffectKey(closeTool, id), func(t *domain.Ticket) error {
		if t.Status != "open" {
			if t.ClosedBy == f.Call.WorkflowID {
				return domain.ErrUnchanged
			}
			return mrtr.Reject("ticket %s was closed by someone else meanwhile", id)
		}
		t.Status = "closed"
		t.CloseReason = string(f.Reason.CloseReason)
		t.Comment = ""
		if f.Reason.Comment != nil {
			t.Comment = *f.Reason.Comment
		}
		t.ClosedBy = f.Call.WorkflowID
		t.ClosedAt = h.now().UTC()
		return nil
	})
	if errors.Is(err, domain.ErrNotFound) {
		return mrtr.Reject("ticket %s no longer exists", id)
	}
	return err
}

// secretPatterns catch what usually gives a credential away.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(password|passwd|pwd|passphrase|secret|api[_-]?key|access[_-]?key|token)\s*[:=]\s*\S+`),
	regexp.MustCompile(`\b(sk|pk|rk)_(live|test)_[0-9A-Za-z]{10,}`),   // payment provider keys
	regexp.MustCompile(`\bgh[pousr]_[0-9A-Za-z]{30,}`),                // GitHub tokens
	regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`),                        // AWS access key ids
	regexp.MustCompile(`\bxox[abpsr]-[0-9A-Za-z-]{10,}`),              // Slack tokens
	regexp.MustCompile(`\beyJ[0-9A-Za-z_-]{8,}\.[0-9A-Za-z_-]{8,}\.`), // JWTs
	regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----`),
}

// NoSecrets refuses comments that look like they carry a password, token or
// API key: the comment is sent to the customer. The refusal is
// mrtr.Invalid, shown to the user, who is asked for the comment again (any
// other error would mean the check itself failed).
func (h *CloseSupportTicketImpl) NoSecrets(ctx context.Context, value string) error {
	for _, re := range secretPatterns {
		if re.MatchString(value) {
			return mrtr.Invalid("looks like it contains a password, token or API key; leave secrets out of the comment")
		}
	}
	return nil
}

// truncate shortens s to at most n runes.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
