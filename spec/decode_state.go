package spec

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mrtrgen/mrtrgen/vocab"
)

var stateKindKeys = []string{"check", "ask", "confirm", "effect", "branch", "terminal"}

// stateDoc is one state. The schema allows every key on every state;
// stateKeysFit says which fit the state's kind.
type stateDoc struct {
	Description, Terminal         string
	Irreversible, Slow, Progress  bool
	NotFound                      bool `yaml:"notFound"`
	Check, Outcomes, Ask, Confirm ynode
	Branch, Cases, When, Default  ynode
	Effect, Idempotency, Sets     ynode
	Message, Messages, Output     ynode
	Content, Contents, Next, Lint ynode
	AskAgain                      ynode `yaml:"askAgain"`
	MaxAttempts                   ynode `yaml:"maxAttempts"`
	OnExhausted                   ynode `yaml:"onExhausted"`
	OnDecline                     ynode `yaml:"onDecline"`
	OnCancel                      ynode `yaml:"onCancel"`
	OnExpire                      ynode `yaml:"onExpire"`
}

// decodeState decodes one state: its keys, then the checks that it does
// exactly one thing and has only the keys of that thing, then what its
// kind leaves out or implies.
func (d *decoder) decodeState(sp pair) *State {
	s := &State{Name: sp.key, Pos: d.pos(sp.k)}
	var doc stateDoc
	decodeInto(sp.v, &doc)
	keys := keyNodes(sp.v)
	d.stateFlowKeys(s, &doc, keys)
	d.stateEffectKeys(s, &doc, keys)
	d.stateTerminalKeys(s, &doc, keys)
	d.decodeBranch(s, &doc, sp.v)
	s.Description, s.Next, s.OnDecline, s.OnCancel = doc.Description, d.stateRef(doc.Next), d.stateRef(doc.OnDecline), d.stateRef(doc.OnCancel)
	s.OnExpire = d.stateRef(doc.OnExpire)
	if doc.Lint.Node != nil {
		s.Lint = d.decodeLint(doc.Lint.Node)
	}
	switch kinds := writtenKeys(sp.v, stateKindKeys); len(kinds) {
	case 0:
		d.errorf(sp.k, "state", "add one of check, ask, confirm, effect, branch, terminal", "state %q does not say what happens in it", s.Name)
		return s
	case 1:
	default:
		d.errorf(kinds[1], "state", "split it into one state per step", "state %q has both %s and %s; a state does exactly one thing", s.Name, kinds[0].Value, kinds[1].Value)
		return s
	}
	askEntries := 0
	if doc.Ask.Node != nil {
		// Requests that fail to decode are reported by decodeRequest;
		// count what was written so the state is not also said to ask
		// for nothing.
		askEntries = len(doc.Ask.Content) / 2
	}
	d.checkStateKeys(s, keys, sp.k, askEntries)
	d.checkApproval(s, keys)
	settleStateKind(s)
	return s
}

// stateFlowKeys decodes the keys of a check, an ask and a confirmation.
func (d *decoder) stateFlowKeys(s *State, doc *stateDoc, keys map[string]*yaml.Node) {
	if doc.Check.Node != nil {
		s.Kind, s.Check = vocab.StateCheck, d.nameRef(doc.Check)
	}
	if doc.Outcomes.Node != nil {
		s.Outcomes = d.decodeOutcomes(doc.Outcomes.Node)
	}
	if doc.AskAgain.Node != nil {
		s.AskAgain = d.decodeAskAgain(keys["askAgain"], doc.AskAgain.Node)
	}
	if doc.Ask.Node != nil {
		s.Kind, s.Requests = vocab.StateAsk, d.decodeRequests(s, doc.Ask.Node)
	}
	if doc.MaxAttempts.Node != nil {
		s.MaxAttempts = d.intVal(doc.MaxAttempts.Node)
	}
	s.OnExhausted = d.stateRef(doc.OnExhausted)
	if doc.Confirm.Node != nil {
		s.Kind, s.Confirm = vocab.StateConfirm, d.decodeGate(doc.Confirm.Node)
	}
}

