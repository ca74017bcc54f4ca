package mrtr

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"unicode/utf8"

	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// envelope is what a requestState seals: which workflow, where it stands,
// which of the state's requests were sent, and its data (inline, or a
// reference to the store). Version 3, what this build mints, names the
// state and the requests, so that a build of a changed spec reads it
// (docs/evolution.md):
//
//	version(1)=3 | workflow id(16) | arguments digest(32) | round(uvarint) | state name(string) | state kind(uvarint)
//	| sent count(uvarint) | per sent request: key(string) digest(8) | mode(1) | inline data or reference
//
// and its data are tagged entries (binenc). Versions 1 and 2, from earlier
// builds, are positional and bound to the schema hash; they open on a
// build of the same spec only:
//
//	version(1) | schema hash(8) | workflow id(16) | state number(uvarint) | round(uvarint)
//	| sent mask(uvarint, v2) | digest(8) per sent request (v2) | mode(1) | inline data or reference
//
// Once read, sent is a bit mask over the state's requests of this build
// (StateInfo.Requests, bit i for request i), and digests hold the pin of
// each sent request's question as it was sent (pinnedDigest; tokens of
// earlier builds hold questionDigest), in request order: an answer counts
// only for a request this server sent, and only while the question it
// would send now is that same question (pinQuestions). An
// optional request left out (the client could not answer it) takes no
// answer. Version 1 tokens carry neither: every request of their state
// counts as sent, as those builds assumed.
type envelope struct {
	version  byte
	workflow [16]byte
	args     [32]byte // the arguments digest (v3; earlier versions bind it in the seal)
	state    uint16
	round    int
	sent     uint64
	digests  []uint64 // one per bit set in sent, in request order; nil in v1
	data     []byte   // inline continuation (mode sealed)
	ref      string   // store reference (mode reference)
	// refSealed: the record at ref is sealed at rest (recordatrest.go); records
	// of builds before it are plaintext (modeReference).
	refSealed bool
}

// legacy reports whether the envelope is of version 1 or 2: its data is
// positional (LoadContinuationV2) and it is bound to the legacy arguments
// digest (AppendArgsV2).
func (env *envelope) legacy() bool { return env.version < envelopeVersion }

const (
	envelopeV1      = 1
	envelopeV2      = 2
	envelopeVersion = 3
	modeInline      = 0
	modeReference   = 1 // a plaintext continuation record (earlier builds)
	// modeSealedReference: a continuation record sealed at rest
	// (recordatrest.go), what this build writes.
	modeSealedReference = 2
)

// allSent is the mask of every request of a state with n requests.
func allSent(n int) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<n - 1
}

func (env *envelope) workflowID() string { return hex.EncodeToString(env.workflow[:]) }

// marshal writes the envelope in the current version. The state and its
// requests are named as d describes them.
func (env *envelope) marshal(d *mrtrimpl.Descriptor) []byte {
	info := d.State(env.state)
	// Sized for all it writes (varints at most 3 bytes): one allocation.
	size := 1 + 16 + 32 + 4*3 + len(info.Name) + 1 + 3 + len(env.ref) + len(env.data)
	for i, q := range info.Requests {
		if i < 64 && env.sent&(1<<i) != 0 {
			size += 3 + len(q.Key) + 8
		}
	}
	b := make([]byte, 0, size)
	b = append(b, envelopeVersion)
	b = append(b, env.workflow[:]...)
	b = append(b, env.args[:]...)
	b = binenc.AppendUvarint(b, uint64(env.round))
	b = binenc.AppendString(b, info.Name)
	b = binenc.AppendUvarint(b, uint64(info.Kind))
	b = binenc.AppendUvarint(b, uint64(bits.OnesCount64(env.sent)))
	n := 0
	for i, q := range info.Requests {
		if i < 64 && env.sent&(1<<i) != 0 {
			b = binenc.AppendString(b, q.Key)
			b = binary.BigEndian.AppendUint64(b, env.digests[n])
			n++
		}
	}
	if env.ref != "" {
		if env.refSealed {
			b = append(b, modeSealedReference)
		} else {
			b = append(b, modeReference)
		}
		return binenc.AppendString(b, env.ref)
	}
	b = append(b, modeInline)
	return append(b, env.data...)
}

