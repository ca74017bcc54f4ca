package store

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// DefaultAbandonAfter is the default for [Options.AbandonAfter].
const DefaultAbandonAfter = 24 * time.Hour

// Options are shared by every Store implementation. Implementations embed
// them in their own option types (adding a key or table prefix, timeouts…).
// The zero value is ready to use.
type Options struct {
	// Now is the clock the store evaluates leases, retention and TTLs
	// against. Default time.Now. Tests inject a controllable clock; every
	// implementation honours it (the shared stores pass "now" to the server
	// rather than using the server's clock), so keep the clocks of the
	// server instances sharing a store NTP-synchronised and leases much
	// longer than the expected skew.
	Now func() time.Time
	// AbandonAfter is how long a pending claim is kept after its lease
	// lapsed. During that time the same operation (same fingerprint) may take
	// it over and a different operation reusing the key still gets Mismatch;
	// afterwards the claim counts as abandoned: Claim treats it as absent and
	// Sweep removes it. Default DefaultAbandonAfter (24 h).
	AbandonAfter time.Duration
}

// WithDefaults returns o with zero fields set to their defaults.
func (o Options) WithDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.AbandonAfter <= 0 {
		o.AbandonAfter = DefaultAbandonAfter
	}
	return o
}

// ErrInvalidArgument reports a request the store refuses before touching
// any record (empty key, owner or fingerprint, non-positive lease, TTL or
// retention…). It indicates a bug in the caller.
var ErrInvalidArgument = errors.New("store: invalid argument")

// ErrClosed reports a call on a closed store.
var ErrClosed = errors.New("store: closed")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...)
}

// MaxIDLen is the longest key, owner, ref or workflow id (in bytes) a
// store accepts.
const MaxIDLen = 1024

// Identifiers (keys, owners, refs, workflow ids) and the text fields of a
// StateRecord are text: valid UTF-8 without NUL bytes, so that every
// implementation can store them as-is (PostgreSQL text rejects both).
func checkText(what, v string) error {
	if !utf8.ValidString(v) {
		return invalid("%s is not valid UTF-8", what)
	}
	if strings.IndexByte(v, 0) >= 0 {
		return invalid("%s contains a NUL byte", what)
	}
	return nil
}

func checkID(what, v string) error {
	if v == "" {
		return invalid("empty %s", what)
	}
	if len(v) > MaxIDLen {
		return invalid("%s longer than %d bytes", what, MaxIDLen)
	}
	return checkText(what, v)
}

// ValidateClaim checks a ClaimRequest; implementations call it first.
// An empty fingerprint is refused: it would make every reuse of a key a
// replay instead of a Mismatch.
func ValidateClaim(req ClaimRequest) error {
	if err := checkID("claim key", req.Key); err != nil {
		return err
	}
	if len(req.Fingerprint) == 0 {
		return invalid("claim %q: empty fingerprint", req.Key)
	}
	if err := checkID("claim owner", req.Owner); err != nil {
		return err
	}
	if req.Lease <= 0 {
		return invalid("claim %q: lease %v must be positive", req.Key, req.Lease)
	}
	return nil
}

// ValidateComplete checks the arguments of Store.Complete.
func ValidateComplete(key, owner string, retain time.Duration) error {
	if err := ValidateRelease(key, owner); err != nil {
		return err
	}
	if retain <= 0 {
		return invalid("complete %q: retention %v must be positive", key, retain)
	}
	return nil
}

// ValidateRelease checks the arguments of Store.Release.
func ValidateRelease(key, owner string) error {
	if err := checkID("key", key); err != nil {
		return err
	}
	return checkID("owner", owner)
}

// ValidateState checks the arguments of Store.PutState. Error messages
// never include the ref (a bearer secret).
func ValidateState(rec StateRecord, ttl time.Duration) error {
	if err := checkID("state ref", rec.Ref); err != nil {
		return err
	}
	if err := checkID("state workflow", rec.Workflow); err != nil {
		return err
	}
	if err := checkText("state subject", rec.Subject); err != nil {
		return err
	}
	if err := checkText("state principal", rec.Principal); err != nil {
		return err
	}
	if ttl <= 0 {
		return invalid("put state: ttl %v must be positive", ttl)
	}
	return nil
}

// ValidateWorkflow checks the argument of Store.DeleteWorkflowStates.
func ValidateWorkflow(workflow string) error {
	return checkID("workflow", workflow)
}

// ValidRef reports whether ref could name a stored record; GetState
// answers ErrNotFound for refs that could not (a tampered token) without
// asking the backend.
func ValidRef(ref string) bool {
	return checkID("ref", ref) == nil
}
