package problem

import "testing"

// A refused option is named, and a list with several items not offered
// gets one problem naming each value once.
func TestNotOfferedNamesTheValuesOnce(t *testing.T) {
	for _, c := range []struct {
		got  []string
		want string
	}{
		{nil, `services[]: must be one of the options offered (a, b)`},
		{[]string{"x"}, `services[]: "x" is not one of the options offered (a, b)`},
		{[]string{"x", "y", "x"}, `services[]: "x", "y" are not among the options offered (a, b)`},
		{[]string{"x\n" + string(make([]byte, 50))}, `services[]: "x\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"… is not one of the options offered (a, b)`},
	} {
		if got := NotOffered("services[]", "a, b", c.got...); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.got, got, c.want)
		}
	}
}