// Why an envelope does not open on this build. The reasons are the log
// reasons of docs/evolution.md; a test keeps them in step.
const (
	reasonMalformed      = "malformed"
	reasonSchemaChanged  = "schema_changed"
	reasonStateRemoved   = "state_removed"
	reasonStateChanged   = "state_changed"
	reasonStorageChanged = "storage_changed"
	reasonTypeChanged    = "field_type_changed"
	reasonEnumRemoved    = "enum_value_removed"
	reasonNarrowed       = "constraint_narrowed"
	reasonGateChanged    = "gate_changed"
	reasonCorruptData    = "corrupt_data"
	reasonBinding        = "binding"
)

func refused(reason, format string, args ...any) *stateError {
	return &stateError{reason: reason, err: fmt.Errorf(format, args...)}
}

// unmarshalEnvelope reads an envelope of any version for program d. Every
// error is a *stateError with its reason.
func unmarshalEnvelope(b []byte, d *mrtrimpl.Descriptor) (*envelope, error) {
	if len(b) < 1+16+3 {
		return nil, refused(reasonMalformed, "malformed envelope")
	}
	switch b[0] {
	case envelopeVersion:
		return unmarshalV3(b, d)
	case envelopeV1, envelopeV2:
		return unmarshalLegacy(b, d)
	}
	return nil, refused(reasonMalformed, "unknown envelope version %d", b[0])
}

func unmarshalV3(b []byte, d *mrtrimpl.Descriptor) (*envelope, error) {
	if len(b) < 1+16+32+3 {
		return nil, refused(reasonMalformed, "malformed envelope")
	}
	env := &envelope{version: b[0]}
	copy(env.workflow[:], b[1:17])
	copy(env.args[:], b[17:49])
	r := binenc.NewReader(b[49:])
	round, name := r.Uvarint(), r.View()
	kind := vocab.StateKind(r.Uvarint())
	if r.Err() != nil || round < 2 || round > 1<<20 || !utf8.Valid(name) {
		return nil, refused(reasonMalformed, "malformed envelope header")
	}
	s, info := d.StateNamed(string(name))
	if info == nil {
		return nil, refused(reasonStateRemoved, "the continuation waits in state %q, which %s no longer has", name, d.Name)
	}
	if info.Kind != kind {
		return nil, refused(reasonStateChanged, "the continuation waits in state %q, a %s state, which is a %s state now", name, kind, info.Kind)
	}
	env.state, env.round = s, int(round)
	// A request this build no longer has in the state was sent by the
	// other one: its answer is not taken. One it has and did not send is
	// asked.
	var digests [64]uint64
	for n := r.Count(); n > 0 && r.Err() == nil; n-- {
		key, digest := r.View(), r.Uint64()
		if i := info.RequestIndex(string(key)); i >= 0 && i < 64 {
			env.sent |= 1 << i
			digests[i] = digest
		}
	}
	if r.Err() != nil {
		return nil, refused(reasonMalformed, "malformed envelope: sent requests")
	}
	env.digests = make([]uint64, 0, bits.OnesCount64(env.sent)) // not nil: not a v1 token
	for i := range min(len(info.Requests), 64) {
		if env.sent&(1<<i) != 0 {
			env.digests = append(env.digests, digests[i])
		}
	}
	if err := env.readMode(r.Rest(), d); err != nil {
		return nil, err
	}
	return env, nil
}

// unmarshalLegacy reads an envelope of version 1 or 2: positional, valid
// only for the spec its schema hash names.
func unmarshalLegacy(b []byte, d *mrtrimpl.Descriptor) (*envelope, error) {
	if len(b) < 1+8+16+3 {
		return nil, refused(reasonMalformed, "malformed envelope")
	}
	if binary.BigEndian.Uint64(b[1:9]) != d.SchemaHash {
		return nil, refused(reasonSchemaChanged, "continuation was issued for another version of the workflow")
	}
	env := &envelope{version: b[0]}
	copy(env.workflow[:], b[9:25])
	r := binenc.NewReader(b[25:])
	state, round := r.Uvarint(), r.Uvarint()
	if r.Err() != nil || state == 0 || state > uint64(len(d.States)) || round < 2 || round > 1<<20 {
		return nil, refused(reasonMalformed, "malformed envelope header")
	}
	env.state, env.round = uint16(state), int(round)
	requests := len(d.States[state-1].Requests)
	if b[0] == envelopeV1 {
		env.sent = allSent(requests)
	} else if env.sent = r.Uvarint(); r.Err() != nil || env.sent&^allSent(requests) != 0 {
		return nil, refused(reasonMalformed, "malformed envelope: sent requests")
	}
	rest := r.Rest()
	if b[0] != envelopeV1 {
		n := bits.OnesCount64(env.sent)
		if len(rest) < 8*n {
			return nil, refused(reasonMalformed, "malformed envelope: question digests")
		}
		env.digests = make([]uint64, n)
		for i := range env.digests {
			env.digests[i] = binary.BigEndian.Uint64(rest[8*i:])
		}
		rest = rest[8*n:]
	}
	if err := env.readMode(rest, d); err != nil {
		return nil, err
	}
	return env, nil
}

