package progress

import (
	"context"
	"errors"
	"testing"
)

func TestProgressReport(t *testing.T) {
	ctx := context.Background()
	var sent []float64
	p, end := New(func(_ context.Context, progress, total float64, _ string) error {
		sent = append(sent, progress)
		return nil
	})
	for _, v := range []float64{0, 50, 50, 100} {
		if err := p.Report(ctx, v, 100, ""); err != nil {
			t.Fatalf("Report(%v): %v", v, err)
		}
	}
	if err := p.Report(ctx, 10, 100, ""); !errors.Is(err, ErrBackwards) {
		t.Fatalf("a value below the last: %v", err)
	}
	end()
	if err := p.Report(ctx, 200, 100, ""); !errors.Is(err, ErrDone) {
		t.Fatalf("after the request: %v", err)
	}
	if len(sent) != 3 || sent[0] != 0 || sent[1] != 50 || sent[2] != 100 {
		t.Fatalf("sent %v, want [0 50 100]", sent)
	}
	// No token, no reporter: nothing is sent, nothing fails.
	quiet, _ := New(nil)
	if err := quiet.Report(ctx, 1, 0, ""); err != nil {
		t.Fatal(err)
	}
	var none *Reporter
	if err := none.Report(ctx, 1, 0, ""); err != nil || Of(ctx) != nil {
		t.Fatal("a nil reporter must send nothing")
	}
	if Of(With(ctx, p)) != p {
		t.Fatal("Of does not find the request's reporter")
	}
	// A failed send is returned and does not count as sent.
	failing, _ := New(func(context.Context, float64, float64, string) error { return errors.New("gone") })
	if err := failing.Report(ctx, 5, 0, ""); err == nil || err.Error() != "gone" {
		t.Fatalf("a failed send: %v", err)
	}
}
