package mrtrtest

import (
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// Arms change the fixtures' arguments and answers field by field; a nil
// value leaves one out.
func TestArmsMerge(t *testing.T) {
	a := Arms{
		Args:   map[string]any{"channel": "voucher", "express": nil},
		Fields: map[string]map[string]any{"refund": {"amount": 501.0, "note": nil}, "other": {"x": 1}},
	}
	args := a.withArgs(t, map[string]any{"orderId": "o-1", "channel": "card", "express": true})
	if want := map[string]any{"orderId": "o-1", "channel": "voucher"}; !reflect.DeepEqual(args, want) {
		t.Errorf("args %v, want %v", args, want)
	}
	answers := a.withAnswers(t, map[string]mcp.InputResponse{"refund": Accept(map[string]any{"amount": 1.0, "note": "n"}), "kept": Text("t")})
	want := map[string]mcp.InputResponse{
		"refund": Accept(map[string]any{"amount": 501.0}),
		"other":  Accept(map[string]any{"x": 1}),
		"kept":   Text("t"),
	}
	if !reflect.DeepEqual(answers, want) {
		t.Errorf("answers %v, want %v", answers, want)
	}
	if got := (Arms{}).withArgs(t, "as is"); got != "as is" {
		t.Errorf("empty arms changed the arguments: %v", got)
	}
}

// A fake's value is the one queued under its key, without using it up, or
// the fixture workflow's.
func TestFakeValue(t *testing.T) {
	f := &Fake{}
	if v := f.Value("tier", 1); v != 1 {
		t.Fatalf("unsteered value %d, want the default 1", v)
	}
	f.Steer(valueSteer(map[string]uint8{"tier": 3}))
	for range 2 {
		if v := f.Value("tier", 1); v != 3 {
			t.Fatalf("steered value %d, want 3 on every call", v)
		}
	}
}

// On makes a variant the fixture workflow and keeps the others, the
// fixtures' own workflow among them, for the scenarios it does not reach.
func TestFixturesOn(t *testing.T) {
	fx := Fixtures{
		Args:        map[string]any{"a": 1},
		Answers:     map[string]mcp.InputResponse{"q": Text("x")},
		WantOutcome: mrtr.OutcomeSuccess,
		Variants: []Variant{
			{Name: "big", Args: map[string]any{"a": 2}, WantOutcome: mrtr.OutcomeFailed},
			{Name: "gold", Answers: map[string]mcp.InputResponse{"q": Text("y")}, Values: map[string]uint8{"tier": 2}},
		},
	}
	on := fx.On(fx.Variants[1])
	if !reflect.DeepEqual(on.Args, fx.Args) || !reflect.DeepEqual(on.Answers["q"], Text("y")) || on.Values["tier"] != 2 {
		t.Fatalf("On(gold) = %+v", on)
	}
	var names []string
	for _, v := range on.Variants {
		names = append(names, v.Name)
	}
	if want := []string{"the fixtures' own workflow", "big"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("variants %v, want %v", names, want)
	}
	// The other workflows keep the fixtures' answers, not gold's.
	for _, o := range on.Variants {
		if !reflect.DeepEqual(o.Answers["q"], Text("x")) {
			t.Fatalf("variant %q answers %v, want the fixtures' own", o.Name, o.Answers["q"])
		}
	}
	if !reflect.DeepEqual(on.Variants[1].Args, map[string]any{"a": 2}) || !reflect.DeepEqual(on.Variants[0].Args, fx.Args) {
		t.Fatalf("variants' arguments %+v", on.Variants)
	}
	if !reflect.DeepEqual(fx.Answers["q"], Text("x")) {
		t.Fatal("On changed the fixtures it was called on")
	}
}
