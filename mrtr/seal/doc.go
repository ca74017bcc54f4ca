// Package seal is the continuation codec for MCP requestState (Multi
// Round-Trip Requests, SEP-2322): it seals a tool's continuation into an
// opaque token that travels through the client between rounds, and opens it
// again on the next round, possibly on another server instance.
//
// # Format
//
// A token is the unpadded base64url encoding (RFC 4648 §5, no '=') of
//
//	version (1 byte, 0x01)
//	kid     (4 bytes, big-endian uint32: the id of the sealing key)
//	exp     (8 bytes, big-endian unix seconds)
//	nonce   (12 random bytes)
//	ciphertext (as long as the plaintext)
//	tag     (16 bytes)
//
// so 41 bytes of fixed overhead: a 51-byte plaintext gives a 123-character
// token. The AEAD is AES-256-GCM keyed with
// HKDF-SHA256(secret, salt = nil, info = "mrtrgen/requestState/v1/aes-256-gcm").
// The associated data, never stored in the token, is
//
//	"mrtrgen/requestState/v1" | version|kid|exp |
//	len32(Audience) Audience | len32(Subject) Subject |
//	len32(Principal) Principal | len32(32) ArgsDigest
//
// with len32 a 4-byte big-endian length. The opener rebuilds it from the
// request it is serving (see [Binding]), so the binding is an implicit
// assertion: a token carries no audience, tool or user, yet opens only for
// the ones it was sealed for. The header is authenticated, not encrypted.
//
// Open checks, in order: length cap (before any decoding), canonical
// base64url (strict decoding and re-encoding must give back the input
// exactly, since Go's decoder skips CR and LF), minimum length, version,
// key id, AEAD authentication, then expiry against the injected clock
// (accepted while now <= exp + skew). Expiry comes after authentication so
// that an unauthenticated exp is never acted upon.
//
// # Threat model
//
// The client (and anything between client and server) holds the token and
// is untrusted. It can:
//   - see the token's length, hence the plaintext length, and read the
//     version, key id and expiry in the clear header;
//   - drop the token, or present it again any number of times until it
//     expires: a token is a capability, not a one-time ticket. Within one
//     binding an older token of the same workflow can be replayed in place
//     of a newer one (rewind). Continuations whose effects must happen at
//     most once need the idempotency store or server-side state with a
//     single-use reference (see [NewReference]), not this codec alone;
//   - present a token to another tool, server, user or argument set, or
//     with an altered header: every one of these fails authentication.
//
// It cannot read the plaintext, change a single bit of the token undetected,
// extend the expiry, forge a token without a ring secret, or make a token
// sealed for one (Audience, Subject, Principal, ArgsDigest) open for
// another. Tokens from a deployment with other keys, and tokens whose key
// was retired, are rejected. Random 96-bit nonces keep AES-GCM safe for
// about 2^32 tokens per key; rotate well before that.
//
// Anyone who holds a ring secret can mint tokens: secrets belong in a
// secret store, are configured explicitly (MRTR_KEYS or MRTR_KEYS_FILE, see
// [RingFromEnv]) and are never generated silently, except by
// [EphemeralRing] for development, which says so loudly.
//
// # One opaque error
//
// Every failure of [Codec.Open] is an [*Error] matching [ErrInvalid], and
// the server shows the client only [PublicMessage], whatever the [Reason].
// A client can do nothing different for a forged, expired, retired-key or
// wrong-binding token (the remedy is always to start the operation again),
// while distinguishing them would hand an attacker an oracle: which key ids
// are live, how far a clock is skewed, whether a guessed principal or
// argument set matches. The precise reason is for server logs and metrics
// ([Reason.String] gives a metric label).
//
// # Key rotation
//
// A [Ring] lists keys; the first seals, all of them open. To rotate from
// key 1 to key 2 across a fleet without breaking tokens in flight:
//
//  1. Add the new key everywhere as open-only, after the current one:
//     MRTR_KEYS="1:OLD,2:NEW". Wait until every instance runs it.
//  2. Promote the new key: MRTR_KEYS="2:NEW,1:OLD". New tokens use key 2;
//     tokens sealed with key 1 still open everywhere.
//  3. After the longest token TTL plus the skew has passed since the last
//     instance was promoted, retire the old key: MRTR_KEYS="2:NEW". Tokens
//     still carrying key 1 are now rejected (UnknownKey).
//
// Data sealed at rest ([Codec.SealAtRest]: the continuation records a
// server keeps while a workflow waits) rotates with the same steps, provided
// it lives no longer than the tokens: it opens while its key is in the
// ring, and new data is sealed with the first key.
//
// Skipping step 1 makes tokens sealed by already-promoted instances fail on
// instances that do not know the new key yet. Never reuse a key id for a
// different secret: such tokens fail as Forged instead of UnknownKey.
package seal
