// Package approval keeps the approvals that confirmation gates wait for.
//
// A gate with an approval policy (docs/approvals.md) does not trust the
// chat's answer: it asks this package for the approval of exactly the
// action it is about to let through, identified by a digest of the tool,
// the requester, the arguments, the answers and the summary shown. The
// record of that approval, in the shared store, is the authority: the
// effect runs only when it is approved under the policy by the principals
// the policy admits, before its deadline, and only once. People decide on
// the approval page (Handler) through a signed link, by the JSON API of
// the same handler, or, where the policy lets the requester approve, in
// the chat by the gate's form. Nothing waits in memory: timers (reminders,
// escalation, the deadline) are due times on the record, fired by every
// instance's Run loop, and notices to people go through a durable outbox
// on the record.
package approval

import (
	"encoding/json"
	"slices"
	"time"
)

// State is where an approval stands.
type State string

const (
	// Pending: waiting for decisions.
	Pending State = "pending"
	// Approved: the policy's count of distinct approvers approved.
	Approved State = "approved"
	// Declined: an admitted approver declined (one decline is enough).
	Declined State = "declined"
	// Expired: the deadline passed first. Absence of approval is not
	// approval: an expired record never lets the effect run.
	Expired State = "expired"
	// Withdrawn: the requester gave up (declined or cancelled the offer
	// of the link in the chat).
	Withdrawn State = "withdrawn"
)

// Decided reports whether s is final.
func (s State) Decided() bool { return s != Pending }

// Requester says what the requester may do with their own request.
type Requester string

const (
	// RequesterExcluded (the default, "four eyes"): someone else must
	// approve.
	RequesterExcluded Requester = "excluded"
	// RequesterPage: the requester may approve on the page or the API,
	// signed in, as anyone the policy admits.
	RequesterPage Requester = "page"
	// RequesterChat: the requester may also approve in the chat, by the
	// gate's form, where the client can show one.
	RequesterChat Requester = "chat"
)

// Policy is what the spec says an approval needs.
type Policy struct {
	// Role names who may approve, resolved to principals by the handler's
	// hook when the approval is requested ("" with no Approvers hook:
	// any signed-in principal the Requester rule admits).
	Role string `json:"role,omitempty"`
	// Count is how many distinct approvers must approve (at least 1).
	Count int `json:"count"`
	// Requester is what the requester may do.
	Requester Requester `json:"requester"`
	// Deadline is how long the approval may take, from the request.
	Deadline time.Duration `json:"deadline"`
	// Remind are times after the request at which the approvers not yet
	// decided are reminded.
	Remind []time.Duration `json:"remind,omitempty"`
	// Escalate, when set, is the time after the request at which the
	// escalation principals are notified and admitted as approvers.
	Escalate time.Duration `json:"escalate,omitempty"`
	// EscalateRole names them (resolved like Role).
	EscalateRole string `json:"escalateRole,omitempty"`
	// Revision identifies the spec's gate (its message, form and policy):
	// a record is bound to the revision it was requested under.
	Revision string `json:"revision"`
}

// Channel is how a decision reached the record.
type Channel string

const (
	ChannelChat  Channel = "chat"  // the gate's elicitation form
	ChannelPage  Channel = "page"  // the approval page
	ChannelAPI   Channel = "api"   // the JSON API
	ChannelTimer Channel = "timer" // the deadline (expiry), a reminder
)

// Decision is one approver's decision.
type Decision struct {
	Approver string    `json:"approver"`
	Approve  bool      `json:"approve"`
	Reason   string    `json:"reason,omitempty"`
	Channel  Channel   `json:"channel"`
	At       time.Time `json:"at"`
}

// EventKind names an audit event.
type EventKind string

const (
	EventRequested EventKind = "requested"
	EventApproved  EventKind = "approved" // one approver approved
	EventDeclined  EventKind = "declined"
	EventRefused   EventKind = "refused" // a decision the policy refused (who, why)
	EventNotified  EventKind = "notified"
	EventNotifyErr EventKind = "notify_failed"
	EventEscalated EventKind = "escalated"
	EventExpired   EventKind = "expired"
	EventWithdrawn EventKind = "withdrawn"
	EventConsumed  EventKind = "consumed" // a workflow took the outcome
)

// Event is one entry of a record's audit trail. Events are only ever
// appended. They hold principals, channels, reasons and times: never the
// arguments or answers (the Summary, shown to approvers, is on the
// record).
type Event struct {
	At      time.Time `json:"at"`
	Kind    EventKind `json:"kind"`
	Actor   string    `json:"actor,omitempty"`
	Channel Channel   `json:"channel,omitempty"`
	Reason  string    `json:"reason,omitempty"`
	// Detail says more: the notice kind of notified, the refusal code of
	// refused, the workflow of consumed.
	Detail string `json:"detail,omitempty"`
}

// NoticeKind says why people are told about an approval.
type NoticeKind string

const (
	NoticeRequest    NoticeKind = "request"    // to the approvers
	NoticeReminder   NoticeKind = "reminder"   // to approvers yet to decide
	NoticeEscalation NoticeKind = "escalation" // to the escalation principals
	NoticeDecided    NoticeKind = "decided"    // to the requester: approved or declined
	NoticeExpired    NoticeKind = "expired"    // to the requester and approvers
	// noticeWake resumes the tasks waiting for the record (Config.Resume),
	// not a notice to people.
	noticeWake NoticeKind = "wake"
)

