package breaking

import (
	"fmt"
	"strings"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Continuation rules: a token minted by one build must open on the other
// (docs/evolution.md). They apply only to workflows that can wait for a
// next round in either build: without an ask or gate no token exists.

// carriedAnswer is an input request of an ask whose answer tokens carry: a
// workflow can still wait for a round after the ask is answered. nq is nil
// when the new version no longer asks it.
type carriedAnswer struct {
	os, ns *spec.State
	oq, nq *spec.InputRequest
}

func carriedAnswers(p *pair) []carriedAnswer {
	if !p.waits {
		return nil
	}
	var out []carriedAnswer
	for _, os := range p.old.States {
		ns := p.new.State(os.Name)
		if os.Kind != vocab.StateAsk || ns == nil || ns.Kind != vocab.StateAsk {
			continue
		}
		if !p.og.waitsAfter(os.Name) && !p.ng.waitsAfter(ns.Name) {
			continue
		}
		for _, oq := range os.Requests {
			out = append(out, carriedAnswer{os: os, ns: ns, oq: oq, nq: ns.Request(oq.Key)})
		}
	}
	return out
}

// carriedValue is a value tokens carry, present in both versions: a
// continuation field, or a form field of a carried answer.
type carriedValue struct {
	what     string // `continuation field "subject"`
	old, new *spec.Field
	sc       scope
}

func (c *comparer) carriedValues(p *pair) []carriedValue {
	if !p.waits {
		return nil
	}
	var out []carriedValue
	for _, of := range p.old.Continuation.Fields {
		if nf := p.new.Continuation.Field(of.Name); nf != nil {
			out = append(out, carriedValue{fmt.Sprintf("continuation field %q", of.Name), of, nf, c.toolScope(p.new, nf.Lint)})
		}
	}
	seen := map[string]bool{} // a question asked in several states is one answer
	for _, a := range carriedAnswers(p) {
		if a.nq == nil || a.oq.Kind != vocab.Elicit || a.nq.Kind != vocab.Elicit {
			continue
		}
		for _, of := range a.oq.Fields {
			if seen[a.oq.Key+"."+of.Name] {
				continue
			}
			seen[a.oq.Key+"."+of.Name] = true
			if nf := a.nq.Field(of.Name); nf != nil {
				out = append(out, carriedValue{fmt.Sprintf("answer field %q", a.oq.Key+"."+of.Name), of, nf, c.toolScope(p.new, nf.Lint, a.nq.Lint, a.ns.Lint)})
			}
		}
	}
	return out
}

func checkStateRemoved(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		for _, os := range p.old.States {
			if _, reached := p.og.state(os.Name); !reached || !os.Interactive() || p.new.State(os.Name) != nil {
				continue
			}
			c.report(r, p.new.Pos, os.Pos, c.toolScope(p.new),
				"%s state %q of %s %q was removed or renamed: a workflow waiting in it is refused after the deploy (state_removed)",
				os.Kind, os.Name, p.new.Kind, p.new.Name)
		}
	}
}

func checkStateKindChanged(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		for _, os := range p.old.States {
			ns := p.new.State(os.Name)
			if _, reached := p.og.state(os.Name); !reached || !os.Interactive() || ns == nil || ns.Kind == os.Kind {
				continue
			}
			c.report(r, ns.Pos, spec.Pos{}, c.toolScope(p.new, ns.Lint),
				"state %q was %s state and is now %s state: a workflow waiting in it is refused after the deploy (state_changed)",
				ns.Name, article(os.Kind), article(ns.Kind))
		}
	}
}

func checkCarriedTypeChanged(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		for _, v := range c.carriedValues(p) {
			if v.old.WireType() != v.new.WireType() {
				c.report(r, v.new.Pos, spec.Pos{}, v.sc,
					"%s changed its wire type from %s to %s: a waiting workflow that carries it is refused (field_type_changed)",
					v.what, v.old.WireType(), v.new.WireType())
			}
		}
		for _, a := range carriedAnswers(p) {
			if a.nq != nil && a.oq.WireType() != a.nq.WireType() {
				c.report(r, a.nq.Pos, spec.Pos{}, c.toolScope(p.new, a.nq.Lint, a.ns.Lint),
					"the answer %q was a %s (%s) and is now a %s (%s): a waiting workflow that carries it is refused (field_type_changed)",
					a.oq.Key, a.oq.WireType(), a.oq.Kind.Method(), a.nq.WireType(), a.nq.Kind.Method())
			}
		}
	}
}

