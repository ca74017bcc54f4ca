package spec

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// File is one loaded *.mrtr.yaml spec: a Go package of multi-round tools and
// prompts. Every slice is in a deterministic order (see each field), so two
// loads of the same bytes produce equal models.
type File struct {
	Path    string // as given to the loader
	Version int
	Package string // Go package name of the generated code
	// Output is the output directory relative to the spec file's directory,
	// cleaned, with forward slashes ("." by default).
	Output string
	// Validators are the named custom validators handlers implement, sorted
	// by name.
	Validators []*Validator
	// Tools and Prompts are sorted by name.
	Tools   []*Tool
	Prompts []*Tool
	// Resources are sorted by name (Kind resource).
	Resources []*Tool
	Lint      *LintConfig // file-wide opt-outs, may be nil

	Pos        Pos // start of the document
	PackagePos Pos
	OutputPos  Pos
}

// Workflows returns the tools followed by the prompts.
func (f *File) Workflows() []*Tool {
	all := make([]*Tool, 0, len(f.Tools)+len(f.Prompts)+len(f.Resources))
	all = append(all, f.Tools...)
	all = append(all, f.Prompts...)
	return append(all, f.Resources...)
}

// Validator is a named custom validator: a handler method checking one value
// of Type (string, number, integer or boolean).
type Validator struct {
	Name        string
	Type        FieldType
	Description string
	// Reads, for a validator with context, names the values of the flow it
	// reads besides the value it checks, written like a branch's value: an
	// argument ("component"), a continuation field ("running") or a form
	// field of an earlier answer ("ticket.id"). They are resolved in each
	// workflow that uses the validator (Tool.ValidatorReads); the
	// generated method receives them typed. Empty for a plain validator,
	// whose method gets the value only.
	Reads    []ValueRef
	ReadsPos Pos
	Pos      Pos
}

// InContext reports whether the validator reads the flow (reads:).
func (v *Validator) InContext() bool { return len(v.Reads) > 0 }

