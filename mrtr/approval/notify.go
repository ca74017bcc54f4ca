package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"
)

// Notice tells people about an approval: the approvers that it waits
// for them (a request, a reminder, an escalation), the requester that it
// was decided or expired.
type Notice struct {
	Kind NoticeKind
	// To are the principals to tell (empty for a request whose policy
	// admits anyone signed in: post it where approvers look).
	To []string
	// Record is the approval as it stands (a copy).
	Record *Record
	// Link is the approval page's signed link.
	Link string
}

// Notifier delivers notices: e-mail, a chat message with the link or with
// buttons that call the JSON API, a webhook. Notify is called at least
// once per notice (again after an error, up to five times, and again when
// the instance delivering it died first): make it idempotent where
// duplicates matter, keyed by Record.ID and Kind. Its ctx ends after
// Config.Lease (another instance delivers the notice again then).
type Notifier interface {
	Notify(ctx context.Context, n Notice) error
}

// LogNotifier logs each notice (the link included: in production, log
// elsewhere than where untrusted readers look).
type LogNotifier struct{ Logger *slog.Logger }

func (l LogNotifier) Notify(ctx context.Context, n Notice) error {
	log := l.Logger
	if log == nil {
		log = slog.Default()
	}
	log.LogAttrs(ctx, slog.LevelInfo, "approval notice", slog.String("kind", string(n.Kind)), slog.String("approval", n.Record.ID),
		slog.String("tool", n.Record.Tool), slog.Any("to", n.To), slog.String("state", string(n.Record.State)), slog.String("link", n.Link))
	return nil
}

// WebhookNotifier posts each notice as JSON to URL (a chat-ops bridge):
// {"kind", "approval", "tool", "state", "summary", "requester", "to",
// "deadline", "link"}. A status other than 2xx is an error (retried).
type WebhookNotifier struct {
	URL    string
	Client *http.Client // nil: a client with a 10 s timeout
}

func (w WebhookNotifier) Notify(ctx context.Context, n Notice) error {
	body, err := json.Marshal(map[string]any{
		"kind": n.Kind, "approval": n.Record.ID, "tool": n.Record.Tool, "state": n.Record.State,
		"summary": n.Record.Summary, "requester": n.Record.Requester, "to": n.To,
		"deadline": n.Record.Deadline.UTC().Format(time.RFC3339), "link": n.Link,
	})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	c := w.Client
	if c == nil {
		c = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := c.Do(req)
	if err != nil {
		// Not the *url.Error as it is: it names the URL, and a webhook's
		// URL often carries its secret (the error is logged and traced).
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return fmt.Errorf("approval: webhook post: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("approval: webhook answered %s", resp.Status)
	}
	return nil
}

// Notifiers sends each notice to every notifier in turn; the first error
// stops it (and the notice is delivered again, to all of them).
type Notifiers []Notifier

func (ns Notifiers) Notify(ctx context.Context, n Notice) error {
	for _, x := range ns {
		if err := x.Notify(ctx, n); err != nil {
			return err
		}
	}
	return nil
}