// stateEffectKeys decodes the keys of an effect, and the sets and
// progress of a check or an effect.
func (d *decoder) stateEffectKeys(s *State, doc *stateDoc, keys map[string]*yaml.Node) {
	if doc.Effect.Node != nil {
		s.Kind, s.Effect = vocab.StateEffect, d.nameRef(doc.Effect)
	}
	s.Irreversible, s.Progress = doc.Irreversible, doc.Progress
	if k := keys["slow"]; k != nil {
		s.Slow, s.SlowPos = doc.Slow, d.pos(k)
	}
	if doc.Idempotency.Node != nil {
		s.Idempotency = d.decodeIdempotency(doc.Idempotency.Node)
	}
	if doc.Sets.Node != nil {
		s.SetsPos = d.pos(keys["sets"])
		s.Sets = d.decodeSets(doc.Sets.Node)
	}
}

// stateTerminalKeys decodes the keys of a terminal state.
func (d *decoder) stateTerminalKeys(s *State, doc *stateDoc, keys map[string]*yaml.Node) {
	if keys["terminal"] != nil {
		s.Kind = vocab.StateTerminal
		if o := vocab.Outcome(doc.Terminal); o.Declarable() {
			s.Outcome = o
		}
	}
	s.Message, s.NotFound = d.optTemplate(doc.Message), doc.NotFound
	if doc.Messages.Node != nil {
		s.Messages = d.decodePromptMessages(doc.Messages.Node)
	}
	if doc.Output.Node != nil {
		s.OutputPos = d.pos(keys["output"])
		s.Output = d.decodeFields(doc.Output.Node, fieldOutput)
	}
	if doc.Content.Node != nil {
		s.Content = d.decodeContentList(doc.Content.Node)
	}
	if doc.Contents.Node != nil {
		s.Content = d.decodeContents(doc.Contents.Node)
	}
}

// settleStateKind drops what the kind of s leaves out and fills in what it
// implies.
func settleStateKind(s *State) {
	// Keys reported as out of place leave nothing behind: a check is not
	// also a branch, and only checks ask again.
	if s.Kind != vocab.StateBranch {
		s.Branch = nil
	}
	if s.Kind != vocab.StateCheck {
		s.AskAgain = nil
	}
	if s.Kind != vocab.StateAsk {
		s.MaxAttempts, s.OnExhausted = 0, nil
	}
	if s.Approval() == nil {
		s.OnExpire = nil // only an approval expires (checkApproval said so)
	}
	if s.Kind == vocab.StateEffect && s.Idempotency == nil {
		s.Idempotency = &Idempotency{Retain: DefaultRetain, Pos: s.Pos}
	}
	if s.Idempotency != nil && s.Idempotency.Key == nil {
		s.Idempotency.Key = &Template{Raw: "{workflowId}", Parts: []TemplatePart{{Ref: &TemplateRef{Path: []string{"workflowId"}, Kind: RefWorkflowID, Pos: s.Idempotency.Pos}}}, Pos: s.Idempotency.Pos}
	}
}