func checkEnumValueRemoved(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		for _, v := range c.carriedValues(p) {
			if v.old.WireType() != v.new.WireType() {
				continue // carried-type-changed's
			}
			if vs := removedValues(v.old, v.new); len(vs) > 0 {
				c.report(r, v.new.Pos, vs[0].Pos, v.sc,
					"%s: %s: a waiting workflow holding a removed value is refused (enum_value_removed)", v.what, valuesText(vs, "removed"))
			}
		}
	}
}

func checkConstraintNarrowed(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		for _, v := range c.carriedValues(p) {
			if v.old.WireType() != v.new.WireType() {
				continue
			}
			if ds := narrowing(v.old, v.new, false); len(ds) > 0 {
				c.report(r, v.new.Pos, spec.Pos{}, v.sc,
					"%s narrowed (%s): a waiting workflow whose carried value fails it is refused (constraint_narrowed)", v.what, strings.Join(ds, "; "))
			}
		}
		for _, a := range carriedAnswers(p) {
			if a.nq == nil {
				continue
			}
			if ds := requestNarrowing(a.oq, a.nq); len(ds) > 0 {
				c.report(r, a.nq.Pos, spec.Pos{}, c.toolScope(p.new, a.nq.Lint, a.ns.Lint),
					"the answer %q narrowed (%s): a waiting workflow whose carried answer fails it is refused (constraint_narrowed)", a.oq.Key, strings.Join(ds, "; "))
			}
			for _, nf := range a.nq.Fields {
				if nf.Required && a.oq.Field(nf.Name) == nil && a.oq.Kind == a.nq.Kind {
					c.report(r, nf.Pos, spec.Pos{}, c.toolScope(p.new, nf.Lint, a.nq.Lint, a.ns.Lint),
						"answer field %q was added as required: answers carried by waiting workflows lack it (constraint_narrowed)", a.nq.Key+"."+nf.Name)
				}
			}
		}
	}
}

// requestNarrowing compares the bounds of a sampled text or a roots list.
func requestNarrowing(oq, nq *spec.InputRequest) []string {
	if oq.Kind != nq.Kind {
		return nil
	}
	switch nq.Kind {
	case vocab.Sample:
		return narrowing(&spec.Field{MaxLength: oq.MaxLength}, &spec.Field{MaxLength: nq.MaxLength}, false)
	case vocab.Roots:
		omax, nmax := oq.MaxItems, nq.MaxItems
		return narrowing(&spec.Field{MinItems: oq.MinItems, MaxItems: &omax}, &spec.Field{MinItems: nq.MinItems, MaxItems: &nmax}, false)
	}
	return nil
}

func checkGateChanged(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		for _, os := range p.old.States {
			ns := p.new.State(os.Name)
			if os.Kind != vocab.StateConfirm || ns == nil || ns.Kind != vocab.StateConfirm {
				continue
			}
			if !p.og.waitsAfter(os.Name) && !p.ng.waitsAfter(ns.Name) {
				continue
			}
			if d := gateDiff(os.Confirm, ns.Confirm); d != "" {
				c.report(r, ns.Confirm.Pos, spec.Pos{}, c.toolScope(p.new, ns.Lint),
					"gate %q changed what it confirms (%s): a workflow waiting after it, which confirmed the old question, is refused (gate_changed)", ns.Name, d)
			}
		}
	}
}

