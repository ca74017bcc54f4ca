package testprog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// TransferImpl is the transfer handler the runtime's tests drive. Its
// fields are knobs: a test sets them before the rounds it runs.
type TransferImpl struct {
	// Frozen makes InspectAccount answer "frozen".
	Frozen atomic.Bool
	// Deny refuses every caller in Authorize.
	Deny atomic.Bool
	// RejectSend makes SendMoney refuse (a definite, recorded outcome).
	RejectSend atomic.Bool
	// FailSend makes SendMoney fail once with a dependency error.
	FailSend atomic.Bool
	// Block makes InspectAccount wait until its context is done.
	Block atomic.Bool
	// Overdrawn makes InspectAccount store a negative balance, which the
	// spec's continuation does not allow (a handler bug).
	Overdrawn atomic.Bool
	// Panic makes AccountStillOpen panic.
	Panic atomic.Bool
	// SendDelay makes SendMoney take that long (a slow bank).
	SendDelay time.Duration
	// AfterSend runs once a transfer was performed (a test cancels the
	// client's request there).
	AfterSend func()
	// DirectoryDown makes AccountExists fail as a dependency, and
	// NotBlankDown makes NotBlank fail (their backends are unreachable);
	// NotBlankRefuses makes NotBlank refuse every note, as if blank.
	DirectoryDown, NotBlankDown, NotBlankRefuses atomic.Bool
	// RejectAccounts makes AccountExists refuse the request (mrtr.Reject)
	// instead of answering about the value.
	RejectAccounts atomic.Bool

	mu         sync.Mutex
	Authorized int            // calls to Authorize
	Sent       int            // transfers performed
	Attempts   []mrtr.Attempt // what the engine said of each SendMoney call
}

var _ TransferHandler = (*TransferImpl)(nil)

func (h *TransferImpl) Authorize(ctx context.Context, f *TransferFlow) error {
	h.mu.Lock()
	h.Authorized++
	h.mu.Unlock()
	if h.Deny.Load() {
		return mrtr.Forbidden("%s may not move money", f.Call.Principal)
	}
	return nil
}

func (h *TransferImpl) InspectAccount(ctx context.Context, f *TransferFlow) (TransferInspectAccountOutcome, error) {
	if h.Block.Load() {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	f.Continuation.Balance = 500
	if h.Overdrawn.Load() {
		f.Continuation.Balance = -5
	}
	if h.Frozen.Load() {
		return TransferInspectAccountFrozen, nil
	}
	return TransferInspectAccountOpen, nil
}

func (h *TransferImpl) AccountStillOpen(ctx context.Context, f *TransferFlow) error {
	if h.Panic.Load() {
		panic("a bug in the handler")
	}
	if h.Frozen.Load() {
		return mrtr.Reject("account %s was frozen in the meantime", f.Args.Account)
	}
	return nil
}

func (h *TransferImpl) SendMoney(ctx context.Context, f *TransferFlow) error {
	h.mu.Lock()
	h.Attempts = append(h.Attempts, *f.Call.Attempt)
	h.mu.Unlock()
	if h.RejectSend.Load() {
		return mrtr.Reject("insufficient funds in %s", f.Args.Account)
	}
	if h.FailSend.CompareAndSwap(true, false) {
		return errors.New("bank API unavailable")
	}
	if h.SendDelay > 0 {
		time.Sleep(h.SendDelay)
	}
	h.mu.Lock()
	h.Sent++
	f.Continuation.TransferID = fmt.Sprintf("tr-%d", h.Sent)
	h.mu.Unlock()
	if h.AfterSend != nil {
		h.AfterSend()
	}
	return nil
}

// AccountExists asks the (pretend) account directory: acc-404 does not
// exist. Its context error is returned as is (a cancelled call).
func (h *TransferImpl) AccountExists(ctx context.Context, value string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	switch {
	case h.DirectoryDown.Load():
		return errors.New("account directory at 10.1.2.3:8443 unavailable")
	case h.RejectAccounts.Load():
		return mrtr.Reject("transfers are suspended")
	case value == "acc-404":
		return mrtr.Invalid("no account %s", value)
	}
	return nil
}

func (h *TransferImpl) NotBlank(ctx context.Context, value string) error {
	if h.NotBlankDown.Load() {
		return errors.New("text service unavailable: connection refused")
	}
	if strings.TrimSpace(value) == "" || h.NotBlankRefuses.Load() {
		return mrtr.Invalid("must not be blank")
	}
	return nil
}

// SentCount returns how many transfers were performed.
func (h *TransferImpl) SentCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.Sent
}

// AttemptsMade returns what the engine said of each SendMoney call.
func (h *TransferImpl) AttemptsMade() []mrtr.Attempt {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]mrtr.Attempt(nil), h.Attempts...)
}
