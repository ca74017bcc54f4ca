package spec

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// approvalDoc is a gate's approval block; the schema checks the types,
// the count's range and the requester's values.
type approvalDoc struct {
	Approvers, Requester string
	Count, Deadline      ynode
	Remind, Escalate     ynode
}

// escalateDoc is an approval's escalation.
type escalateDoc struct {
	After ynode
	To    string
}

// decodeApproval decodes a gate's approval policy (k is its key): the
// defaults filled in, the times checked against each other.
func (d *decoder) decodeApproval(k, n *yaml.Node) *Approval {
	var doc approvalDoc
	decodeInto(n, &doc)
	a := &Approval{Approvers: doc.Approvers, Count: 1, Requester: RequesterExcluded, Deadline: DefaultApprovalDeadline, DeadlinePos: d.pos(k), Pos: d.pos(k)}
	if doc.Requester != "" {
		a.Requester = doc.Requester
	}
	if doc.Count.Node != nil {
		a.Count = d.intVal(doc.Count.Node)
	}
	if doc.Deadline.Node != nil {
		a.Deadline, a.DeadlinePos = d.duration(doc.Deadline.Node), d.pos(doc.Deadline.Node)
		if a.Deadline > MaxApprovalDeadline {
			d.errorf(doc.Deadline.Node, "approval", "keep an approval's deadline within 720h (30 days); a longer business process is a workflow of its own", "approval deadline %s is longer than 720h", doc.Deadline.Value)
		}
	}
	var remindAt []Pos
	if r := doc.Remind.Node; r != nil && r.Kind == yaml.SequenceNode {
		a.RemindPos = d.pos(keyNode(n, "remind"))
		for _, c := range r.Content {
			a.Remind, remindAt = append(a.Remind, d.duration(c)), append(remindAt, d.pos(c))
		}
	}
	if e := doc.Escalate.Node; e != nil {
		var ed escalateDoc
		decodeInto(e, &ed)
		a.EscalateTo, a.EscalatePos = ed.To, d.pos(e)
		if ed.After.Node != nil {
			a.Escalate, a.EscalatePos = d.duration(ed.After.Node), d.pos(ed.After.Node)
		}
	}
	d.checkApprovalTimes(a, remindAt)
	return a
}

// checkApprovalTimes reports reminders out of order, and reminders or an
// escalation that would come at or after the deadline (when nobody can
// approve any more).
func (d *decoder) checkApprovalTimes(a *Approval, remindAt []Pos) {
	for i, r := range a.Remind {
		switch {
		case r <= 0:
		case i > 0 && r <= a.Remind[i-1]:
			d.errorfAt(remindAt[i], "approval", "list the reminders in ascending order, each once", "reminder %s is not after the reminder before it (%s)", DurationText(r), DurationText(a.Remind[i-1]))
		case a.Deadline > 0 && r >= a.Deadline:
			d.errorfAt(remindAt[i], "approval", "remind before the deadline, or lengthen the deadline", "reminder %s is not before the approval's deadline (%s)", DurationText(r), DurationText(a.Deadline))
		}
	}
	if a.Escalate > 0 && a.Deadline > 0 && a.Escalate >= a.Deadline {
		d.errorfAt(a.EscalatePos, "approval", "escalate before the deadline, or lengthen the deadline", "escalation after %s is not before the approval's deadline (%s)", DurationText(a.Escalate), DurationText(a.Deadline))
	}
}

// checkApproval reports what an approval gate cannot have, and an
// approval where none can be given: a typed text (the approval replaces
// the typed confirmation), onExpire without an approval, an approval in
// a prompt or a resource (only a tool's call can wait for people).
func (d *decoder) checkApproval(s *State, keys map[string]*yaml.Node) {
	a := s.Approval()
	if k := keys["onExpire"]; k != nil && a == nil && s.Kind == vocab.StateConfirm {
		d.errorf(k, "approval", "add approval: {...} to the gate, or drop onExpire", "state %q: onExpire is where an approval goes when its deadline passes, but this gate has no approval", s.Name)
	}
	if a == nil {
		return
	}
	if d.kind != vocab.KindTool {
		d.errorfAt(a.Pos, "approval", "ask for the approval in a tool; a "+d.kind.String()+" cannot wait for people", "state %q: approval is for tools, not %ss", s.Name, d.kind)
		s.Confirm.Approval = nil
		return
	}
	if s.Confirm.Typed != nil {
		d.errorfAt(s.Confirm.Typed.Pos, "approval", "drop typed: the approvers decide on the message, on the approval page", "state %q: a gate with an approval cannot also be a typed confirmation", s.Name)
	}
}

// DurationText writes a duration the way specs write it (15m, 1h30m, 72h).
func DurationText(v time.Duration) string {
	s := v.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Who says who may approve: "role finance", or "anyone signed in".
func (a *Approval) Who() string {
	if a.Approvers == "" {
		return "anyone signed in"
	}
	return "role " + a.Approvers
}

// Summary says the policy in one line, for comments, pages and diagrams:
// "2 of role finance, requester excluded, deadline 24h, reminders at 1h,
// 8h".
func (a *Approval) Summary() string {
	s := fmt.Sprintf("%d of %s, requester %s, deadline %s", a.Count, a.Who(), a.Requester, DurationText(a.Deadline))
	for i, d := range a.Remind {
		if i == 0 {
			s += ", reminders at "
		} else {
			s += ", "
		}
		s += DurationText(d)
	}
	if a.Escalate > 0 {
		s += fmt.Sprintf(", escalated to role %s at %s", a.EscalateTo, DurationText(a.Escalate))
	}
	return s
}