// Validator returns the file's validator named name, or nil.
func (f *File) Validator(name string) *Validator {
	for _, v := range f.Validators {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// Tool is one multi-round workflow: an MCP tool, or a prompt (Kind says
// which). Prompts share the whole model; their arguments are strings and
// their terminal states produce messages.
type Tool struct {
	Kind        vocab.Kind
	Name        string // MCP name, e.g. "close_support_ticket"
	Title       string
	Description string
	// Destructive marks a tool whose effects destroy data (MCP
	// destructiveHint); lint then insists on a TTL and confirmation.
	Destructive bool
	// Requires lists client capabilities the tool needs on every round
	// (sorted). Asks add their own needs when they are sent.
	Requires    []vocab.Capability
	RequiresPos Pos // the requires list, when given
	// NonInteractive adds an optional "inputs" argument through which a
	// client (for example an old one that cannot do MRTR) may supply every
	// answer up front.
	NonInteractive bool
	// Resource is what a resource workflow reads (Kind resource); its
	// arguments are the variables of its URI template.
	Resource *ResourceDecl
	// Task declares the tool long-running: from its start state on it runs
	// as a task of the MCP Tasks extension (nil: it never does).
	Task         *TaskDecl
	Arguments    []*Field // sorted by name
	Continuation *Continuation
	Initial      string
	// States are ordered by a breadth-first walk from the initial state
	// (following the edges in State.Edges order: Next, outcomes by name, a
	// branch's arms and default, OnDecline, OnCancel, askAgain and
	// onExhausted, an ask's onExhausted); states the walk does not reach
	// follow, sorted by name.
	States []*State
	// Questions are the input requests several states may ask (sorted by
	// key): a state asking one holds the same *InputRequest in its
	// Requests (questions.go).
	Questions []*InputRequest
	// OnDecline and OnCancel, written on the workflow, are where every ask
	// and gate without its own onDecline or onCancel goes when the user
	// declines or cancels: a terminal state, typically one with the
	// structured output of an end that did nothing (nil: such an ask or
	// gate ends the workflow as cancelled by itself, without output). The
	// decoder copies them into those states (StateRef.Default), so the
	// graph, the generated machine, its tests and its page see edges like
	// any other. See output.go. OnExpire is the same for the approval
	// gates without their own onExpire (nil: the workflow ends expired).
	OnDecline, OnCancel, OnExpire *StateRef
	Lint                          *LintConfig
	// ValidatorReads are the reads of each validator with context the
	// workflow uses, sorted by validator name, resolved against the
	// workflow's arguments, continuation fields and forms (ReadsOf).
	ValidatorReads []*ValidatorReads

	Pos        Pos // the tool's name key
	InitialPos Pos
}

// State returns the state named name, or nil.
func (t *Tool) State(name string) *State {
	for _, s := range t.States {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Argument returns the argument named name, or nil.
func (t *Tool) Argument(name string) *Field { return findField(t.Arguments, name) }

// TaskDecl is a tool's task block: how it runs as a task of the MCP Tasks
// extension (SEP-2663).
type TaskDecl struct {
	// Required: only as a task (a client without the extension is
	// refused); otherwise (mode optional) as a task when the client
	// declared the extension, in its rounds otherwise.
	Required bool
	// Start is the state the task starts at (resolved: the spec's start,
	// or the first effect state in flow order). The rounds before it are
	// MRTR rounds of tools/call; asks after it go through the task.
	Start    string
	StartPos Pos
	// Timeout bounds the task's run (0: none); PollInterval and TTL are
	// what the client is told (0: the runtime's defaults, 1s and 1h).
	Timeout, PollInterval, TTL Duration
	Pos                        Pos
}

// Duration is a duration given in a spec, and where.
type Duration struct {
	D   time.Duration
	Pos Pos
}

// Continuation is the typed data carried between rounds.
type Continuation struct {
	TTL time.Duration
	// TTLSet reports whether the spec gave a TTL (otherwise DefaultTTL).
	TTLSet bool
	// Storage is where the continuation lives; StorageSet reports whether
	// the spec chose it (otherwise reference when a continuation field or a
	// form field is sensitive, else sealed).
	Storage    vocab.Storage
	StorageSet bool
	MaxBytes   int      // budget for the worst-case encoded size
	Fields     []*Field // sorted by name
	// Transient are the values recomputed by a handler method whenever a
	// template naming them is rendered, never carried (sorted by name).
	Transient []*Transient

	Pos    Pos
	TTLPos Pos
}

// Field returns the continuation field named name, or nil.
func (c *Continuation) Field(name string) *Field { return findField(c.Fields, name) }

// TransientValue returns the transient value named name, or nil.
func (c *Continuation) TransientValue(name string) *Transient {
	for _, t := range c.Transient {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Transient is a value only templates use (a log shown to a sampling
// prompt, a diff before a confirmation): the handler method From computes
// it each time a template naming it is rendered, the first ask and every
// re-ask alike, so it is never carried in the continuation or its token.
// Reads lists the arguments and continuation fields the method reads:
// lint checks each is set wherever the value is rendered.
type Transient struct {
	*Field
	From  *NameRef
	Reads []*ValueRef
	// ReadsSet reports whether the spec wrote reads: (possibly empty).
	ReadsSet bool
}

// Defaults used when a spec leaves them out.
const (
	DefaultTTL      = 10 * time.Minute
	DefaultMaxBytes = 4096
	DefaultRetain   = 24 * time.Hour
	// DefaultMaxRoots and MaxRootURIBytes bound a roots/list answer.
	DefaultMaxRoots = 8
	MaxRootURIBytes = 512
)

// FieldType is the type of an argument, continuation field or form field.
type FieldType int

const (
	TypeString FieldType = iota + 1
	TypeNumber
	TypeInteger
	TypeBoolean
	TypeEnum
	TypeArray
	// TypeOption is the item type of a continuation list of options: a
	// value (a string, with the constraints of one) and a display title.
	// A check fills such a list with what it discovered; a form field
	// offers it (valuesFrom).
	TypeOption
)

var fieldTypeNames = map[FieldType]string{
	TypeString: "string", TypeNumber: "number", TypeInteger: "integer",
	TypeBoolean: "boolean", TypeEnum: "enum", TypeArray: "array", TypeOption: "option",
}

func (t FieldType) String() string { return fieldTypeNames[t] }

// Field is a typed value with constraints: a call argument, a continuation
// field, a form field of an elicitation, or the items of an array.
type Field struct {
	Name string
	// Written is the field's position among its siblings in the spec. Field
	// lists are sorted by name (the continuation codec and digests rely on
	// that order); forms and input schemas list fields as written.
	Written     int
	Type        FieldType
	Title       string
	Description string
	Required    bool
	Default     any // string, float64, int64, bool or []string; nil when absent
	// Example is of the same types as Default, or []Option for a
	// continuation list of options; nil when absent.
	Example any

	MinLength *int
	MaxLength *int
	Pattern   string
	Regexp    *regexp.Regexp // compiled Pattern
	Format    string         // email, uri, date, date-time
	Minimum   *float64
	Maximum   *float64

	Values []EnumValue // for TypeEnum, in spec order (the order clients show)
	// ValuesFrom, for a form field of TypeEnum (or the enum items of a
	// multi-select), names the continuation list whose options are offered
	// instead of fixed Values: choices a check discovered at run time.
	// Source is that list once resolved (nil until then, or when it does
	// not resolve).
	ValuesFrom *NameRef
	Source     *Field
	// TitleMaxLength bounds the title of a TypeOption (MaxLength bounds
	// its value), and TitlePattern, when set, is what every title must
	// match (TitleRegexp compiled, anchored), as Pattern is for the value:
	// the handler's list is checked against both, and the size budget
	// counts a title by what they allow.
	TitleMaxLength *int
	TitlePattern   string
	TitleRegexp    *regexp.Regexp

	Items    *Field // for TypeArray
	MinItems *int   // counted after duplicates of enum values are dropped
	MaxItems *int
	// UniqueItems refuses a list that repeats a value (arguments and form
	// fields). Without it, repeated enum values are dropped: lists of enum
	// values are always distinct and in spec order.
	UniqueItems bool

	Validate []NameRef // custom validators, in spec order
	// Complete declares completions (prompt arguments, resource template
	// variables).
	Complete  *Completion
	Sensitive bool // continuation and form fields: keep server-side, never sealed or rendered
	// GoType, when set (goType:), is the Go type generated code uses for a
	// string, number, integer or boolean value instead of string, float64,
	// int64 or bool. The value's JSON form (and so every schema, check and
	// the continuation's encoding) stays that of Type.
	GoType *GoType
	Lint   *LintConfig

	Pos Pos // the field's name key
}

// Dynamic reports whether f is an enum whose values come from a
// continuation list (ValuesFrom) rather than the spec.
func (f *Field) Dynamic() bool { return f.Type == TypeEnum && f.ValuesFrom != nil }

// OptionItems returns the item field of a list that can be offered as the
// options of a dynamic enum: an array of options or of strings. It returns
// nil for any other field.
func (f *Field) OptionItems() *Field {
	if f == nil || f.Type != TypeArray || f.Items == nil {
		return nil
	}
	if f.Items.Type == TypeOption || f.Items.Type == TypeString {
		return f.Items
	}
	return nil
}

// GoType is a Go type named by its import path and type name:
// github.com/google/uuid.UUID is Path github.com/google/uuid, Name UUID.
// A type of the generated package itself has no Path.
type GoType struct {
	Path, Name string
	Pos        Pos // the goType value
}

func (g *GoType) String() string {
	if g.Path == "" {
		return g.Name
	}
	return g.Path + "." + g.Name
}

// Option is one option of an example list of options.
type Option struct {
	Value, Title string
}

// EnumValue is one allowed value of an enum, with an optional display title.
type EnumValue struct {
	Value string
	Title string
	Pos   Pos
}

// NameRef is a name used at a position (a check, effect or validator).
type NameRef struct {
	Name string
	Pos  Pos
}

// State is one node of a workflow's state machine. Which fields are set
// depends on Kind.
type State struct {
	Name        string
	Kind        vocab.StateKind
	Description string

	// Check: the handler method; the next state, or one per named outcome.
	Check    *NameRef
	Outcomes []*Branch // sorted by name; empty when Next is used
	// AskAgain, on a check, is where the check may send the workflow back
	// when it refuses an answer with a message (mrtr.AskAgain); nil when
	// the check cannot ask again.
	AskAgain *AskAgain

	// Branch: the value routed on and the arms.
	Branch *ValueBranch

	// Sets, on a check or an effect, declares the continuation fields the
	// handler method sets before it returns (sorted by field name): lint
	// proves that what later states read is set on every path to them,
	// and the generated code fails the round when the method returned
	// without setting one. SetsPos is the sets key; nil Sets with a zero
	// SetsPos means the state declares nothing.
	Sets    []*SetDecl
	SetsPos Pos

	// Ask: the requests of the round (sorted by key).
	Requests []*InputRequest
	// Forms, for each question (questions:) whose form differs at some
	// state (siteforms.go), is the form this state asks, by key: Requests
	// keeps the shared question (one answer, one answer type), Forms the
	// exact form sent and validated here. Nil when no question differs.
	Forms map[string]*InputRequest
	// MaxAttempts and OnExhausted, on an ask whose forms use a validator
	// with context, bound the answers such validators refuse: the refusal
	// of the MaxAttempts-th answer goes to OnExhausted instead of asking
	// again (0 and nil: unbounded, as built-in validation is).
	MaxAttempts int
	OnExhausted *StateRef
	// Confirm: the gate's question.
	Confirm *Gate

	// Effect: the handler method, whether it can be undone, and how its
	// operation id is formed.
	Effect       *NameRef
	Irreversible bool
	Idempotency  *Idempotency
	// Progress, on a check or an effect, declares the state slow: its
	// handler method gets a progress reporter (*mrtr.Progress) that sends
	// notifications/progress on the request's progressToken.
	Progress bool
	// Slow marks an effect that takes longer than a request should wait
	// (lint wants the tool declared long-running then).
	Slow    bool
	SlowPos Pos

	// Terminal: how the workflow ends and what it says.
	Outcome  vocab.Outcome
	Message  *Template        // tools: the result text
	Messages []*PromptMessage // prompts: the resulting messages
	// Output, on a tool's success or cancelled terminal state, are the
	// typed fields of the structured result (MCP structuredContent) a
	// handler method fills, sorted by name; OutputPos is the output key.
	// See output.go.
	Output    []*Field
	OutputPos Pos
	// Content are a tool's content items after its text, or a resource's
	// contents (Kind ContentResource).
	Content []*Content
	// NotFound, on a failed terminal state of a resource, says that ending
	// there means the resource read does not exist: the reader gets the
	// protocol's resource-not-found error (-32602 with data.uri from
	// 2026-07-28 on, -32002 before) instead of -32000.
	NotFound bool

	// Transitions. Next is the state after check (without outcomes), ask,
	// confirm (accepted) and effect. OnDecline and OnCancel are where an ask
	// or gate goes when the user declines or cancels; nil means the workflow
	// ends as cancelled.
	Next      *StateRef
	OnDecline *StateRef
	OnCancel  *StateRef
	// OnExpire, on an approval gate, is where the workflow goes when the
	// approval's deadline passes first; nil ends it with outcome expired.
	OnExpire *StateRef

	Lint *LintConfig
	Pos  Pos // the state's name key
}

// Branch is a named outcome of a check and the state it leads to.
type Branch struct {
	Name   string
	Target StateRef
	Pos    Pos
}

// SetDecl is one continuation field a check or effect declares it sets:
// on every way out, or (Outcomes non-empty) only when the check returns one
// of these outcomes.
type SetDecl struct {
	Field    NameRef
	Outcomes []NameRef // in spec order; empty: every outcome
}

// OutcomeNames are the names of the outcomes the declaration is limited
// to, in spec order (none: every outcome).
func (d *SetDecl) OutcomeNames() []string {
	var names []string
	for _, o := range d.Outcomes {
		names = append(names, o.Name)
	}
	return names
}

// SetsOn reports whether the declaration covers leaving the state by edge
// on: every way out of the state's method, or the outcomes it names.
func (d *SetDecl) SetsOn(on vocab.Edge) bool {
	o, isOutcome := on.Outcome()
	if len(d.Outcomes) == 0 {
		return on == vocab.Next || isOutcome
	}
	return isOutcome && slices.ContainsFunc(d.Outcomes, func(r NameRef) bool { return r.Name == o })
}

// DeclaresSets reports whether a check or effect of the workflow says what
// it sets (a sets key, even an empty one): the workflow then opts in to the
// proof that every continuation value it reads is set on every path, and to
// the run-time enforcement of the declarations.
func (t *Tool) DeclaresSets() bool {
	return slices.ContainsFunc(t.States, func(s *State) bool { return s.SetsPos.Line > 0 || len(s.Sets) > 0 })
}

// AskAgain is where a check sends the workflow when it refuses an answer
// with a message for the user: back to an earlier ask, at most MaxAttempts
// answers in all; the refusal that uses up the last attempt goes to
// OnExhausted instead.
type AskAgain struct {
	State       StateRef // the ask
	MaxAttempts int      // ≥ 2: answers the check may see, the first included
	OnExhausted StateRef
	Pos         Pos // the askAgain key
}

// ValueBranch routes on one value with no handler method. Cases route an
// enum or a boolean by value; Ranges route a number by disjoint ranges.
// Default takes every other value, and an absent one.
type ValueBranch struct {
	On      ValueRef
	Cases   []*Case  // sorted by value
	Ranges  []*Range // sorted from the lowest
	Default *StateRef
	Pos     Pos // the branch key
}

// Arm is one arm of a value branch, as its edge shows it.
type Arm struct {
	Label  string // the case's value, or the range ("above 500")
	Target StateRef
	Case   *Case  // one of Case and Range is set
	Range  *Range //
}

// Arms lists the branch's arms in edge order: cases by value, ranges from
// the lowest.
func (b *ValueBranch) Arms() []Arm {
	var out []Arm
	for _, c := range b.Cases {
		out = append(out, Arm{Label: c.Value, Target: c.Target, Case: c})
	}
	for _, r := range b.Ranges {
		out = append(out, Arm{Label: r.Label(), Target: r.Target, Range: r})
	}
	return out
}

// ValueRef names the value a branch routes on, written like a template
// placeholder without braces: an argument ("amount"), a continuation field
// ("tier") or a form field of an answer ("refund.amount"). The loader
// resolves it: Kind is RefArgument, RefContinuation or RefFormField, and
// Field the field it names.
type ValueRef struct {
	Path  []string
	Kind  RefKind
	Field *Field
	Pos   Pos
}

// Name is the reference as written.
func (r *ValueRef) Name() string { return strings.Join(r.Path, ".") }

// Case is one arm of a branch over an enum or a boolean: the value and the
// state it leads to. Booleans are written true and false.
type Case struct {
	Value  string
	Target StateRef
	Pos    Pos // the value's key
}

// Range is one arm of a branch over a number: the values between its
// bounds (a missing bound is unbounded) lead to Target.
type Range struct {
	Lower, Upper *Bound
	Target       StateRef
	Pos          Pos // the list item
}

// Bound is one end of a range. Inclusive bounds are written atLeast and
// atMost, exclusive ones above and below.
type Bound struct {
	Value     float64
	Inclusive bool
}

// Label is the range as diagrams, edges and walks show it: "above 500",
// "at least 100 and below 500".
func (r *Range) Label() string {
	var parts []string
	if b := r.Lower; b != nil {
		word := "above "
		if b.Inclusive {
			word = "at least "
		}
		parts = append(parts, word+FormatNumber(b.Value))
	}
	if b := r.Upper; b != nil {
		word := "below "
		if b.Inclusive {
			word = "at most "
		}
		parts = append(parts, word+FormatNumber(b.Value))
	}
	return strings.Join(parts, " and ")
}

// Contains reports whether x is in the range.
func (r *Range) Contains(x float64) bool {
	if b := r.Lower; b != nil && (x < b.Value || (x == b.Value && !b.Inclusive)) {
		return false
	}
	if b := r.Upper; b != nil && (x > b.Value || (x == b.Value && !b.Inclusive)) {
		return false
	}
	return true
}

// FormatNumber writes a bound as a person would: 500, 0.5, 1000000.
func FormatNumber(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// StateRef names a state at a position.
type StateRef struct {
	Name string
	Pos  Pos
	// Default: the workflow's onDecline or onCancel, not the state's own
	// (Pos is then the workflow's key).
	Default bool
}

// Edge is one transition of the state machine.
type Edge struct {
	From, To string
	On       vocab.Edge // why the machine moves
	Pos      Pos
}

// Edges lists the state's outgoing transitions in a fixed order: next,
// outcomes by name, a branch's arms (cases by value, ranges from the
// lowest) and its default, decline, cancel, expire, ask again, exhausted.
func (s *State) Edges() []Edge {
	var es []Edge
	if s.Next != nil {
		es = append(es, Edge{From: s.Name, To: s.Next.Name, On: vocab.Next, Pos: s.Next.Pos})
	}
	for _, b := range s.Outcomes {
		es = append(es, Edge{From: s.Name, To: b.Target.Name, On: vocab.OutcomeEdge(b.Name), Pos: b.Target.Pos})
	}
	if b := s.Branch; b != nil {
		for _, a := range b.Arms() {
			es = append(es, Edge{From: s.Name, To: a.Target.Name, On: vocab.CaseEdge(a.Label), Pos: a.Target.Pos})
		}
		if b.Default != nil {
			es = append(es, Edge{From: s.Name, To: b.Default.Name, On: vocab.Default, Pos: b.Default.Pos})
		}
	}
	if s.OnDecline != nil {
		es = append(es, Edge{From: s.Name, To: s.OnDecline.Name, On: vocab.Decline, Pos: s.OnDecline.Pos})
	}
	if s.OnCancel != nil {
		es = append(es, Edge{From: s.Name, To: s.OnCancel.Name, On: vocab.Cancel, Pos: s.OnCancel.Pos})
	}
	if s.OnExpire != nil {
		es = append(es, Edge{From: s.Name, To: s.OnExpire.Name, On: vocab.Expire, Pos: s.OnExpire.Pos})
	}
	if a := s.AskAgain; a != nil {
		es = append(es, Edge{From: s.Name, To: a.State.Name, On: vocab.AskAgain, Pos: a.State.Pos},
			Edge{From: s.Name, To: a.OnExhausted.Name, On: vocab.Exhausted, Pos: a.OnExhausted.Pos})
	}
	if s.Kind == vocab.StateAsk && s.OnExhausted != nil {
		// The answers validators with context refused are asked for again
		// in the state itself (no edge), as built-in validation does.
		es = append(es, Edge{From: s.Name, To: s.OnExhausted.Name, On: vocab.Exhausted, Pos: s.OnExhausted.Pos})
	}
	return es
}

// Interactive reports whether the state sends input requests (ask or gate).
func (s *State) Interactive() bool { return s.Kind.Interactive() }

// Request returns the state's input request with the given key, or nil.
func (s *State) Request(key string) *InputRequest {
	for _, r := range s.Requests {
		if r.Key == key {
			return r
		}
	}
	return nil
}

// InputRequest is one entry of inputRequests: its key, and what it asks.
type InputRequest struct {
	Key  string
	Kind vocab.RequestKind
	// Optional requests are left out when the client lacks the capability;
	// a round whose requests are all left out fails with -32021.
	Optional bool

	// Elicit: the form. ElicitURL: the message, and URL, the template of
	// the URL the client opens (absolute https, or a path on the engine's
	// PublicURL); Fields is empty.
	Message *Template
	Fields  []*Field // sorted by name
	URL     *Template

	// Sample: the conversation to complete and bounds on the answer.
	Prompt       *Template
	SystemPrompt string
	MaxTokens    int
	MaxLength    *int // of the returned text
	// Text, when the request has minLength, pattern or validate, is how
	// the returned text is checked: as a string field named Key
	// (MaxLength included). An answer it refuses is sampled again, the
	// problems added to the prompt.
	Text *Field

	// Roots: bounds on the answer.
	MinItems *int
	MaxItems int // default DefaultMaxRoots

	Lint *LintConfig
	Pos  Pos // the request's key

	// Site, on a state's own form of a question (State.Forms), is the
	// shared question; Extended and Narrowed name the fields the state
	// added and restricted (sorted), for docs and lint.
	Site     *InputRequest
	AskedIn  string // the state's name
	Extended []string
	Narrowed []string
}

// Field returns the form field named name, or nil.
func (r *InputRequest) Field(name string) *Field { return findField(r.Fields, name) }

// Gate is a confirmation: a yes/no question sent as an elicitation whose
// form has one required boolean field.
//
// A typed confirmation (Typed set) asks the user to type a text instead:
// its form has one required string field, and the gate passes only when
// the text typed is Typed as rendered (mrtrimpl.X.ConfirmTyped). A mismatch is
// asked again saying so; the MaxAttempts-th mismatch leaves the gate as
// declining does.
type Gate struct {
	Key     string // inputRequests key, "confirm" by default
	Field   string // the form field's name, "confirm" by default
	Message *Template
	// Typed is the text to type; nil for a yes/no gate.
	Typed *Template
	// MaxAttempts bounds the texts typed, the first included (default
	// DefaultTypedAttempts); 0 for a yes/no gate.
	MaxAttempts    int
	MaxAttemptsPos Pos
	// Approval, when set, makes the gate an approval (docs/approvals.md):
	// an approval record, decided under its policy, passes it rather than
	// the chat's answer.
	Approval *Approval
	Pos      Pos
}

// Approval is a gate's approval policy: who may approve, how many, what
// the requester may do, and the times of its deadline, reminders and
// escalation (each from the request).
type Approval struct {
	// Approvers names the role the handler resolves to the principals who
	// may approve ("": anyone signed in the requester rule admits).
	Approvers string
	// Count is how many distinct approvers must approve (1-10).
	Count int
	// Requester is what the requester may do: RequesterExcluded (four
	// eyes), RequesterPage or RequesterChat.
	Requester string
	// Deadline is how long the approval may take (DefaultApprovalDeadline,
	// at most MaxApprovalDeadline).
	Deadline    time.Duration
	DeadlinePos Pos
	// Remind are the times the undecided approvers are reminded, ascending.
	Remind    []time.Duration
	RemindPos Pos // the remind key
	// Escalate, when positive, is the time EscalateTo (a role) is notified
	// and admitted as approvers.
	Escalate    time.Duration
	EscalateTo  string
	EscalatePos Pos
	Pos         Pos // the approval key
}

// What the requester of an approval may do.
const (
	RequesterExcluded = "excluded" // someone else must approve (four eyes)
	RequesterPage     = "page"     // the requester may approve on the approval page
	RequesterChat     = "chat"     // the requester may also approve in the chat, by the gate's form
)

// Approval deadlines: the default, and the longest a spec may give.
const (
	DefaultApprovalDeadline = 24 * time.Hour
	MaxApprovalDeadline     = 720 * time.Hour
)

// Approval returns the policy of the state's gate, or nil when the state
// is not an approval gate.
func (s *State) Approval() *Approval {
	if s.Confirm == nil {
		return nil
	}
	return s.Confirm.Approval
}

// DefaultTypedAttempts is how many texts a typed confirmation takes by
// default.
const DefaultTypedAttempts = 3

// RefusalLimit is how many answers state s may refuse before it leaves by
// its exhausted way (a check's askAgain, a typed confirmation's mismatches,
// an ask's validators with context):
// such a state counts its refusals in the continuation. 0 for any other.
func (s *State) RefusalLimit() int {
	switch {
	case s.AskAgain != nil:
		return s.AskAgain.MaxAttempts
	case s.Confirm != nil && s.Confirm.Typed != nil:
		return s.Confirm.MaxAttempts
	case s.Kind == vocab.StateAsk && s.OnExhausted != nil:
		return s.MaxAttempts // its validators with context
	}
	return 0
}

// Idempotency says how an effect's operation id is formed and how long its
// result is kept for replays.
type Idempotency struct {
	// Key is a template over arguments and continuation fields, plus
	// {workflowId}. The default "{workflowId}" makes retries of one workflow
	// idempotent; a business key ("charge-{invoiceId}") also catches a second
	// workflow for the same thing.
	Key    *Template
	Retain time.Duration
	Pos    Pos
}

// IsDefault reports whether the operation id is the workflow's own
// ({workflowId}), the default.
func (i *Idempotency) IsDefault() bool {
	if i == nil || i.Key == nil {
		return true
	}
	refs := i.Key.Refs()
	return len(i.Key.Parts) == 1 && len(refs) == 1 && refs[0].Kind == RefWorkflowID
}

// PromptMessage is one message of a prompt's result.
type PromptMessage struct {
	Role string // "user" or "assistant"
	Text *Template
	// Content, instead of Text, is one content item.
	Content *Content
	Pos     Pos
}

// LintConfig holds reasoned opt-outs: rule id → why it does not apply here.
type LintConfig struct {
	Ignore []Suppression // sorted by rule
	Pos    Pos
}

// Suppression silences one rule at one place, with a reason reviewers read.
type Suppression struct {
	Rule   string
	Reason string
	Pos    Pos
}

func findField(fs []*Field, name string) *Field {
	for _, f := range fs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// LintConfigs lists every opt-out block of the file (the file's, each
// workflow's, state's, request's and field's), for lint and for breaking,
// which share the opt-out syntax.
func (f *File) LintConfigs() []*LintConfig {
	var out []*LintConfig
	add := func(lc *LintConfig) {
		if lc != nil {
			out = append(out, lc)
		}
	}
	var addFields func([]*Field)
	addFields = func(fs []*Field) {
		for _, fd := range fs {
			add(fd.Lint)
			if fd.Items != nil {
				addFields([]*Field{fd.Items})
			}
		}
	}
	add(f.Lint)
	for _, t := range f.Workflows() {
		add(t.Lint)
		addFields(t.Arguments)
		addFields(t.Continuation.Fields)
		for _, s := range t.States {
			add(s.Lint)
			for _, q := range s.Requests {
				add(q.Lint)
				addFields(q.Fields)
			}
			addFields(s.Output)
		}
	}
	return out
}
