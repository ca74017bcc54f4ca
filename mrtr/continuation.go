package mrtr

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"

	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// envelope is what a requestState seals: which workflow, where it stands,
// which of the state's requests were sent, and its data (inline, or a
// reference to the store).
//
//	version(1) | schema hash(8) | workflow id(16) | state(uvarint) | round(uvarint)
//	| sent(uvarint) | digest(8) per sent request (v2) | mode(1) | inline data or reference
//
// sent is a bit mask over the state's requests (StateInfo.Requests, bit i
// for request i), and each sent request has a digest of the question as it
// was sent (questionDigest): an answer counts only for a request this server
// sent, and only while the question it would send now is that same
// question. An optional request left out (the client could not answer it)
// takes no answer. Version 1 tokens (earlier builds) carry neither: every
// request of their state counts as sent, as those builds assumed.
type envelope struct {
	workflow [16]byte
	state    uint16
	round    int
	sent     uint64
	digests  []uint64 // one per bit set in sent, in request order; nil in v1
	data     []byte   // inline continuation (mode sealed)
	ref      string   // store reference (mode reference)
}

// questionDigest identifies a question: its key, kind and everything the
// client was shown or asked to fill (message, schema, prompt...).
func questionDigest(p mrtrimpl.Pending) uint64 {
	h := sha256.New()
	h.Write([]byte(p.Key))
	h.Write([]byte{0, byte(p.Kind), 0})
	if b, err := json.Marshal(p.Params); err == nil {
		h.Write(b)
	}
	return binary.BigEndian.Uint64(h.Sum(nil))
}

const (
	envelopeV1      = 1
	envelopeVersion = 2
	modeInline      = 0
	modeReference   = 1
)

// allSent is the mask of every request of a state with n requests.
func allSent(n int) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<n - 1
}

func (env *envelope) workflowID() string { return hex.EncodeToString(env.workflow[:]) }

func newWorkflowID() ([16]byte, error) {
	var id [16]byte
	_, err := rand.Read(id[:])
	return id, err
}

func (env *envelope) marshal(schemaHash uint64) []byte {
	b := make([]byte, 0, 32+len(env.data))
	b = append(b, envelopeVersion)
	b = binary.BigEndian.AppendUint64(b, schemaHash)
	b = append(b, env.workflow[:]...)
	b = binenc.AppendUvarint(b, uint64(env.state))
	b = binenc.AppendUvarint(b, uint64(env.round))
	b = binenc.AppendUvarint(b, env.sent)
	for _, d := range env.digests {
		b = binary.BigEndian.AppendUint64(b, d)
	}
	if env.ref != "" {
		b = append(b, modeReference)
		return binenc.AppendString(b, env.ref)
	}
	b = append(b, modeInline)
	return append(b, env.data...)
}

// errSchema reports a token sealed for another shape of the workflow (the
// spec changed since it was issued).
var errSchema = errors.New("continuation was issued for another version of the workflow")

func unmarshalEnvelope(b []byte, d *mrtrimpl.Descriptor) (*envelope, error) {
	if len(b) < 1+8+16+3 || (b[0] != envelopeVersion && b[0] != envelopeV1) {
		return nil, errors.New("malformed envelope")
	}
	if binary.BigEndian.Uint64(b[1:9]) != d.SchemaHash {
		return nil, errSchema
	}
	env := &envelope{}
	copy(env.workflow[:], b[9:25])
	r := binenc.NewReader(b[25:])
	state, round := r.Uvarint(), r.Uvarint()
	if r.Err() != nil || state == 0 || state > uint64(len(d.States)) || round < 2 || round > 1<<20 {
		return nil, errors.New("malformed envelope header")
	}
	env.state, env.round = uint16(state), int(round)
	requests := len(d.States[state-1].Requests)
	if b[0] == envelopeV1 {
		env.sent = allSent(requests)
	} else if env.sent = r.Uvarint(); r.Err() != nil || env.sent&^allSent(requests) != 0 {
		return nil, errors.New("malformed envelope: sent requests")
	}
	rest := r.Rest()
	if b[0] != envelopeV1 {
		n := bits.OnesCount64(env.sent)
		if len(rest) < 8*n {
			return nil, errors.New("malformed envelope: question digests")
		}
		env.digests = make([]uint64, n)
		for i := range env.digests {
			env.digests[i] = binary.BigEndian.Uint64(rest[8*i:])
		}
		rest = rest[8*n:]
	}
	if len(rest) == 0 {
		return nil, errors.New("malformed envelope mode")
	}
	switch rest[0] {
	case modeInline:
		if d.Storage != vocab.Sealed {
			return nil, errors.New("inline continuation for a reference-mode program")
		}
		env.data = rest[1:]
	case modeReference:
		if d.Storage != vocab.Reference {
			return nil, errors.New("reference continuation for a sealed-mode program")
		}
		rr := binenc.NewReader(rest[1:])
		env.ref = rr.String()
		if err := rr.Done(); err != nil || env.ref == "" {
			return nil, errors.New("malformed continuation reference")
		}
	default:
		return nil, errors.New("unknown continuation mode")
	}
	return env, nil
}