// gateDiff says how two gates differ in what the user confirmed: the
// question's text with its placeholders, where the answer is read, and
// the approval policy.
func gateDiff(o, n *spec.Gate) string {
	var ds []string
	if om, nm := templateRaw(o.Message), templateRaw(n.Message); om != nm {
		ds = append(ds, fmt.Sprintf("message %q → %q", om, nm))
	}
	if o.Key != n.Key {
		ds = append(ds, fmt.Sprintf("key %q → %q", o.Key, n.Key))
	}
	if o.Field != n.Field {
		ds = append(ds, fmt.Sprintf("field %q → %q", o.Field, n.Field))
	}
	// A typed confirmation asks for a text where a yes/no gate asks for a
	// boolean: another form, so another question digest, even with the
	// same message.
	switch ot, nt := templateRaw(o.Typed), templateRaw(n.Typed); {
	case o.Typed == nil && n.Typed != nil:
		ds = append(ds, fmt.Sprintf("a yes/no gate made typed (%q)", nt))
	case o.Typed != nil && n.Typed == nil:
		ds = append(ds, fmt.Sprintf("a typed gate (%q) made yes/no", ot))
	case ot != nt:
		ds = append(ds, fmt.Sprintf("typed text %q → %q", ot, nt))
	}
	// An approval approves under its policy: another policy is another
	// gate digest.
	if d := approvalDiff(o.Approval, n.Approval); d != "" {
		ds = append(ds, d)
	}
	return strings.Join(ds, "; ")
}

func templateRaw(t *spec.Template) string {
	if t == nil {
		return ""
	}
	return t.Raw
}

func checkStorageChanged(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		oc, nc := p.old.Continuation, p.new.Continuation
		if !p.waits || oc.Storage == nc.Storage {
			continue
		}
		why := ""
		if !nc.StorageSet && nc.Storage == vocab.Reference {
			why = ", chosen because a continuation or form field is now sensitive"
		}
		c.report(r, nc.Pos, spec.Pos{}, c.toolScope(p.new),
			"%s %q switched from %s to %s storage%s: a waiting workflow's token is refused after the deploy (storage_changed)",
			p.new.Kind, p.new.Name, oc.Storage, nc.Storage, why)
	}
}

func checkArgumentChanged(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		if !p.waits {
			continue
		}
		for _, ch := range p.args {
			if !ch.binding {
				continue
			}
			pos, was, sc := argPlace(c, p, ch)
			c.report(r, pos, was, sc,
				"argument %q of %s %q %s: a workflow waiting for its next round is refused, its arguments no longer bind to its token (binding)",
				argName(ch), p.new.Kind, p.new.Name, ch.detail)
		}
	}
}

func checkContinuationFieldMadeTransient(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		if !p.waits {
			continue
		}
		for _, of := range p.old.Continuation.Fields {
			if v := p.new.Continuation.TransientValue(of.Name); v != nil && p.new.Continuation.Field(of.Name) == nil {
				c.report(r, v.Pos, of.Pos, c.toolScope(p.new),
					"continuation field %q is now transient (computed by %s, not carried): the token no longer holds it, and the old build sees it absent in the new build's tokens", of.Name, v.From.Name)
			}
		}
	}
}

func checkContinuationFieldRemoved(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		if !p.waits {
			continue
		}
		for _, of := range p.old.Continuation.Fields {
			if p.new.Continuation.Field(of.Name) == nil && p.new.Continuation.TransientValue(of.Name) == nil {
				c.report(r, p.new.Continuation.Pos, of.Pos, c.toolScope(p.new),
					"continuation field %q was removed: the new build skips it in old tokens; handlers no longer see it", of.Name)
			}
		}
		for _, a := range carriedAnswers(p) {
			switch {
			case a.nq == nil:
				c.report(r, a.ns.Pos, a.oq.Pos, c.toolScope(p.new, a.ns.Lint),
					"the answer %q is no longer asked: the new build skips it in old tokens", a.oq.Key)
			case a.oq.Kind == vocab.Elicit && a.nq.Kind == vocab.Elicit:
				for _, of := range a.oq.Fields {
					if a.nq.Field(of.Name) == nil {
						c.report(r, a.nq.Pos, of.Pos, c.toolScope(p.new, a.nq.Lint, a.ns.Lint),
							"answer field %q was removed: the new build skips it in old tokens", a.oq.Key+"."+of.Name)
					}
				}
			}
		}
	}
}

// article names a state kind with its indefinite article.
func article(k vocab.StateKind) string {
	if k == vocab.StateAsk || k == vocab.StateEffect {
		return "an " + k.String()
	}
	return "a " + k.String()
}
