package machine

import "math/bits"

// Set is a set of state numbers, as bits. A nil Set is no set at all (a
// cache not yet filled, a state no walk reaches); NewSet makes an empty one.
type Set []uint64

// NewSet returns an empty set of states numbered below n.
func NewSet(n int) Set { return make(Set, (n+63)/64) }

// Has reports whether i is a member.
func (s Set) Has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }

// Add makes i a member.
func (s Set) Add(i int) { s[i/64] |= 1 << (i % 64) }

// Del makes i no member.
func (s Set) Del(i int) { s[i/64] &^= 1 << (i % 64) }

// Clone returns a copy of s, never nil.
func (s Set) Clone() Set { return append(make(Set, 0, len(s)), s...) }

// AndNot removes the members of o.
func (s Set) AndNot(o Set) {
	for i := range s {
		s[i] &^= o[i]
	}
}

// And keeps the members of s that are in o, and reports whether s changed.
func (s Set) And(o Set) bool {
	changed := false
	for i := range s {
		if w := s[i] & o[i]; w != s[i] {
			s[i], changed = w, true
		}
	}
	return changed
}

// Or adds the members of o.
func (s Set) Or(o Set) {
	for i := range s {
		s[i] |= o[i]
	}
}

// Each calls f for every member in increasing order, until f returns false.
func (s Set) Each(f func(int) bool) {
	for w, word := range s {
		for word != 0 {
			i := w*64 + bits.TrailingZeros64(word)
			if !f(i) {
				return
			}
			word &= word - 1
		}
	}
}