// readMode reads the mode byte and what follows it: the inline data, or
// the store reference.
func (env *envelope) readMode(rest []byte, d *mrtrimpl.Descriptor) error {
	if len(rest) == 0 {
		return refused(reasonMalformed, "malformed envelope mode")
	}
	switch rest[0] {
	case modeInline:
		if d.Storage != vocab.Sealed {
			return refused(reasonStorageChanged, "an inline (sealed) continuation for %s, whose continuation is kept by reference now", d.Name)
		}
		env.data = rest[1:]
	case modeReference, modeSealedReference:
		if d.Storage != vocab.Reference {
			return refused(reasonStorageChanged, "a by-reference continuation for %s, whose continuation is sealed now", d.Name)
		}
		rr := binenc.NewReader(rest[1:])
		env.ref, env.refSealed = rr.String(), rest[0] == modeSealedReference
		if err := rr.Done(); err != nil || env.ref == "" {
			return refused(reasonMalformed, "malformed continuation reference")
		}
	default:
		return refused(reasonMalformed, "unknown continuation mode")
	}
	return nil
}

// sealState stores the continuation (inline or by reference) and seals
// the envelope into a requestState. A continuation kept by reference is
// stored now, or handed to keep (non-nil), which stores it with the round's
// reply before the token is sent.
func (e *Engine) sealState(ctx context.Context, d *mrtrimpl.Descriptor, b seal.Binding, env *envelope, principalHash string, keep func(store.StateRecord)) (string, error) {
	if d.Storage == vocab.Reference {
		if e.cfg.Store == nil {
			return "", errors.New("mrtr: program " + d.Name + " keeps its continuation by reference and needs Config.Store")
		}
		ref, err := e.newReference()
		if err != nil {
			return "", err
		}
		rec, err := e.newStateRecord(d, ref, env.workflowID(), principalHash, env.data)
		if err != nil {
			return "", err
		}
		if keep != nil {
			keep(rec)
		} else if err := e.cfg.Store.PutState(ctx, rec, d.TTL+e.cfg.Codec.Skew()); err != nil {
			return "", fmt.Errorf("storing continuation: %w", err)
		}
		env = &envelope{workflow: env.workflow, args: env.args, state: env.state, round: env.round, sent: env.sent, digests: env.digests, ref: ref, refSealed: true}
	}
	return e.cfg.Codec.Seal(b, d.TTL, env.marshal(d))
}

// openState opens a requestState with codec (Config.Codec, or a task
// step's, which tolerates the clock skew between instances). b is the binding of envelope version 3
// tokens, whose envelope must carry args, the digest of this call's
// arguments; legacy, called only when b does not authenticate the token,
// returns the binding of versions 1 and 2 (the positional arguments
// digest in the seal's associated data), so a token minted before version
// 3 still opens while the common path opens once. Every failure is a
// *stateError carrying the precise reason for logs; clients see one opaque
// message. An expired but authentic token returns its envelope with the
// error.
func (e *Engine) openState(codec *seal.Codec, d *mrtrimpl.Descriptor, b seal.Binding, legacy func() seal.Binding, args [32]byte, token string) (*envelope, error) {
	plain, err := codec.Open(b, token)
	asLegacy := false
	if forged(err) && legacy != nil {
		if p, lerr := codec.Open(legacy(), token); !forged(lerr) {
			plain, err, asLegacy = p, lerr, true
		}
	}
	if err != nil {
		reason := "invalid"
		var se *seal.Error
		if errors.As(err, &se) {
			reason = se.Reason.String()
		}
		serr := &stateError{reason: reason, err: err}
		if se != nil && se.Reason == seal.Expired && plain != nil {
			// Authentic but expired: the envelope may still find the
			// round's record (a finished round replays for the record's
			// retention); the caller refuses anything else.
			if env, uerr := unmarshalEnvelope(plain, d); uerr == nil && env.legacy() == asLegacy && env.bound(args) {
				return env, serr
			}
		}
		return nil, serr
	}
	env, err := unmarshalEnvelope(plain, d)
	if err != nil {
		return nil, err
	}
	if env.legacy() != asLegacy {
		// Each version is bound to its own arguments digest; a token that
		// opens under the other one's was not minted by this runtime.
		return nil, refused(seal.Forged.String(), "envelope version %d bound to the other arguments digest", env.version)
	}
	if !env.bound(args) {
		return nil, refused(reasonBinding, "the continuation was issued for other arguments (or arguments this build encodes differently)")
	}
	return env, nil
}

