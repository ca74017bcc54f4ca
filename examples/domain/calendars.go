package domain

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"
)

// CalendarGrant is what the calendar service records when a user grants
// access on its page (the out-of-band step of connect_calendar): who
// granted it, for which workflow and which calendar. The tool's check asks
// for the grant of the caller and the workflow, so a grant made by another
// user, or for another workflow, is not found.
type CalendarGrant struct {
	ID       string    `json:"id"`
	User     string    `json:"user"`
	Workflow string    `json:"workflow"`
	Provider string    `json:"provider"`
	At       time.Time `json:"at"`
}

// CalendarLink is a connected calendar: the sync connect_calendar turned on.
type CalendarLink struct {
	User     string `json:"user"`
	Provider string `json:"provider"`
	GrantID  string `json:"grantId"`
}

// CalendarGrantKey is the key of the grant user made for workflow.
func CalendarGrantKey(user, workflow string) string { return "calgrant:" + user + ":" + workflow }

// CalendarLinkKey is the key of user's connected calendar provider.
func CalendarLinkKey(user, provider string) string { return "calendar:" + user + ":" + provider }

// ErrNoUser refuses a grant without a signed-in user.
var ErrNoUser = errors.New("domain: a grant needs a signed-in user")

// GrantCalendar records that user granted access to their provider
// calendar for workflow (what the calendar page does when the user
// presses "Grant access"). Granting again for the same workflow keeps the
// first grant.
func GrantCalendar(ctx context.Context, s Store, user, workflow, provider string, now time.Time) (CalendarGrant, error) {
	if user == "" {
		return CalendarGrant{}, ErrNoUser
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return CalendarGrant{}, err
	}
	g := CalendarGrant{ID: "grant-" + hex.EncodeToString(b[:]), User: user, Workflow: workflow, Provider: provider, At: now.UTC()}
	b2, err := json.Marshal(g)
	if err != nil {
		return CalendarGrant{}, err
	}
	raw := string(b2)
	key := CalendarGrantKey(user, workflow)
	if _, err := s.Swap(ctx, key, "", raw, ""); err != nil {
		return CalendarGrant{}, err
	}
	got, _, err := Load[CalendarGrant](ctx, s, key)
	return got, err
}
