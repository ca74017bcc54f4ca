package mrtrtest_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

func TestFakeQueuesOutcomesPerCheck(t *testing.T) {
	f := &mrtrtest.Fake{Outcomes: map[string][]uint8{"a": {2, 1}}}
	ctx := context.Background()
	for i, want := range []uint8{2, 1, 3} {
		got, err := f.Check(ctx, "a", 3)
		if err != nil || got != want {
			t.Fatalf("call %d of check a: %d, %v; want %d", i+1, got, err, want)
		}
	}
	if got, _ := f.Check(ctx, "b", 1); got != 1 {
		t.Fatalf("check b without a queue: %d, want the default 1", got)
	}
}

func TestFakeBreaksChecksAndEffectsUntilRestored(t *testing.T) {
	f := &mrtrtest.Fake{}
	ctx := context.Background()
	restore := f.Break()
	if err := f.Step(ctx); !errors.Is(err, mrtrtest.ErrFakeDown) {
		t.Fatalf("Step while broken: %v", err)
	}
	if _, err := f.Check(ctx, "a", 1); !errors.Is(err, mrtrtest.ErrFakeDown) {
		t.Fatalf("Check while broken: %v", err)
	}
	if err := f.Effect(ctx); !errors.Is(err, mrtrtest.ErrFakeDown) || f.Effects() != 0 {
		t.Fatalf("Effect while broken: %v, %d effects", err, f.Effects())
	}
	restore()
	if err := f.Effect(ctx); err != nil || f.Effects() != 1 {
		t.Fatalf("Effect after restore: %v, %d effects", err, f.Effects())
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := f.Effect(cancelled); !errors.Is(err, context.Canceled) || f.Effects() != 1 {
		t.Fatalf("Effect with a cancelled context: %v, %d effects", err, f.Effects())
	}
}

func TestFakeCountsConcurrentEffects(t *testing.T) {
	f := &mrtrtest.Fake{}
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() { _ = f.Effect(context.Background()) })
	}
	wg.Wait()
	if f.Effects() != 50 {
		t.Fatalf("%d effects, want 50", f.Effects())
	}
}

func TestFakeValidators(t *testing.T) {
	var f mrtrtest.Fake
	ctx := context.Background()
	if err := f.Validate(ctx, "noSecrets", "x"); err != nil {
		t.Fatalf("an untold validator refused: %v", err)
	}
	restore := f.RefuseValidator("noSecrets", []any{"a", "b"})
	if !mrtr.IsInvalid(f.Validate(ctx, "noSecrets", "b")) {
		t.Error("an item of the refused list was not refused with mrtr.Invalid")
	}
	if f.Validate(ctx, "noSecrets", "c") != nil || f.Validate(ctx, "other", "a") != nil {
		t.Error("a refusal reached another value or another validator")
	}
	restore()
	if f.Validate(ctx, "noSecrets", "a") != nil {
		t.Error("restore left the refusal in place")
	}
	defer f.FailValidator("plausibleAge", int64(13))()
	if err := f.Validate(ctx, "plausibleAge", int64(13)); !errors.Is(err, mrtrtest.ErrFakeValidatorDown) {
		t.Errorf("a failing validator returned %v", err)
	}
	if f.Validate(ctx, "plausibleAge", 13.0) != nil {
		t.Error("13.0 (a number) matched int64(13) (an integer)")
	}
}