// seal stores the continuation (inline or by reference) and seals the
// envelope into a requestState. A continuation kept by reference is stored
// now, or handed to keep (non-nil), which stores it with the round's reply
// before the token is sent.
func (e *Engine) sealState(ctx context.Context, d *mrtrimpl.Descriptor, b seal.Binding, env *envelope, principalHash string, keep func(store.StateRecord)) (string, error) {
	if d.Storage == vocab.Reference {
		if e.cfg.Store == nil {
			return "", errors.New("mrtr: program " + d.Name + " keeps its continuation by reference and needs Config.Store")
		}
		ref, err := seal.NewReference()
		if err != nil {
			return "", err
		}
		rec := store.StateRecord{Ref: ref, Workflow: env.workflowID(), Subject: d.Subject(), Principal: principalHash, Data: env.data}
		if keep != nil {
			keep(rec)
		} else if err := e.cfg.Store.PutState(ctx, rec, d.TTL+e.cfg.Codec.Skew()); err != nil {
			return "", fmt.Errorf("storing continuation: %w", err)
		}
		env = &envelope{workflow: env.workflow, state: env.state, round: env.round, sent: env.sent, digests: env.digests, ref: ref}
	}
	return e.cfg.Codec.Seal(b, d.TTL, env.marshal(d.SchemaHash))
}

// openState opens a requestState. Every failure is a *stateError carrying
// the precise reason for logs; clients see one opaque message. An expired
// but authentic token returns its envelope with the error.
func (e *Engine) openState(ctx context.Context, d *mrtrimpl.Descriptor, b seal.Binding, token, principalHash string) (*envelope, error) {
	plain, err := e.cfg.Codec.Open(b, token)
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
			if env, uerr := unmarshalEnvelope(plain, d); uerr == nil {
				return env, serr
			}
		}
		return nil, serr
	}
	env, err := unmarshalEnvelope(plain, d)
	if err != nil {
		reason := "malformed"
		if errors.Is(err, errSchema) {
			reason = "schema_changed"
		}
		return nil, &stateError{reason: reason, err: err}
	}
	return env, nil
}

// loadReference fetches a by-reference continuation (unless it was read
// with the round record: fetched) and checks that it belongs to this
// workflow, program and principal.
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
	env.data = rec.Data
	return nil
}

// stateError is a rejected continuation.
type stateError struct {
	reason string
	err    error
}

func (e *stateError) Error() string {
	return "requestState rejected (" + e.reason + "): " + e.err.Error()
}

// pinQuestions drops from sent every request whose question changed since
// it was sent (a deploy changed its message, schema or what a gate
// confirms; a continuation value it shows was changed): its answer does
// not count, and the state asks the question as it is now.
func (env *envelope) pinQuestions(info *mrtrimpl.StateInfo, now []mrtrimpl.Pending) (changed []string) {
	if env.digests == nil {
		return nil // a version 1 token: no digests to compare
	}
	current := map[string]uint64{}
	for _, q := range now {
		current[q.Key] = questionDigest(q)
	}
	d := 0
	for i, q := range info.Requests {
		if i >= 64 || env.sent&(1<<i) == 0 {
			continue
		}
		if got, ok := current[q.Key]; !ok || got != env.digests[d] {
			env.sent &^= 1 << i
			changed = append(changed, q.Key)
		}
		d++
	}
	return changed
}