// bound reports whether a v3 envelope was issued for arguments of digest
// args (earlier versions were checked by the seal).
func (env *envelope) bound(args [32]byte) bool {
	return env.legacy() || subtle.ConstantTimeCompare(env.args[:], args[:]) == 1
}

// forged reports whether err is an authentication failure: the token was
// altered, or is presented with another binding (other arguments, or the
// binding of another envelope version).
func forged(err error) bool {
	var se *seal.Error
	return errors.As(err, &se) && se.Reason == seal.Forged
}

// newWorkflowID draws a workflow id from the engine's randomness.
func (e *Engine) newWorkflowID() ([16]byte, error) {
	var id [16]byte
	_, err := io.ReadFull(e.rand(), id[:])
	return id, err
}

// newReference draws a continuation record's reference.
func (e *Engine) newReference() (string, error) { return seal.NewReferenceFrom(e.rand()) }

// rand is Config.Rand, or crypto/rand.
func (e *Engine) rand() io.Reader {
	if e.cfg.Rand != nil {
		return e.cfg.Rand
	}
	return rand.Reader
}

// loadReference fetches a by-reference continuation (unless it was read
// with the round record: fetched), checks that it belongs to this
// workflow, program and principal, and opens it (recordatrest.go).
func (e *Engine) loadReference(ctx context.Context, d *mrtrimpl.Descriptor, env *envelope, principalHash string, fetched *store.OpResult) error {
	if env.ref == "" {
		return nil
	}
	if e.cfg.Store == nil {
		return &stateError{reason: "no_store", err: errors.New("reference continuation without a store")}
	}
	var rec store.StateRecord
	var err error
	if fetched != nil {
		rec, err = fetched.State, fetched.Err
	} else {
		rec, err = e.cfg.Store.GetState(ctx, env.ref)
	}
	if errors.Is(err, store.ErrNotFound) {
		return &stateError{reason: "reference_gone", err: err}
	}
	if err != nil {
		return err
	}
	if rec.Workflow != env.workflowID() || rec.Subject != d.Subject() || rec.Principal != principalHash {
		return &stateError{reason: "reference_mismatch", err: errors.New("continuation record belongs to another workflow, program or principal")}
	}
	env.data, err = e.openStateRecord(rec, env.refSealed)
	return err
}

// stateError is a rejected continuation.
type stateError struct {
	reason string
	err    error
}

func (e *stateError) Error() string {
	return "requestState rejected (" + e.reason + "): " + e.err.Error()
}

// Unwrap returns the refusal's cause (a *seal.Error for a token that does
// not open).
func (e *stateError) Unwrap() error { return e.err }

// pinQuestions drops from sent every request whose question changed since
// it was sent (pinMatches: a form question's message; anything a gate or
// another request sends; a continuation value it shows): its answer does
// not count, and the state asks the question as it is now. An answer to a
// form question that still matches is validated against the form as this
// build asks it, as every answer is.
func (env *envelope) pinQuestions(info *mrtrimpl.StateInfo, now []mrtrimpl.Pending) (changed []string) {
	if env.digests == nil {
		return nil // a version 1 token: no digests to compare
	}
	d := 0
	for i, q := range info.Requests {
		if i >= 64 || env.sent&(1<<i) == 0 {
			continue
		}
		j := slices.IndexFunc(now, func(p mrtrimpl.Pending) bool { return p.Key == q.Key })
		if j < 0 || !pinMatches(info.Kind, now[j], env.digests[d]) {
			env.sent &^= 1 << i
			changed = append(changed, q.Key)
		}
		d++
	}
	return changed
}