// decodeOutcomes decodes the outcomes of a check, sorted by name.
func (d *decoder) decodeOutcomes(n *yaml.Node) []*Branch {
	var out []*Branch
	for _, op := range pairs(n) {
		d.checkIdent(op.k, "outcome")
		out = append(out, &Branch{Name: op.key, Target: StateRef{Name: op.v.Value, Pos: d.pos(op.v)}, Pos: d.pos(op.k)})
	}
	slices.SortFunc(out, func(a, b *Branch) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// decodeRequests decodes the input requests of an ask, sorted by key.
func (d *decoder) decodeRequests(s *State, n *yaml.Node) []*InputRequest {
	var out []*InputRequest
	for _, rp := range pairs(n) {
		d.checkIdent(rp.k, "input request")
		if isQuestionUse(rp.v) {
			d.uses = append(d.uses, questionUse{state: s, key: rp.key, node: rp.v, form: questionForm(rp.v)})
			continue
		}
		if r := d.decodeRequest(rp); r != nil {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *InputRequest) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// gateDoc is a confirmation gate.
type gateDoc struct {
	Key, Field               string
	Message, Typed, Approval ynode
	MaxAttempts              ynode `yaml:"maxAttempts"`
}

// decodeGate decodes a confirmation gate; key and field default to
// "confirm".
func (d *decoder) decodeGate(n *yaml.Node) *Gate {
	doc := gateDoc{Key: "confirm", Field: "confirm"}
	decodeInto(n, &doc)
	g := &Gate{Key: doc.Key, Field: doc.Field, Pos: d.pos(n), Message: d.optTemplate(doc.Message), Typed: d.optTemplate(doc.Typed)}
	if doc.MaxAttempts.Node != nil {
		g.MaxAttempts, g.MaxAttemptsPos = d.intVal(doc.MaxAttempts.Node), d.pos(keyNode(n, "maxAttempts"))
	}
	if doc.Approval.Node != nil {
		g.Approval = d.decodeApproval(keyNode(n, "approval"), doc.Approval.Node)
	}
	switch {
	case g.Typed != nil && g.MaxAttempts == 0:
		g.MaxAttempts = DefaultTypedAttempts
	case g.Typed == nil && g.MaxAttemptsPos.Line > 0:
		g.MaxAttempts = 0
		d.diags = append(d.diags, Diagnostic{Pos: g.MaxAttemptsPos, Severity: Error, Rule: "state", Message: "maxAttempts bounds a typed confirmation, but this gate has no typed text",
			Hint: "add typed: \"{releaseId}\" (the text the user must type), or remove maxAttempts"})
	}
	return g
}

// idempotencyDoc is an effect's idempotency.
type idempotencyDoc struct {
	Key, Retain ynode
}

// decodeIdempotency decodes an effect's idempotency; its key, when
// absent, is filled in by settleStateKind.
func (d *decoder) decodeIdempotency(n *yaml.Node) *Idempotency {
	var doc idempotencyDoc
	decodeInto(n, &doc)
	idem := &Idempotency{Retain: DefaultRetain, Pos: d.pos(n), Key: d.optTemplate(doc.Key)}
	if doc.Retain.Node != nil {
		idem.Retain = d.duration(doc.Retain.Node)
	}
	return idem
}

// promptMessageDoc is one message of a prompt's terminal state: a role,
// and a text or one item of content.
type promptMessageDoc struct {
	Role string
	Text ynode
}

// decodePromptMessages decodes the messages of a prompt's terminal state.
func (d *decoder) decodePromptMessages(n *yaml.Node) []*PromptMessage {
	var out []*PromptMessage
	for _, m := range n.Content {
		var doc promptMessageDoc
		decodeInto(m, &doc)
		pm := &PromptMessage{Pos: d.pos(m), Role: doc.Role, Text: d.optTemplate(doc.Text)}
		for _, p := range pairs(m) {
			if kind, ok := contentKindKeys[p.key]; ok {
				pm.Content = d.decodeContentBody(kind, p.k, p.v)
			}
		}
		out = append(out, pm)
	}
	return out
}

// stateKeysFit are the keys that fit some kinds of state only, with the
// kinds they fit.
var stateKeysFit = map[string][]vocab.StateKind{
	"outcomes":     {vocab.StateCheck},
	"askAgain":     {vocab.StateCheck},
	"sets":         {vocab.StateCheck, vocab.StateEffect},
	"progress":     {vocab.StateCheck, vocab.StateEffect},
	"next":         {vocab.StateCheck, vocab.StateAsk, vocab.StateConfirm, vocab.StateEffect},
	"onDecline":    {vocab.StateAsk, vocab.StateConfirm},
	"onCancel":     {vocab.StateAsk, vocab.StateConfirm},
	"onExpire":     {vocab.StateConfirm},
	"maxAttempts":  {vocab.StateAsk},
	"onExhausted":  {vocab.StateAsk},
	"irreversible": {vocab.StateEffect},
	"slow":         {vocab.StateEffect},
	"idempotency":  {vocab.StateEffect},
	"cases":        {vocab.StateBranch},
	"when":         {vocab.StateBranch},
	"default":      {vocab.StateBranch},
	"message":      {vocab.StateTerminal},
	"messages":     {vocab.StateTerminal},
	"output":       {vocab.StateTerminal},
	"content":      {vocab.StateTerminal},
	"contents":     {vocab.StateTerminal},
	"notFound":     {vocab.StateTerminal},
}

// checkStateKeys reports keys that do not belong to the state's kind and
// what the kind needs but lacks.
func (d *decoder) checkStateKeys(s *State, keys map[string]*yaml.Node, at *yaml.Node, askEntries int) {
	for key, k := range keys {
		if kinds, ok := stateKeysFit[key]; ok && !slices.Contains(kinds, s.Kind) {
			d.errorf(k, "state", "", "state %q: %s does not apply to a %s state", s.Name, key, s.Kind)
		}
	}
	switch s.Kind {
	case vocab.StateCheck:
		d.checkCheckState(s, keys, at)
	case vocab.StateBranch:
		d.checkBranchKeys(s, keys)
	case vocab.StateAsk, vocab.StateConfirm, vocab.StateEffect:
		d.checkStepState(s, keys, at, askEntries)
	case vocab.StateTerminal:
		d.checkTerminalState(s, keys, at)
	}
	if k := keys["sets"]; k != nil && len(s.Outcomes) == 0 && slices.ContainsFunc(s.Sets, func(sd *SetDecl) bool { return len(sd.Outcomes) > 0 }) {
		d.errorf(k, "state", "list the fields (sets: [a, b]): without outcomes, a method sets them whenever it returns", "state %q: sets by outcome needs a check with outcomes", s.Name)
	}
}

// checkCheckState reports a check that does not say where to go, or says
// it twice, and outcomes named as an askAgain transition.
func (d *decoder) checkCheckState(s *State, keys map[string]*yaml.Node, at *yaml.Node) {
	switch {
	case s.Next != nil && len(s.Outcomes) > 0:
		d.errorf(keys["outcomes"], "state", "keep next for a plain check, or outcomes for a branching one", "state %q has both next and outcomes", s.Name)
	case s.Next == nil && len(s.Outcomes) == 0:
		d.errorf(at, "state", "add next: <state>, or outcomes: {name: <state>}", "check state %q does not say where to go", s.Name)
	case keys["outcomes"] != nil && len(s.Outcomes) < 2:
		d.errorf(keys["outcomes"], "state", "use next for a single way on", "state %q: outcomes needs at least two branches", s.Name)
	}
	if s.AskAgain == nil {
		return
	}
	for _, b := range s.Outcomes {
		if e := vocab.OutcomeEdge(b.Name); e.Label() == vocab.AskAgain.Label() || e.Label() == vocab.Exhausted.Label() {
			d.errorf(keys["outcomes"], "state", "rename the outcome", "state %q: outcome %q has the name of an askAgain transition", s.Name, b.Name)
		}
	}
}

// checkStepState reports an ask, a confirmation or an effect that does not
// say where to go, an ask bounded by half, and an ask for nothing.
func (d *decoder) checkStepState(s *State, keys map[string]*yaml.Node, at *yaml.Node, askEntries int) {
	if s.Next == nil {
		d.errorf(at, "state", "add next: <state>", "%s state %q does not say where to go", s.Kind, s.Name)
	}
	if s.Kind != vocab.StateAsk {
		return
	}
	if (keys["maxAttempts"] == nil) != (keys["onExhausted"] == nil) {
		k := cmpOr(keys["maxAttempts"], keys["onExhausted"])
		d.errorf(k, "state", "give both: maxAttempts: N and onExhausted: <state>", "state %q: maxAttempts and onExhausted bound the answers validators with context refuse, and go together", s.Name)
	}
	if len(s.Requests) == 0 && askEntries == 0 {
		d.errorf(keys["ask"], "state", "add at least one input request", "state %q asks for nothing", s.Name)
	}
}

// cmpOr is the first of its nodes that is not nil.
func cmpOr(ns ...*yaml.Node) *yaml.Node {
	for _, n := range ns {
		if n != nil {
			return n
		}
	}
	return nil
}

// checkTerminalState reports what a terminal state of a tool, prompt or
// resource has that belongs to another, or lacks.
func (d *decoder) checkTerminalState(s *State, keys map[string]*yaml.Node, at *yaml.Node) {
	if d.kind == vocab.KindTool && keys["messages"] != nil {
		d.errorf(keys["messages"], "state", "use message: for a tool's result text", "state %q: messages is for prompts", s.Name)
	}
	d.checkTerminalContent(s, keys)
	d.checkNotFound(s, keys)
	if d.kind == vocab.KindPrompt && keys["message"] != nil {
		d.errorf(keys["message"], "state", "use messages: [{role: user, text: ...}] for a prompt", "state %q: message is for tools", s.Name)
	}
	if d.kind == vocab.KindPrompt && s.Outcome == vocab.OutcomeSuccess && len(s.Messages) == 0 {
		d.errorf(at, "state", "add messages: [{role: user, text: ...}]", "prompt terminal state %q has no messages", s.Name)
	}
	d.checkOutputKeys(s, keys)
}

// decodeSets reads a state's sets: a list of continuation fields (set on
// every way out), or a mapping of each field to the outcomes it is set on.
// Sorted by field name.
func (d *decoder) decodeSets(n *yaml.Node) []*SetDecl {
	var out []*SetDecl
	add := func(k *yaml.Node) *SetDecl {
		if slices.ContainsFunc(out, func(sd *SetDecl) bool { return sd.Field.Name == k.Value }) {
			d.errorf(k, "state", "", "sets names %q twice", k.Value)
		}
		sd := &SetDecl{Field: NameRef{Name: k.Value, Pos: d.pos(k)}}
		out = append(out, sd)
		return sd
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for _, c := range n.Content {
			add(c)
		}
	case yaml.MappingNode:
		for _, p := range pairs(n) {
			sd := add(p.k)
			for _, o := range p.v.Content {
				sd.Outcomes = append(sd.Outcomes, NameRef{Name: o.Value, Pos: d.pos(o)})
			}
			if len(sd.Outcomes) == 0 {
				d.errorf(p.v, "state", "name the outcomes on which the check sets it", "sets: %q lists no outcome", p.key)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b *SetDecl) int { return strings.Compare(a.Field.Name, b.Field.Name) })
	return out
}

// branchKeys are the keys of a value branch.
var branchKeys = []string{"branch", "cases", "when", "default"}

// decodeBranch decodes a state's value branch, placed at the first of its
// keys: the value it routes on, its cases (sorted by value), its ranges
// (sorted from the lowest) and its default.
func (d *decoder) decodeBranch(s *State, doc *stateDoc, n *yaml.Node) {
	first := writtenKeys(n, branchKeys)
	if len(first) == 0 {
		return
	}
	b := &ValueBranch{Pos: d.pos(first[0]), Default: d.stateRef(doc.Default)}
	s.Branch = b
	if on := doc.Branch.Node; on != nil {
		s.Kind = vocab.StateBranch
		b.On = ValueRef{Path: strings.Split(on.Value, "."), Pos: d.pos(on)}
	}
	for _, cp := range pairs(doc.Cases.Node) {
		b.Cases = append(b.Cases, &Case{Value: cp.key, Target: StateRef{Name: cp.v.Value, Pos: d.pos(cp.v)}, Pos: d.pos(cp.k)})
	}
	slices.SortFunc(b.Cases, func(x, y *Case) int { return strings.Compare(x.Value, y.Value) })
	if doc.When.Node != nil {
		for _, item := range doc.When.Content {
			if r := d.decodeRange(item); r != nil {
				b.Ranges = append(b.Ranges, r)
			}
		}
		slices.SortStableFunc(b.Ranges, compareRanges)
	}
}

// checkBranchKeys reports a value branch without arms, or with both kinds.
func (d *decoder) checkBranchKeys(s *State, keys map[string]*yaml.Node) {
	switch {
	case keys["cases"] != nil && keys["when"] != nil:
		d.errorf(keys["when"], "branch", "use cases for an enum or a boolean, when for a number", "branch %q has both cases and when", s.Name)
	case keys["cases"] == nil && keys["when"] == nil:
		d.errorf(keys["branch"], "branch", "add cases: {value: <state>} or when: [{above: 500, next: <state>}]", "branch %q has no arms", s.Name)
	}
}

// rangeDoc is one arm of when.
type rangeDoc struct {
	Above, Below, Next ynode
	AtLeast            ynode `yaml:"atLeast"`
	AtMost             ynode `yaml:"atMost"`
}

// decodeRange reads one arm of when: at most one lower and one upper bound,
// and at least one of them.
func (d *decoder) decodeRange(n *yaml.Node) *Range {
	var doc rangeDoc
	decodeInto(n, &doc)
	if doc.Above.Node == nil && doc.AtLeast.Node == nil && doc.Below.Node == nil && doc.AtMost.Node == nil {
		d.errorf(n, "branch", "add above, atLeast, below or atMost", "a range of when has no bound")
		return nil
	}
	r := &Range{Pos: d.pos(n)}
	r.Lower = d.bound(n, "above", doc.Above, "atLeast", doc.AtLeast)
	r.Upper = d.bound(n, "below", doc.Below, "atMost", doc.AtMost)
	if doc.Next.Node != nil {
		r.Target = StateRef{Name: doc.Next.Value, Pos: d.pos(doc.Next.Node)}
	}
	return r
}

// bound reads one side of a range: an exclusive or an inclusive bound,
// and reports the one written second when both are.
func (d *decoder) bound(n *yaml.Node, exclKey string, excl ynode, inclKey string, incl ynode) *Bound {
	xv, iv := d.optFloat(excl), d.optFloat(incl)
	switch {
	case xv != nil && iv != nil:
		first, second, b := exclKey, inclKey, &Bound{Value: *xv}
		if excl.Line > incl.Line || excl.Line == incl.Line && excl.Column > incl.Column {
			first, second, b = inclKey, exclKey, &Bound{Value: *iv, Inclusive: true}
		}
		d.errorf(keyNode(n, second), "branch", "give one lower bound (above or atLeast) and one upper bound (below or atMost)", "range has both %s and %s", second, first)
		return b
	case xv != nil:
		return &Bound{Value: *xv}
	case iv != nil:
		return &Bound{Value: *iv, Inclusive: true}
	}
	return nil
}

// compareRanges orders ranges from the lowest: by lower bound (none first,
// an inclusive bound before an exclusive one of the same value), then by
// upper bound (none last).
func compareRanges(a, b *Range) int {
	if c := compareBound(a.Lower, b.Lower, true); c != 0 {
		return c
	}
	return compareBound(a.Upper, b.Upper, false)
}

func compareBound(a, b *Bound, lower bool) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil && lower, b == nil && !lower:
		return -1
	case a == nil, b == nil:
		return 1
	case a.Value != b.Value:
		if a.Value < b.Value {
			return -1
		}
		return 1
	case a.Inclusive == b.Inclusive:
		return 0
	case a.Inclusive == lower:
		return -1
	}
	return 1
}

// askAgainDoc is a check's askAgain.
type askAgainDoc struct {
	State       ynode
	MaxAttempts ynode `yaml:"maxAttempts"`
	OnExhausted ynode `yaml:"onExhausted"`
}

func (d *decoder) decodeAskAgain(k, n *yaml.Node) *AskAgain {
	var doc askAgainDoc
	decodeInto(n, &doc)
	a := &AskAgain{Pos: d.pos(k)}
	if r := d.stateRef(doc.State); r != nil {
		a.State = *r
	}
	if doc.MaxAttempts.Node != nil {
		a.MaxAttempts = d.intVal(doc.MaxAttempts.Node)
	}
	if r := d.stateRef(doc.OnExhausted); r != nil {
		a.OnExhausted = *r
	}
	return a
}

// requestKindKeys are the keys that say what an input request asks for.
var requestKindKeys = []string{"elicit", "elicitUrl", "sample", "roots"}

// requestDoc is one input request of an ask or a questions block.
type requestDoc struct {
	Elicit, Sample, Roots, Lint ynode
	ElicitURL                   ynode `yaml:"elicitUrl"`
	Optional                    bool
}

// elicitDoc is a form (elicit) or URL (elicitUrl) elicitation.
type elicitDoc struct {
	Message, Fields ynode
	URL             ynode `yaml:"url"`
}

// sampleDoc is a sampling request.
type sampleDoc struct {
	Prompt       ynode
	SystemPrompt string `yaml:"systemPrompt"`
	MaxTokens    ynode  `yaml:"maxTokens"`
	MaxLength    ynode  `yaml:"maxLength"`
	MinLength    ynode  `yaml:"minLength"`
	Pattern      ynode
	Validate     ynode
}

// rootsDoc is a roots request.
type rootsDoc struct {
	MinItems ynode `yaml:"minItems"`
	MaxItems ynode `yaml:"maxItems"`
}

func (d *decoder) decodeRequest(rp pair) *InputRequest {
	r := &InputRequest{Key: rp.key, Pos: d.pos(rp.k)}
	var doc requestDoc
	decodeInto(rp.v, &doc)
	r.Optional = doc.Optional
	if doc.Lint.Node != nil {
		r.Lint = d.decodeLint(doc.Lint.Node)
	}
	d.decodeElicit(r, doc.Elicit.Node, doc.ElicitURL.Node)
	d.decodeSample(r, doc.Sample.Node)
	d.decodeRoots(r, doc.Roots.Node)
	kinds := writtenKeys(rp.v, requestKindKeys)
	switch len(kinds) {
	case 0:
		d.errorf(rp.k, "ask", "add one of elicit, elicitUrl, sample, roots", "input request %q does not say what it asks for", r.Key)
		return nil
	case 1:
		if r.Kind == vocab.Elicit && len(r.Fields) == 0 {
			d.errorf(rp.k, "ask", "add fields: {name: {type: ...}}", "elicitation %q has no fields", r.Key)
		}
		return r
	}
	d.errorf(kinds[1], "ask", "use one request key per kind", "input request %q asks for more than one thing", r.Key)
	return nil
}

// decodeElicit decodes a form elicitation, a URL elicitation, or both
// (which decodeRequest refuses).
func (d *decoder) decodeElicit(r *InputRequest, form, url *yaml.Node) {
	if form != nil {
		var doc elicitDoc
		decodeInto(form, &doc)
		r.Kind, r.Message = vocab.Elicit, d.optTemplate(doc.Message)
		r.Fields = d.decodeFields(doc.Fields.Node, fieldForm)
	}
	if url != nil {
		var doc elicitDoc
		decodeInto(url, &doc)
		r.Kind, r.Message = vocab.ElicitURL, d.optTemplate(doc.Message)
		if doc.URL.Node != nil {
			r.URL = d.urlTemplate(doc.URL.Node)
		}
	}
}

// decodeSample decodes a sampling request (256 tokens by default).
func (d *decoder) decodeSample(r *InputRequest, n *yaml.Node) {
	if n == nil {
		return
	}
	var doc sampleDoc
	decodeInto(n, &doc)
	r.Kind, r.Prompt, r.SystemPrompt = vocab.Sample, d.optTemplate(doc.Prompt), doc.SystemPrompt
	if doc.MaxTokens.Node != nil {
		r.MaxTokens = d.intVal(doc.MaxTokens.Node)
	}
	if r.MaxTokens == 0 {
		r.MaxTokens = 256
	}
	r.MaxLength = d.optInt(doc.MaxLength)
	if doc.MinLength.Node == nil && doc.Pattern.Node == nil && doc.Validate.Node == nil {
		return
	}
	// The text is then checked as a string form field would be.
	t := &Field{Name: r.Key, Type: TypeString, MaxLength: r.MaxLength, MinLength: d.optInt(doc.MinLength)}
	if p := doc.Pattern.Node; p != nil {
		t.Pattern, t.Regexp = p.Value, d.pattern(p)
	}
	if doc.Validate.Node != nil {
		for _, v := range doc.Validate.Content {
			t.Validate = append(t.Validate, NameRef{Name: v.Value, Pos: d.pos(v)})
		}
	}
	if t.MinLength != nil && t.MaxLength != nil && *t.MinLength > *t.MaxLength {
		d.errorf(doc.MinLength.Node, "field", "make minLength at most maxLength", "sampled text %q: minLength %d is more than maxLength %d", r.Key, *t.MinLength, *t.MaxLength)
	}
	r.Text = t
}

// decodeRoots decodes a roots request.
func (d *decoder) decodeRoots(r *InputRequest, n *yaml.Node) {
	if n == nil {
		return
	}
	var doc rootsDoc
	decodeInto(n, &doc)
	r.Kind, r.MaxItems, r.MinItems = vocab.Roots, DefaultMaxRoots, d.optInt(doc.MinItems)
	if doc.MaxItems.Node != nil {
		r.MaxItems = d.intVal(doc.MaxItems.Node)
	}
}