// outboxEntry is a notice to deliver; the Run loop delivers the head of a
// record's outbox, at least once (a lease covers the delivery: an
// instance that dies while delivering leaves it to another after the
// lease).
type outboxEntry struct {
	Kind   NoticeKind `json:"kind"`
	To     []string   `json:"to,omitempty"`
	Leased time.Time  `json:"leased,omitzero"` // delivery in progress until then
	Tries  int        `json:"tries,omitempty"`
}

// Record is one approval: what it approves, under which policy, and what
// happened to it.
type Record struct {
	ID string `json:"id"`
	// Digest is the hex SHA-256 of the action (Action.Digest).
	Digest    string `json:"digest"`
	Tool      string `json:"tool"`
	Gate      string `json:"gate"`
	Workflow  string `json:"workflow"` // the workflow that requested it
	Requester string `json:"requester"`
	// Summary is the gate's message as the requester saw it: what the
	// approvers are shown and approve.
	Summary string `json:"summary"`
	Policy  Policy `json:"policy"`
	// Approvers and Escalation are the principals the hooks resolved when
	// it was requested (nil: the policy admits anyone signed in; empty: a
	// role resolved to nobody admits nobody). omitzero, not omitempty: the
	// stored record must keep an empty list apart from nil.
	Approvers  []string   `json:"approvers,omitzero"`
	Escalation []string   `json:"escalation,omitzero"`
	Created    time.Time  `json:"created"`
	Deadline   time.Time  `json:"deadline"`
	State      State      `json:"state"`
	Decisions  []Decision `json:"decisions,omitempty"`
	// DecidedAt is when the record left Pending.
	DecidedAt time.Time `json:"decidedAt,omitzero"`
	// ConsumedBy is the workflow that took the outcome (passed the gate,
	// or ended declined or expired); "" while nobody has.
	ConsumedBy string `json:"consumedBy,omitempty"`
	// Waiters are the tasks waiting for the record (Action.Waiter), woken
	// by Config.Resume when it leaves Pending.
	Waiters   []string      `json:"waiters,omitempty"`
	Reminders int           `json:"reminders,omitempty"` // reminders fired
	Escalated bool          `json:"escalated,omitempty"`
	Outbox    []outboxEntry `json:"outbox,omitempty"`
	Events    []Event       `json:"events"`

	version int64
}

// left records that rec left Pending: the tasks waiting for it are woken.
//
// The wake goes first in the outbox, so that notices to people that fail
// and are retried do not hold the waiting tasks back; only a notice being
// delivered (leased: its instance compares the head when it is done)
// stays ahead of it.
func (r *Record) left() {
	if len(r.Waiters) == 0 {
		return
	}
	at := 0
	if len(r.Outbox) > 0 && r.Outbox[0].Tries > 0 {
		at = 1
	}
	r.Outbox = slices.Insert(r.Outbox, at, outboxEntry{Kind: noticeWake, To: slices.Clone(r.Waiters)})
}

// lapses reports whether the deadline still ends rec: pending, or
// approved and not yet taken by a workflow.
func (r *Record) lapses() bool {
	return r.State == Pending || (r.State == Approved && r.ConsumedBy == "")
}

// Approvals counts the distinct approvers who approved.
func (r *Record) Approvals() int {
	n := 0
	for _, d := range r.Decisions {
		if d.Approve {
			n++
		}
	}
	return n
}

// DecidedBy reports whether principal decided already.
func (r *Record) DecidedBy(principal string) bool {
	return slices.ContainsFunc(r.Decisions, func(d Decision) bool { return d.Approver == principal })
}

// clone returns a deep copy (through its encoding).
func (r *Record) clone() *Record {
	b, _ := json.Marshal(r)
	var c Record
	_ = json.Unmarshal(b, &c)
	c.version = r.version
	return &c
}

// Undecided are the admitted approvers who have not decided yet (nil when
// the policy admits anyone).
func (r *Record) Undecided() []string {
	var out []string
	for _, p := range r.admitted() {
		if !r.DecidedBy(p) && !(p == r.Requester && r.Policy.Requester == RequesterExcluded) {
			out = append(out, p)
		}
	}
	return out
}

func (r *Record) admitted() []string {
	if !r.Escalated {
		return r.Approvers
	}
	return append(slices.Clone(r.Approvers), r.Escalation...)
}

// nextTimer is when the record's next timer is due: the head of its
// outbox (now, or when its lease ends), the next reminder, the
// escalation, the deadline. Zero when nothing is due.
func (r *Record) nextTimer(now time.Time) time.Time {
	var due time.Time
	earliest := func(t time.Time) {
		if due.IsZero() || t.Before(due) {
			due = t
		}
	}
	if len(r.Outbox) > 0 {
		if h := r.Outbox[0]; h.Leased.After(now) {
			earliest(h.Leased)
		} else {
			earliest(now)
		}
	}
	if r.State == Pending {
		if r.Reminders < len(r.Policy.Remind) {
			earliest(r.Created.Add(r.Policy.Remind[r.Reminders]))
		}
		if r.Policy.Escalate > 0 && !r.Escalated {
			earliest(r.Created.Add(r.Policy.Escalate))
		}
		earliest(r.Deadline)
	}
	return due
}
