package seal

import (
	"errors"
	"strconv"
	"time"
)

// PublicMessage is the only text a server may show a client when Open fails,
// whatever the reason. The runtime reports it as a JSON-RPC invalid-params
// error (-32602). The precise [Reason] is for logs and metrics only.
const PublicMessage = "invalid or expired requestState; start the operation again"

// ErrInvalid is matched (with errors.Is) by every error Open returns.
var ErrInvalid = errors.New("seal: invalid requestState")

// Reason says why Open rejected a token. It is meant for logs and metric
// labels, never for the client (see [PublicMessage]).
type Reason int

const (
	// TooLong: the encoded token is longer than Options.MaxTokenLen. Checked
	// before anything else, so oversized input costs nothing to reject.
	TooLong Reason = iota + 1
	// NotCanonical: the token is not exactly the unpadded base64url encoding
	// of some byte string (bad character, padding, standard alphabet, line
	// breaks, spaces, non-zero trailing bits).
	NotCanonical
	// Truncated: the decoded token is shorter than the fixed overhead.
	Truncated
	// UnknownVersion: the version byte is not one this package opens.
	UnknownVersion
	// UnknownKey: no key of the ring has the token's key id (the key was
	// retired, or the token comes from another deployment or an ephemeral
	// dev key of another process).
	UnknownKey
	// Forged: authentication failed. The token was altered, was sealed
	// under another key with the same id, or is presented with a different
	// Binding (another audience, subject, principal or argument set).
	Forged
	// Expired: the token is authentic but its expiry plus the allowed clock
	// skew has passed.
	Expired
)

var reasonNames = [...]string{
	TooLong:        "too_long",
	NotCanonical:   "not_canonical",
	Truncated:      "truncated",
	UnknownVersion: "unknown_version",
	UnknownKey:     "unknown_key",
	Forged:         "forged",
	Expired:        "expired",
}

// String returns a short snake_case name suitable as a metric label.
func (r Reason) String() string {
	if r > 0 && int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "reason(" + strconv.Itoa(int(r)) + ")"
}

// Error is the type of every error Open returns. errors.Is(err, ErrInvalid)
// holds for it. Its Error text is precise and meant for server logs; it
// never contains secrets, plaintext or Binding values.
type Error struct {
	Reason Reason
	// Expiry is when an Expired token expired (its expiry, without the
	// codec's skew); zero for the other reasons.
	Expiry time.Time
	detail string
	atRest bool // from OpenAtRest: data sealed at rest, not a token
}

func (e *Error) Error() string {
	s := "seal: invalid requestState: " + e.Reason.String()
	if e.atRest {
		s = "seal: data sealed at rest does not open: " + e.Reason.String()
	}
	if e.detail != "" {
		s += ": " + e.detail
	}
	return s
}

// Unwrap returns ErrInvalid, or ErrAtRest for an error of OpenAtRest.
func (e *Error) Unwrap() error {
	if e.atRest {
		return ErrAtRest
	}
	return ErrInvalid
}

func invalid(r Reason, detail string) error {
	return &Error{Reason: r, detail: detail}
}
