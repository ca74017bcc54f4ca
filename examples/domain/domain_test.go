package domain

import "testing"

func TestAllowed(t *testing.T) {
	for _, c := range []struct {
		who       []string
		principal string
		want      bool
	}{
		{nil, "", true},
		{nil, "mallory", true},
		{[]string{"alice"}, "alice", true},
		{[]string{"alice"}, "bob", false},
		{[]string{"alice"}, "", false},
	} {
		if got := Allowed(c.principal, c.who); got != c.want {
			t.Errorf("Allowed(%q, %v) = %v", c.principal, c.who, got)
		}
	}
}
