package mrtr

import (
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Continuation records at rest. A program kept by reference (every program
// with a sensitive field, unless its spec says otherwise) keeps its
// continuation, answers included, in a continuation record of the store
// while its workflow waits. The record's data is sealed under the engine's
// key ring (Config.Codec, seal.Codec.SealAtRest), so that whoever reads the
// store, its backups, replicas or query logs reads no value of it, and
// bound to the record's identity (the audience, its reference, which is
// its key in the store, its workflow, program and principal hash), so
// that bytes moved to another record do not open there.
//
// The whole record is sealed, not only its sensitive fields: the runtime
// sees a continuation as the generated codec's bytes, not as fields, and a
// record of a program kept by reference is what its spec keeps off the
// wire. It costs seal.AtRestOverhead (33) bytes per record and one
// AES-GCM pass per write and per read.
//
// Which form a record has is said by what points to it: a requestState's
// envelope (mode modeSealedReference, authenticated with the token) or an
// effect record (status effectOKRefSealed). Records of earlier builds,
// pointed to by modeReference or effectOKRef/effectOKRefV3, are plaintext
// and open as they are while they live (one continuation TTL). A record
// sealed under a key opens while that key is in the ring: records live as
// long as the tokens that point to them, so the token rotation procedure
// (package seal) rotates them too.

// newStateRecord is the continuation record ref of a workflow of d, its
// data sealed at rest.
func (e *Engine) newStateRecord(d *mrtrimpl.Descriptor, ref, workflow, principalHash string, data []byte) (store.StateRecord, error) {
	rec := store.StateRecord{Ref: ref, Workflow: workflow, Subject: d.Subject(), Principal: principalHash}
	sealed, err := e.cfg.Codec.SealAtRest(data, e.recordIdentity(rec)...)
	if err != nil {
		return store.StateRecord{}, err
	}
	rec.Data = sealed
	return rec, nil
}

// openStateRecord returns the continuation a record read from the store
// holds: sealed says whether it was written sealed (newStateRecord) or in
// plaintext by an earlier build.
func (e *Engine) openStateRecord(rec store.StateRecord, sealed bool) ([]byte, error) {
	if !sealed {
		return rec.Data, nil
	}
	data, err := e.cfg.Codec.OpenAtRest(rec.Data, e.recordIdentity(rec)...)
	if err != nil {
		reason := "record_invalid"
		var se *seal.Error
		if errors.As(err, &se) {
			reason = "record_" + se.Reason.String()
		}
		return nil, &stateError{reason: reason, err: err}
	}
	return data, nil
}

// recordIdentity is what a continuation record's data is bound to.
func (e *Engine) recordIdentity(rec store.StateRecord) []string {
	return []string{e.cfg.Audience, rec.Ref, rec.Workflow, rec.Subject, rec.Principal}
}
