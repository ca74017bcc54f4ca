package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/diagram"
	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/templates"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// docsFile is <spec>.md: a readable summary of the spec with a diagram per
// workflow, rendered in code review. It is rendered from the embedded
// template templates/docs.md.tmpl over a view of the spec in which every
// string is already Markdown (escaped text, code spans, table cells), so
// the template only lays out.
func (g *gen) docsFile() (File, error) {
	tpl, err := templates.Parse(templates.Docs, nil)
	if err != nil {
		return File{}, fmt.Errorf("generator: docs template: %w", err)
	}
	page, err := g.docPage()
	if err != nil {
		return File{}, err
	}
	var b bytes.Buffer
	if err := tpl.Execute(&b, page); err != nil {
		return File{}, fmt.Errorf("generator: rendering %s.md: %w", g.specBase(), err)
	}
	return File{Path: g.out(g.specBase() + ".md"), Kind: Generated, Content: tidyMarkdown(b.Bytes())}, nil
}

// tidyMarkdown trims trailing spaces and collapses runs of blank lines, so
// the template can be written for legibility.
func tidyMarkdown(b []byte) []byte {
	out := make([]byte, 0, len(b)+1)
	blank, first := 0, true
	for more := true; more; {
		var line []byte
		line, b, more = bytes.Cut(b, []byte("\n"))
		line = bytes.TrimRight(line, " \t")
		if len(line) == 0 {
			blank++
			if blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		if !first {
			out = append(out, '\n')
		}
		first = false
		out = append(out, line...)
	}
	return append(bytes.TrimSpace(out), '\n')
}

// The view the template renders. Fields ending in MD hold Markdown.
type docPage struct {
	Header     string
	Source     string // "source: ..." comment line, "" without one
	SpecName   string // tickets.mrtr.yaml
	SpecLinkMD string // a link to the spec, or its name in a code span
	PackageMD  string
	Validators []docValidator
	Workflows  []*docWorkflow
}

type docValidator struct {
	NameMD, TypeMD, DescriptionMD, MethodMD string
}

type docWorkflow struct {
	KindTitle     string // Tool, Prompt
	NameMD        string
	Anchor        string
	TitleMD       string
	DescriptionMD string
	Facts         [][2]string // property, value (Markdown)
	Arguments     []docField
	ExampleArgs   string // JSON of valid arguments, "" when none
	Continuation  []docField
	Transient     []docField // continuation.transient: shown, never carried
	Mermaid       string
	Rounds        []docRound
	Gates         []docGate
	Approvals     []docApproval
	Branches      []docBranch
	AskAgains     []docAskAgain
	Effects       []docEffect
	Ends          []docEnd
	Implicit      []string // Markdown sentences about implicit ends
	Handler       string   // Go source of the handler interface
	HandlerNameMD string
	Methods       []docMethod
	Files         [][2]string // file, what it is (Markdown)
	TestsMD       string
}

type docField struct {
	NameMD, TypeMD, RequiredMD, ConstraintsMD, DescriptionMD string
}

type docRound struct {
	StateMD       string
	DescriptionMD string
	SummaryMD     string
	Requests      []docRequest
	ThenMD        string
}

type docRequest struct {
	KeyMD     string
	WhatMD    string // form (elicitation/create), needs elicitation
	MessageMD string // the question, "" for roots
	Fields    []docField
	DetailsMD string // sampling and roots bounds
}

type docGate struct {
	StateMD, QuestionMD, KeyMD, ConfirmedMD, DeclinedMD, CancelledMD string
}

// docApproval is a row of the page's table of approval gates.
type docApproval struct {
	StateMD, WhoMD, RequesterMD, DeadlineMD, RemindMD, EscalateMD string
	ApprovedMD, DeclinedMD, ExpiredMD                             string
}

// expiredTarget is where an approval's expiry goes.
func expiredTarget(r *spec.StateRef) string {
	if r == nil {
		return "ends as expired"
	}
	return code(r.Name)
}

// docApprovalOf is the row of approval gate s.
func docApprovalOf(s *spec.State) docApproval {
	a := s.Approval()
	d := docApproval{StateMD: code(s.Name), RequesterMD: requesterMD(a.Requester), DeadlineMD: code(spec.DurationText(a.Deadline)),
		RemindMD: "none", EscalateMD: "none", ApprovedMD: target(s.Next), DeclinedMD: target(s.OnDecline), ExpiredMD: expiredTarget(s.OnExpire)}
	d.WhoMD = "anyone signed in"
	if a.Approvers != "" {
		d.WhoMD = "role " + code(a.Approvers) + " (" + code(approversMethod(s)) + ")"
	}
	if a.Count > 1 {
		d.WhoMD = fmt.Sprintf("%d distinct approvers: %s", a.Count, d.WhoMD)
	}
	if len(a.Remind) > 0 {
		var rs []string
		for _, r := range a.Remind {
			rs = append(rs, code(spec.DurationText(r)))
		}
		d.RemindMD = strings.Join(rs, ", ")
	}
	if a.Escalate > 0 {
		d.EscalateMD = "role " + code(a.EscalateTo) + " (" + code(escalationMethod(s)) + ") after " + code(spec.DurationText(a.Escalate))
	}
	return d
}

// requesterMD says what the requester may do under rule r.
func requesterMD(r string) string {
	switch r {
	case spec.RequesterPage:
		return "may approve on the page"
	case spec.RequesterChat:
		return "may approve on the page or in the chat"
	}
	return "excluded (four eyes)"
}

type docBranch struct {
	StateMD, ValueMD, ArmsMD string
}

type docAskAgain struct {
	StateMD, CheckMD, AskMD, MaxMD, ExhaustedMD string
}

type docEffect struct {
	StateMD, MethodMD, IrreversibleMD, KeyMD, RetainMD, ThenMD string
}

type docEnd struct {
	StateMD, OutcomeMD, ResultMD string
}

type docMethod struct {
	NameMD, WhatMD string
}

func (g *gen) docPage() (*docPage, error) {
	f := g.f
	p := &docPage{Header: Header, PackageMD: code(f.Package)}
	if s := g.source; s != "" {
		p.Source = s
		rel := strings.TrimPrefix(s, "source: ")
		p.SpecName = path.Base(rel)
		p.SpecLinkMD = fmt.Sprintf("[%s](%s)", code(p.SpecName), linkTarget(rel))
	} else {
		p.SpecName = g.specBase() + spec.Ext
		p.SpecLinkMD = code(p.SpecName)
	}
	for _, v := range f.Validators {
		p.Validators = append(p.Validators, docValidator{
			NameMD: code(v.Name), TypeMD: v.Type.String(), DescriptionMD: cell(v.Description), MethodMD: code(method(v.Name)),
		})
	}
	for _, t := range f.Workflows() {
		w, err := g.docWorkflow(t)
		if err != nil {
			return nil, err
		}
		p.Workflows = append(p.Workflows, w)
	}
	return p, nil
}

// docWorkflow is the page's section of one workflow: its facts, its
// arguments and continuation, its states, its handler, and the files and
// tests generated for it.
func (g *gen) docWorkflow(t *spec.Tool) (*docWorkflow, error) {
	w := newWorkflow(g, t)
	n := w.n
	d := &docWorkflow{
		KindTitle:     strings.ToUpper(t.Kind.String()[:1]) + t.Kind.String()[1:],
		NameMD:        code(t.Name),
		Anchor:        anchor(t.Kind.String() + " " + t.Name),
		TitleMD:       text(t.Title),
		DescriptionMD: text(t.Description),
		Mermaid:       diagram.Build(t).Mermaid(),
		HandlerNameMD: code(n.handler()),
	}
	d.Facts = docFacts(t)
	for _, a := range t.Arguments {
		d.Arguments = append(d.Arguments, docFieldOf(a))
	}
	if args := exampleArgs(t); args != "" {
		d.ExampleArgs = args
	}
	d.Continuation = docContinuation(t)
	for _, v := range t.Continuation.Transient {
		df := docFieldOf(v.Field)
		df.ConstraintsMD = joinMD(df.ConstraintsMD, "from "+code(method(v.From.Name)))
		if len(v.Reads) > 0 {
			var names []string
			for _, r := range v.Reads {
				names = append(names, code(r.Name()))
			}
			df.ConstraintsMD = joinMD(df.ConstraintsMD, "reads "+strings.Join(names, ", "))
		}
		d.Transient = append(d.Transient, df)
	}
	g.docStates(d, t)
	d.Implicit = implicitEnds(t)
	methods := w.handlerMethods()
	d.Handler = handlerSource(n.handler(), methods)
	for _, m := range methods {
		d.Methods = append(d.Methods, docMethod{NameMD: code(m.name), WhatMD: methodWhat(t, m)})
	}
	d.Files = docFiles(t, n)
	d.TestsMD = w.docTests()
	return d, nil
}

// docContinuation is the page's rows of the continuation fields, each
// saying whether it stays server-side and which states set it.
func docContinuation(t *spec.Tool) []docField {
	var rows []docField
	for _, f := range t.Continuation.Fields {
		df := docFieldOf(f)
		if f.Sensitive {
			df.ConstraintsMD = joinMD(df.ConstraintsMD, "**sensitive**: kept server-side")
		}
		if who := setBy(t, f.Name); who != "" {
			df.ConstraintsMD = joinMD(df.ConstraintsMD, "set by "+who)
		}
		rows = append(rows, df)
	}
	return rows
}

// docStates fills the page's tables of states: rounds, gates, effects,
// branches, ends and the states that ask again.
func (g *gen) docStates(d *docWorkflow, t *spec.Tool) {
	for _, s := range t.States {
		switch s.Kind {
		case vocab.StateAsk:
			d.Rounds = append(d.Rounds, docRoundOf(t, s))
		case vocab.StateConfirm:
			d.Rounds = append(d.Rounds, docRoundOf(t, s))
			d.Gates = append(d.Gates, docGate{
				StateMD:     code(s.Name),
				QuestionMD:  cell(s.Confirm.Message.Raw),
				KeyMD:       code(s.Confirm.Key) + " / " + code(s.Confirm.Field),
				ConfirmedMD: target(s.Next),
				DeclinedMD:  target(s.OnDecline),
				CancelledMD: target(s.OnCancel),
			})
			if s.Approval() != nil {
				d.Approvals = append(d.Approvals, docApprovalOf(s))
			}
		case vocab.StateEffect:
			d.Effects = append(d.Effects, docEffectOf(s))
		case vocab.StateBranch:
			d.Branches = append(d.Branches, docBranchOf(s))
		case vocab.StateTerminal:
			d.Ends = append(d.Ends, docEndOf(s))
		}
		d.AskAgains = append(d.AskAgains, g.docAskAgains(t, s)...)
	}
}

// docAskAgains is the page's rows of state s asking again: a check that
// refuses an answer, or an ask whose validators with context do.
func (g *gen) docAskAgains(t *spec.Tool, s *spec.State) []docAskAgain {
	var rows []docAskAgain
	if a := s.AskAgain; a != nil {
		rows = append(rows, docAskAgain{
			StateMD: code(s.Name), CheckMD: code(s.Check.Name), AskMD: code(a.State.Name),
			MaxMD: fmt.Sprint(a.MaxAttempts), ExhaustedMD: code(a.OnExhausted.Name),
		})
	}
	if s.Kind == vocab.StateAsk && s.OnExhausted != nil {
		var vs []string
		for _, u := range t.FlowValidatorUses(g.f) {
			if u.State == s && !slices.Contains(vs, code(u.Validator.Name)) {
				vs = append(vs, code(u.Validator.Name))
			}
		}
		rows = append(rows, docAskAgain{
			StateMD: code(s.Name), CheckMD: "validator " + strings.Join(vs, ", ") + " (`mrtr.Invalid`)", AskMD: code(s.Name),
			MaxMD: fmt.Sprint(s.MaxAttempts), ExhaustedMD: code(s.OnExhausted.Name),
		})
	}
	return rows
}

// docFiles is the page's table of the files generated for t.
func docFiles(t *spec.Tool, n names) [][2]string {
	base := fileBase(t)
	return [][2]string{
		{code(base + ".mrtr.go"), "generated: types, state machine, handler interface, codec, validators, registration (" + code(n.register()) + ")"},
		{code(base + ".mrtr_test.go"), "generated: the test matrix, every transition, answers sent to the wrong state"},
		{code(base + "_handler.go"), "yours: a scaffold of " + code(n.base+"Impl") + ", written once and never overwritten"},
	}
}

// docTests names the generated tests of the workflow.
func (w *workflow) docTests() string {
	n := w.n
	walks := w.walks()
	tests := []string{code("Test" + n.base + "Matrix")}
	if len(walks.transitions) > 0 {
		tests = append(tests, code("Test"+n.base+"Transitions"))
	}
	if len(w.variants(walks.transitions)) > 0 {
		tests = append(tests, code("Test"+n.base+"MatrixOnEachArm"))
	}
	if len(walks.rejectAt) > 0 {
		tests = append(tests, code("Test"+n.base+"RejectedInputs"))
	}
	if len(walks.approvalAt) > 0 {
		tests = append(tests, code("Test"+n.base+"Approvals"))
	}
	return strings.Join(tests, ", ")
}

// docBranchOf is the page's row of a value branch: each arm and its state.
func docBranchOf(s *spec.State) docBranch {
	b := s.Branch
	var arms []string
	for _, a := range b.Arms() {
		arms = append(arms, code(a.Label)+" → "+code(a.Target.Name))
	}
	if b.Default != nil {
		arms = append(arms, "any other → "+code(b.Default.Name))
	}
	return docBranch{StateMD: code(s.Name), ValueMD: code(b.On.Name()), ArmsMD: strings.Join(arms, "; ")}
}

// statesUsing names the states that run a check or effect.
func statesUsing(t *spec.Tool, name string, kind vocab.StateKind) string {
	var out []string
	for _, s := range t.States {
		if s.Kind != kind {
			continue
		}
		if (s.Check != nil && s.Check.Name == name) || (s.Effect != nil && s.Effect.Name == name) {
			out = append(out, code(s.Name))
		}
	}
	if len(out) == 1 {
		return "state " + out[0]
	}
	return "states " + strings.Join(out, ", ")
}

func docFieldOf(f *spec.Field) docField {
	df := docField{NameMD: code(f.Name), TypeMD: typeText(f), RequiredMD: "no", ConstraintsMD: constraints(f)}
	if f.Required {
		df.RequiredMD = "yes"
	}
	desc := f.Description
	if f.Title != "" {
		if desc != "" {
			desc = f.Title + ": " + desc
		} else {
			desc = f.Title
		}
	}
	df.DescriptionMD = cell(desc)
	return df
}

func typeText(f *spec.Field) string {
	if f.Type == spec.TypeArray && f.Items != nil {
		return "array of " + f.Items.Type.String()
	}
	if f.GoType != nil {
		// The JSON type is what clients send and read; the Go type is what
		// the handler sees.
		return f.Type.String() + " (Go " + code(f.GoType.String()) + ")"
	}
	return f.Type.String()
}

// constraints lists a field's constraints as Markdown for a table cell.
func constraints(f *spec.Field) string {
	var cs []string
	add := func(s string) { cs = append(cs, s) }
	if f.MinLength != nil {
		add(fmt.Sprintf("minLength %d", *f.MinLength))
	}
	if f.MaxLength != nil {
		add(fmt.Sprintf("maxLength %d", *f.MaxLength))
	}
	if f.Pattern != "" {
		add("pattern " + cellCode(f.Pattern))
	}
	if f.Format != "" {
		add("format " + f.Format)
	}
	if f.Minimum != nil {
		add("minimum " + number(*f.Minimum))
	}
	if f.Maximum != nil {
		add("maximum " + number(*f.Maximum))
	}
	if len(f.Values) > 0 {
		add(enumValues(f.Values))
	}
	if f.ValuesFrom != nil {
		add("one of the options offered from " + code(f.ValuesFrom.Name) + " (found at run time)")
	}
	if f.TitleMaxLength != nil {
		add(fmt.Sprintf("titleMaxLength %d", *f.TitleMaxLength))
	}
	if f.TitlePattern != "" {
		add("titlePattern " + cellCode(f.TitlePattern))
	}
	if f.MinItems != nil {
		add(fmt.Sprintf("minItems %d", *f.MinItems))
	}
	if f.MaxItems != nil {
		add(fmt.Sprintf("maxItems %d", *f.MaxItems))
	}
	switch {
	case f.UniqueItems:
		add("uniqueItems (a repeated value is refused)")
	case f.Items != nil && f.Items.Dynamic():
		add("repeated values count once, kept in the order offered")
	case f.Items != nil && f.Items.Type == spec.TypeEnum:
		add("repeated values count once, kept in spec order")
	}
	if f.Items != nil {
		if ic := constraints(f.Items); ic != "" {
			add("items: " + ic)
		}
	}
	for _, v := range f.Validate {
		add("validator " + code(v.Name))
	}
	if f.Default != nil {
		add("default " + cellCode(jsonText(f.Default)))
	}
	return strings.Join(cs, "; ")
}

// enumValues lists an enum's values, one per line when they have titles.
func enumValues(vs []spec.EnumValue) string {
	titled := false
	var out []string
	for _, v := range vs {
		s := cellCode(v.Value)
		if v.Title != "" {
			s += ": " + cell(v.Title)
			titled = true
		}
		out = append(out, s)
	}
	if titled {
		return "one of:<br>" + strings.Join(out, "<br>")
	}
	return "one of " + strings.Join(out, ", ")
}

func docRoundOf(t *spec.Tool, s *spec.State) docRound {
	r := docRound{StateMD: code(s.Name), DescriptionMD: text(s.Description)}
	if s.Kind == vocab.StateConfirm {
		r.SummaryMD = fmt.Sprintf("A confirmation gate: one form (input request %s) with the required boolean %s. The workflow goes on only when the user accepts with %s set to true.",
			code(s.Confirm.Key), code(s.Confirm.Field), code(s.Confirm.Field))
		r.Requests = []docRequest{{
			KeyMD:     code(s.Confirm.Key),
			WhatMD:    "form (" + code(vocab.Elicit.Method()) + "), needs " + code(string(vocab.CapElicitation)),
			MessageMD: quote(s.Confirm.Message.Raw),
		}}
		r.ThenMD = fmt.Sprintf("Confirmed → %s. Declined → %s. Cancelled → %s.", target(s.Next), target(s.OnDecline), target(s.OnCancel))
		if a := s.Approval(); a != nil {
			r.SummaryMD = fmt.Sprintf("An approval gate (%s): the workflow goes on only once the approval of this action is given under that policy, by the approval page, its JSON API or, where the policy lets the requester, this form in the chat; a client that cannot be asked gets a result saying who must approve and where, and calling the tool again with the same arguments goes on.",
				text(a.Summary()))
			r.ThenMD = fmt.Sprintf("Approved → %s. Declined → %s. Withdrawn → %s. Deadline passed → %s.", target(s.Next), target(s.OnDecline), target(s.OnCancel), expiredTarget(s.OnExpire))
		}
		if g := s.Confirm; g.Typed != nil {
			r.SummaryMD = fmt.Sprintf("A typed confirmation: one form (input request %s) with the required string %s. The workflow goes on only when the user types %s (white space around it removed); a text that is not it is asked again, %d texts in all, and the last mismatch declines.",
				code(g.Key), code(g.Field), code(g.Typed.Raw), g.MaxAttempts)
			r.ThenMD = fmt.Sprintf("Typed → %s. Declined (or %d mismatches) → %s. Cancelled → %s.", target(s.Next), g.MaxAttempts, target(s.OnDecline), target(s.OnCancel))
		}
		return r
	}
	if len(s.Requests) == 1 {
		r.SummaryMD = "One input request."
	} else {
		r.SummaryMD = fmt.Sprintf("%d input requests in one round; the client answers them together.", len(s.Requests))
	}
	for _, q := range s.Requests {
		dq := docRequest{KeyMD: code(q.Key)}
		what := map[vocab.RequestKind]string{vocab.Elicit: "form", vocab.Sample: "sampling", vocab.Roots: "roots", vocab.ElicitURL: "URL"}[q.Kind]
		dq.WhatMD = fmt.Sprintf("%s (%s), needs %s", what, code(q.Kind.Method()), code(string(q.Kind.Capability())))
		if q.Optional {
			dq.WhatMD += "; optional: left out when the client lacks the capability"
		}
		switch q.Kind {
		case vocab.Elicit:
			dq.MessageMD = quote(q.Message.Raw)
			form := s.Form(q) // this state's own form of a question
			for _, f := range form.Fields {
				dq.Fields = append(dq.Fields, docFieldOf(f))
			}
			if form.Site != nil {
				dq.DetailsMD = siteFormDoc(form)
			}
		case vocab.Sample:
			dq.MessageMD = quote(q.Prompt.Raw)
			var ds []string
			if q.SystemPrompt != "" {
				ds = append(ds, "System prompt: “"+text(q.SystemPrompt)+"”")
			}
			if q.MaxTokens > 0 {
				ds = append(ds, fmt.Sprintf("At most %d tokens.", q.MaxTokens))
			}
			if q.MaxLength != nil {
				ds = append(ds, fmt.Sprintf("Answers longer than %d characters are refused.", *q.MaxLength))
			}
			dq.DetailsMD = strings.Join(ds, " ")
		case vocab.ElicitURL:
			dq.MessageMD = quote(q.Message.Raw)
			where := "an absolute URL"
			if q.IsPath() {
				where = "a path on the server's PublicURL"
			}
			dq.DetailsMD = fmt.Sprintf("Opens %s (%s), its values URL-escaped. The user completes the step on that page, outside the client; accepting only says they opened it, and the next state checks that the step was completed.", code(q.URL.Raw), where)
		case vocab.Roots:
			lo := 0
			if q.MinItems != nil {
				lo = *q.MinItems
			}
			dq.DetailsMD = fmt.Sprintf("Accepts %d to %d roots, each URI at most %d bytes.", lo, q.MaxItems, spec.MaxRootURIBytes)
		}
		r.Requests = append(r.Requests, dq)
	}
	r.ThenMD = fmt.Sprintf("Answered → %s. Declined → %s. Cancelled → %s.", target(s.Next), target(s.OnDecline), target(s.OnCancel))
	return r
}

// target names where a transition leads; nil is the implicit end.
func target(r *spec.StateRef) string {
	if r == nil {
		return "ends as cancelled"
	}
	return code(r.Name)
}

// capabilities lists the client capabilities the workflow needs and when.
func capabilities(t *spec.Tool) string {
	var out []string
	for _, c := range t.Requires {
		out = append(out, code(string(c))+" (every round)")
	}
	type need struct {
		states   []string
		optional bool
	}
	needs := map[vocab.Capability]*need{}
	var order []vocab.Capability
	for _, s := range t.States {
		var caps []vocab.Capability
		optional := map[vocab.Capability]bool{}
		for _, q := range s.Requests {
			caps = append(caps, q.Kind.Capability())
			if q.Optional {
				optional[q.Kind.Capability()] = true
			}
		}
		if s.Kind == vocab.StateConfirm {
			caps = append(caps, vocab.CapElicitation)
		}
		for _, c := range caps {
			nd := needs[c]
			if nd == nil {
				nd = &need{optional: true}
				needs[c] = nd
				order = append(order, c)
			}
			if len(nd.states) == 0 || nd.states[len(nd.states)-1] != s.Name {
				nd.states = append(nd.states, s.Name)
			}
			nd.optional = nd.optional && optional[c]
		}
	}
	for _, c := range order {
		if containsCap(t.Requires, c) {
			continue
		}
		var states []string
		for _, s := range needs[c].states {
			states = append(states, code(s))
		}
		s := code(string(c)) + " (at " + strings.Join(states, ", ")
		if needs[c].optional {
			s += "; optional"
		}
		out = append(out, s+")")
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

func containsCap(cs []vocab.Capability, c vocab.Capability) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

// implicitEnds says how the workflow can end without a terminal state.
func implicitEnds(t *spec.Tool) []string {
	var cancel, reject, expire []string
	for _, s := range t.States {
		if s.Approval() != nil && s.OnExpire == nil {
			expire = append(expire, code(s.Name))
		}
		switch s.Kind {
		case vocab.StateAsk, vocab.StateConfirm:
			if s.OnDecline == nil || s.OnCancel == nil {
				cancel = append(cancel, code(s.Name))
			}
		case vocab.StateCheck, vocab.StateEffect:
			reject = append(reject, code(s.Name))
		}
	}
	var out []string
	for _, def := range []struct {
		ref       *spec.StateRef
		key, verb string
	}{{t.OnDecline, "onDecline", "declines"}, {t.OnCancel, "onCancel", "cancels"}} {
		if def.ref != nil {
			out = append(out, "When the user "+def.verb+" an ask or gate without its own "+code(def.key)+", the workflow goes to "+code(def.ref.Name)+" (the workflow's "+code(def.key)+").")
		}
	}
	if len(cancel) > 0 {
		out = append(out, "**cancelled**: the user declines or cancels at "+strings.Join(cancel, ", ")+" where the spec names no "+code("onDecline")+"/"+code("onCancel")+" state.")
	}
	if len(expire) > 0 {
		out = append(out, "**expired**: the approval's deadline passes first at "+strings.Join(expire, ", ")+", where the spec names no "+code("onExpire")+" state.")
	}
	if len(reject) > 0 {
		out = append(out, "**rejected** or **error**: a check or effect at "+strings.Join(reject, ", ")+" refuses with "+code("mrtr.Reject")+" (the message is shown) or fails (a dependency error; an effect may be retried).")
	}
	out = append(out, "**unauthorized**: "+code("Authorize")+" refuses the caller, on any round.")
	return out
}

// handlerSource is the Go declaration of the handler interface (the table
// under it says what each method is for).
func handlerSource(name string, ms []handlerMethod) string {
	s := jen.Type().Id(name).InterfaceFunc(func(g *jen.Group) {
		for _, m := range ms {
			g.Id(m.name).Params(m.params...).Params(m.results...)
		}
	})
	return fmt.Sprintf("%#v", s)
}

// exampleArgs is a JSON object of valid required arguments ("" when the
// workflow takes none or an example cannot be derived).
func exampleArgs(t *spec.Tool) string {
	args := map[string]any{}
	for _, a := range t.Arguments {
		if !a.Required {
			continue
		}
		v, err := exampleValue(a, 0)
		if err != nil {
			return ""
		}
		args[a.Name] = v
	}
	if len(args) == 0 {
		return ""
	}
	b, err := json.Marshal(args)
	if err != nil {
		return ""
	}
	return string(b)
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// durationText prints a duration the way specs write it (15m, 1h30m, 72h).
func durationText(d time.Duration) string { return spec.DurationText(d) }

// Markdown helpers. text escapes prose; cell also keeps it on one line and
// escapes the table's pipes; code and cellCode make code spans.

// text escapes s for Markdown prose, on one line: characters that would
// start emphasis, links, HTML or code are backslash-escaped. Underscores
// inside words (snake_case) are left alone, as GitHub does not read them
// as emphasis.
func text(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch r {
		case '\\', '`', '*', '[', ']', '<', '>', '|', '~':
			b.WriteByte('\\')
		case '_':
			inWord := i > 0 && i < len(rs)-1 && isWordRune(rs[i-1]) && isWordRune(rs[i+1])
			if !inWord {
				b.WriteByte('\\')
			}
		case '#':
			if i == 0 {
				b.WriteByte('\\')
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// cell is text for a table cell (text already escapes pipes).
func cell(s string) string { return text(s) }

// quote is text as a blockquote line.
func quote(s string) string { return "> " + text(s) }

// code is an inline code span of s, fenced with enough backticks.
func code(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// cellCode is a code span inside a table cell: GitHub needs the pipes
// escaped even there.
func cellCode(s string) string { return strings.ReplaceAll(code(s), "|", `\|`) }

func joinMD(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// linkTarget makes a relative path safe as a Markdown link target.
func linkTarget(p string) string {
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29").Replace(p)
}

// anchor is GitHub's anchor for a heading text: lower case, punctuation
// other than - and _ dropped, spaces as hyphens.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// docFacts are the facts table of a workflow's page.
func docFacts(t *spec.Tool) (facts [][2]string) {
	c := t.Continuation
	fact := func(k, v string) { facts = append(facts, [2]string{k, v}) }
	fact("MCP method", code(t.Kind.Method()))
	if t.Destructive {
		fact("Destructive", "yes: clients see `destructiveHint`; lint requires a TTL and a confirmation before effects")
	} else {
		fact("Destructive", "no")
	}
	ttl := code(durationText(c.TTL))
	if !c.TTLSet {
		ttl += " (the default)"
	}
	fact("Continuation TTL", ttl+": a `requestState` older than this is refused and the caller must start again")
	switch c.Storage {
	case vocab.Reference:
		fact("Storage", "reference: `requestState` carries only a sealed random reference; the continuation stays in the server's store")
	default:
		fact("Storage", "sealed: the continuation travels encrypted and authenticated in `requestState`")
	}
	fact("Continuation budget", fmt.Sprintf("%d bytes (worst case, checked by lint)", c.MaxBytes))
	fact("Client capabilities", capabilities(t))
	if t.NonInteractive {
		fact("Non-interactive", "yes: an optional `inputs` argument takes every answer up front, for clients without MRTR")
	}
	return facts
}

// docEffectOf is the effects table's row of effect state s.
func docEffectOf(s *spec.State) docEffect {
	e := docEffect{StateMD: code(s.Name), MethodMD: code(method(s.Effect.Name)), IrreversibleMD: "no", ThenMD: target(s.Next)}
	if s.Irreversible {
		e.IrreversibleMD = "**yes**"
	}
	key, retain := "{workflowId}", spec.DefaultRetain
	if s.Idempotency != nil {
		if s.Idempotency.Key != nil {
			key = s.Idempotency.Key.Raw
		}
		retain = s.Idempotency.Retain
	}
	e.KeyMD = cellCode(key)
	if isDefaultKey(s.Idempotency) {
		e.KeyMD += " (default: retries of one workflow)"
	}
	e.RetainMD = durationText(retain)
	return e
}

// docEndOf is the ends table's row of terminal state s.
func docEndOf(s *spec.State) docEnd {
	e := docEnd{StateMD: code(s.Name), OutcomeMD: s.Outcome.String()}
	if s.NotFound {
		e.OutcomeMD += ", resource not found"
	}
	if s.Message != nil {
		e.ResultMD = cell(s.Message.Raw)
	}
	var msgs []string
	for _, m := range s.Messages {
		if m.Content != nil {
			msgs = append(msgs, "**"+m.Role+":** "+contentText(m.Content))
			continue
		}
		msgs = append(msgs, "**"+m.Role+":** "+cell(m.Text.Raw))
	}
	if len(msgs) > 0 {
		e.ResultMD = strings.Join(msgs, "<br>")
	}
	if len(s.Output) > 0 {
		var fs []string
		for _, f := range s.Output {
			d := code(f.Name) + " " + typeText(f)
			if f.Required {
				d += ", required"
			}
			fs = append(fs, d)
		}
		if e.ResultMD != "" {
			e.ResultMD += "<br>"
		}
		e.ResultMD += "**structured output:** " + strings.Join(fs, "; ")
	}
	var items []string
	for _, c := range s.Content {
		items = append(items, contentText(c))
	}
	if len(items) > 0 {
		if e.ResultMD != "" {
			items = append([]string{e.ResultMD}, items...)
		}
		e.ResultMD = strings.Join(items, "<br>")
	}
	return e
}

// setBy says which states declare they set continuation field name:
// "`diff` (on `changes`), `ship`", or "".
func setBy(t *spec.Tool, name string) string {
	var out []string
	for _, s := range t.States {
		for _, sd := range s.Sets {
			if sd.Field.Name == name {
				out = append(out, code(s.Name)+onOutcomes(sd))
			}
		}
	}
	return strings.Join(out, ", ")
}

// methodSetsText lists what the states of a handler method declare it
// sets: "`f.Continuation.Owners` (on `changes`), ...", or "".
func methodSetsText(t *spec.Tool, method string) string {
	var out []string
	for _, s := range t.States {
		if (s.Check == nil || s.Check.Name != method) && (s.Effect == nil || s.Effect.Name != method) {
			continue
		}
		for _, sd := range s.Sets {
			out = append(out, code("f.Continuation."+field(sd.Field.Name))+onOutcomes(sd))
		}
	}
	return strings.Join(out, ", ")
}

func onOutcomes(sd *spec.SetDecl) string {
	if len(sd.Outcomes) == 0 {
		return ""
	}
	var os []string
	for _, o := range sd.Outcomes {
		os = append(os, code(o.Name))
	}
	return " (on " + strings.Join(os, ", ") + ")"
}

// methodWhat says what a handler method is for, for the page's table.
func methodWhat(t *spec.Tool, m handlerMethod) string {
	var what string
	switch m.kind {
	case "authorize":
		what = "every round, before anything else: may `f.Call.Principal` run this with these arguments? Refuse with `mrtr.Forbidden`."
	case "check":
		what = "check " + code(m.specName) + " (" + statesUsing(t, m.specName, vocab.StateCheck) + "): refuse with `mrtr.Reject`; any other error is a dependency failure"
		if len(m.outcomes) > 0 {
			var outs []string
			for _, b := range m.outcomes {
				outs = append(outs, code(b.Name))
			}
			what += "; returns one of " + strings.Join(outs, ", ")
		}
		for _, a := range askAgainUses(t, m.specName) {
			what += fmt.Sprintf("; in %s, `mrtr.AskAgain` asks %s again (%d answers in all, then %s)", code(a.state), code(a.ask), a.max, code(a.exhausted))
		}
	case "effect":
		what = "effect " + code(m.specName) + " (" + statesUsing(t, m.specName, vocab.StateEffect) + "): not run again once it returned (retries replay it); at least once if its instance dies mid-effect (`f.Call.Attempt`); store results in `f.Continuation`"
	case "output":
		what = "the structured result of terminal state " + code(m.specName) + ": fill `out`; a required field left unset fails the round"
	case "validator":
		what = "custom validator " + code(m.specName) + " of a " + m.valueType.String() + " value"
	case "content":
		what = "the bytes of a content item (" + code(m.specName) + "); recorded with the final round, so replays return the same bytes"
	case "transient":
		what = "transient value " + code(m.specName) + ": computed before each render of a template naming it (first ask and re-asks), never carried in the continuation; an error is a dependency failure"
	case "approvers":
		what = "approval gate " + code(m.specName) + ": the principals of role " + code(m.role) + " (called when the approval is requested; one it does not return cannot approve)"
	case "complete":
		what = "completions of an argument (" + code(m.specName) + ") on `completion/complete`"
	}
	if sets := methodSetsText(t, m.specName); sets != "" && (m.kind == "check" || m.kind == "effect") {
		what += "; must set " + sets
	}
	return what
}
