package approval

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Timers. A record's timers (its outbox of notices, reminders, the
// escalation, the deadline) are one due time on its row; every instance
// runs Run, which looks for due rows every Tick and fires what is due
// with a compare-and-swap on the record, so that an instance that dies
// loses nothing and two instances never fire the same timer twice. A
// reminder or an escalation fires at most once; a notice is delivered at
// least once (leased while it is delivered). The deadline needs no timer
// to hold: every decision and every consumption checks it on its own
// clock; the timer only records the expiry and tells people.

const (
	// storeBound bounds each store call of the timers.
	storeBound = 5 * time.Second
	dueBatch   = 100
	maxOutbox  = 16 // notices delivered per record and tick
)

// Run fires due timers every Tick until ctx ends. Store errors are
// logged and retried on the next tick.
func (s *Service) Run(ctx context.Context) error {
	t := time.NewTicker(s.cfg.Tick)
	defer t.Stop()
	for {
		if _, err := s.Tick(ctx); err != nil && ctx.Err() == nil {
			s.log.LogAttrs(ctx, slog.LevelWarn, "approval timers", slog.String("error", err.Error()))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Tick fires the timers due now once and reports how many records it
// worked on.
func (s *Service) Tick(ctx context.Context) (int, error) {
	// A store that does not answer holds no connection past the bound: the
	// next tick looks again.
	qctx, cancel := context.WithTimeout(ctx, storeBound)
	ids, err := s.cfg.Store.DueApprovals(qctx, s.cfg.Now(), dueBatch)
	cancel()
	if err != nil {
		return 0, err
	}
	var errs []error
	for _, id := range ids {
		// A record's notices go out one after the other, in the order they
		// were queued, as far as they are due (a retried one waits).
		for range maxOutbox {
			delivered, err := s.fire(ctx, id)
			if err != nil {
				errs = append(errs, err)
			}
			if !delivered || err != nil {
				break
			}
		}
	}
	return len(ids), errors.Join(errs...)
}

// fire advances one record's timers, then delivers the head of its
// outbox if one is due, and says whether it did.
func (s *Service) fire(ctx context.Context, id string) (bool, error) {
	var deliver *outboxEntry
	uctx, cancel := context.WithTimeout(ctx, storeBound)
	defer cancel()
	rec, err := s.update(uctx, id, func(rec *Record, now time.Time) error {
		deliver = nil
		changed := s.expireIfDue(rec, now)
		if rec.State == Pending && rec.Reminders < len(rec.Policy.Remind) && !now.Before(rec.Created.Add(rec.Policy.Remind[rec.Reminders])) {
			rec.Reminders++
			rec.Outbox = append(rec.Outbox, outboxEntry{Kind: NoticeReminder, To: rec.Undecided()})
			changed = true
		}
		if rec.State == Pending && rec.Policy.Escalate > 0 && !rec.Escalated && !now.Before(rec.Created.Add(rec.Policy.Escalate)) {
			rec.Escalated = true
			rec.Events = append(rec.Events, Event{At: now, Kind: EventEscalated, Channel: ChannelTimer})
			rec.Outbox = append(rec.Outbox, outboxEntry{Kind: NoticeEscalation, To: rec.Escalation})
			changed = true
		}
		if len(rec.Outbox) > 0 && !rec.Outbox[0].Leased.After(now) {
			rec.Outbox[0].Leased = now.Add(s.cfg.Lease)
			rec.Outbox[0].Tries++
			e := rec.Outbox[0]
			deliver = &e
			changed = true
		}
		if !changed {
			return errUnchanged
		}
		return nil
	})
	if errors.Is(err, errUnchanged) || deliver == nil {
		if errors.Is(err, errUnchanged) {
			err = nil
		}
		return false, err
	}
	if err != nil {
		return false, err
	}
	return true, s.deliver(ctx, rec, *deliver)
}

func (s *Service) deliver(ctx context.Context, rec *Record, e outboxEntry) error {
	ctx, span := s.tracer.Start(ctx, "approval.notify", trace.WithAttributes(attribute.String("mrtr.approval.id", rec.ID), attribute.String("mrtr.approval.notice", string(e.Kind))))
	defer span.End()
	// A delivery is bounded by its lease: past it another instance
	// delivers the notice again anyway, and a notifier that hangs must not
	// stop this instance's timers.
	dctx, cancel := context.WithTimeout(ctx, s.cfg.Lease)
	defer cancel()
	var nerr error
	if e.Kind == noticeWake {
		nerr = s.resume(dctx, e.To)
	} else {
		link, err := s.Link(rec)
		if err != nil {
			return s.fail(span, err)
		}
		nerr = s.cfg.Notifier.Notify(dctx, Notice{Kind: e.Kind, To: e.To, Record: rec.clone(), Link: link})
	}
	tries := maxNoticeTries
	if e.Kind == noticeWake {
		tries = maxWakeTries // a task still running its step is woken a little later
	}
	_, err := s.update(ctx, rec.ID, func(r *Record, now time.Time) error {
		if len(r.Outbox) == 0 || r.Outbox[0].Kind != e.Kind || r.Outbox[0].Tries != e.Tries {
			return errUnchanged // delivered, or leased again, by another instance
		}
		if nerr != nil && e.Tries < tries {
			r.Outbox[0].Leased = now.Add(time.Duration(e.Tries) * s.cfg.Tick) // retry after a pause
			r.Events = append(r.Events, Event{At: now, Kind: EventNotifyErr, Detail: string(e.Kind)})
			return nil
		}
		kind := EventNotified
		if nerr != nil {
			kind = EventNotifyErr // gave up
		}
		r.Outbox = r.Outbox[1:]
		r.Events = append(r.Events, Event{At: now, Kind: kind, Detail: string(e.Kind)})
		return nil
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	if nerr != nil {
		s.log.LogAttrs(ctx, slog.LevelWarn, "approval notice failed", slog.String("approval", rec.ID), slog.String("kind", string(e.Kind)), slog.Int("try", e.Tries), slog.String("error", nerr.Error()))
		return s.fail(span, nerr)
	}
	return err
}

// resume wakes the tasks waiting for a record that left Pending.
func (s *Service) resume(ctx context.Context, waiters []string) error {
	if s.cfg.Resume == nil {
		return nil
	}
	var errs []error
	for _, w := range waiters {
		errs = append(errs, s.cfg.Resume(ctx, w))
	}
	return errors.Join(errs...)
}

// SetResume sets Config.Resume where it was not given (mrtr.NewEngine
// sets it to its task manager's Resume).
func (s *Service) SetResume(f func(ctx context.Context, waiter string) error) {
	if s.cfg.Resume == nil {
		s.cfg.Resume = f
	}
}
