package mrtrtest

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
)

// transferArgs are typed, as the generated drive<Tool> takes them.
var transferArgs = testprog.TransferArgs{Account: "acc-000", Amount: 1}

func memoAnswers(note string) []Answer {
	return []Answer{
		Respond("memo", Form(map[string]any{"note": note, "urgent": true})),
		Respond("summary", Text("A sampled answer.")),
	}
}

// A whole transfer, round by round: the questions, the gate, the end, and
// a replay of the final round that runs nothing again.
func TestDriverPlaysAWorkflow(t *testing.T) {
	impl := &testprog.TransferImpl{}
	h := New(t, testprog.NewTransferProgram(impl))
	d := Drive(t, h, transferArgs).
		WantAsks("memo", "summary").
		WantQuestion("memo", "Write a memo for the transfer of 1 from acc-000 (balance 500).").
		Answer(memoAnswers("rent")...).
		WantAsks("confirm").
		WantQuestion("confirm", `Send 1 from acc-000 with memo "rent"?`).
		Confirm().
		WantEnd(mrtr.OutcomeSuccess, "Sent 1 from acc-000 as tr-1.").
		Replay().
		WantEnd(mrtr.OutcomeSuccess, "Sent 1 from acc-000 as tr-1.")
	if d.Round() != 3 || impl.SentCount() != 1 {
		t.Fatalf("round %d, %d transfers: want round 3 and one transfer", d.Round(), impl.SentCount())
	}
}

// Leaving a workflow: the gate refused, the form declined or cancelled.
func TestDriverLeaves(t *testing.T) {
	impl := &testprog.TransferImpl{}
	h := New(t, testprog.NewTransferProgram(impl))
	Drive(t, h, transferArgs).Answer(memoAnswers("rent")...).Refuse().WantEnd(mrtr.OutcomeCancelled, "Nothing was sent from acc-000.")
	Drive(t, h, transferArgs).Decline("memo").WantEnd(mrtr.OutcomeCancelled, `declined "memo"`)
	Drive(t, h, transferArgs).Cancel("memo").WantEnd(mrtr.OutcomeCancelled, `cancelled "memo"`)
	if impl.SentCount() != 0 {
		t.Fatalf("%d transfers after the user left", impl.SentCount())
	}
}

// Other callers on the same workflow: one Authorize refuses, one the
// requestState binding refuses.
func TestDriverAs(t *testing.T) {
	h := New(t, testprog.NewTransferProgram(pickyTransfer{&testprog.TransferImpl{}}))
	Drive(t, h, transferArgs).As("mallory").Answer(memoAnswers("rent")...).WantEnd(mrtr.OutcomeUnauthorized, "mallory may not move money")
	Drive(t, h, testprog.TransferArgs{Account: "acc-001", Amount: 1}).As("bob").Answer(memoAnswers("rent")...).WantRestart()
}

// Each assertion that does not hold fails with the tool, the round, what
// was wanted and what the handler did.
func TestDriverMessages(t *testing.T) {
	h := New(t, testprog.NewTransferProgram(&testprog.TransferImpl{}))
	memo := `"memo" ("Write a memo for the transfer of 1 from acc-000 (balance 500).")`
	summary := `"summary" ("Summarise the transfer of 1 from acc-000.")`
	for _, c := range []struct {
		name string
		play func(t testing.TB)
		want string
	}{
		{"end while asking", func(t testing.TB) { Drive(t, h, transferArgs).WantEnd(mrtr.OutcomeSuccess, "Sent") },
			`transfer, round 1: want the workflow to end success with a text containing "Sent"; it asked for ` + memo + ` and ` + summary},
		{"other questions", func(t testing.TB) { Drive(t, h, transferArgs).WantAsks("memo") },
			`transfer, round 1: want it to ask for "memo"; it asked for ` + memo + ` and ` + summary},
		{"other text", func(t testing.TB) { Drive(t, h, transferArgs).WantQuestion("memo", "balance 900") },
			`transfer, round 1: want it to ask for "memo" with a message containing "balance 900"; it asked for ` + memo + ` and ` + summary},
		{"invalid answer", func(t testing.TB) { Drive(t, h, transferArgs).Answer(memoAnswers(" ")...).WantAsks("confirm") },
			`transfer, round 2: want it to ask for "confirm"; it asked for "memo" ("Write a memo for the transfer of 1 from acc-000 (balance 500).\n\nPlease correct: note: must not be blank.")`},
		{"answer after the end", func(t testing.TB) {
			Drive(t, h, transferArgs).Answer(memoAnswers("rent")...).Confirm().Answer(memoAnswers("rent")...)
		}, `transfer, round 3: want questions, to answer them with 2 answers; it ended success at state done ("Sent 1 from acc-000 as tr-1.")`},
		{"no gate", func(t testing.TB) { Drive(t, h, transferArgs).Confirm() },
			`transfer, round 1: want a confirmation gate, to confirm it; it asked for ` + memo + ` and ` + summary},
		{"restart", func(t testing.TB) { Drive(t, h, transferArgs).Answer(memoAnswers("rent")...).WantRestart() },
			`transfer, round 2: want the restart error (JSON-RPC -32602, ` + seal.PublicMessage + `); it asked for "confirm" ("Send 1 from acc-000 with memo \"rent\"?")`},
		{"replay a first round", func(t testing.TB) { Drive(t, h, transferArgs).Replay() },
			`transfer, round 1: a first round cannot be replayed (a retried first call starts a new workflow)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := newRecorder(t)
			rec.run(rec, func(t tb) { c.play(t) })
			got := rec.failures()
			if len(got) != 1 || got[0] != c.want {
				t.Fatalf("failures %q,\nwant only %q", got, c.want)
			}
		})
	}
}
