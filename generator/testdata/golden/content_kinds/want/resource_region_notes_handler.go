// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package content_kinds

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// RegionNotesImpl implements RegionNotesHandler for resource region_notes.
// Give it what the methods need: a database handle, API clients.
type RegionNotesImpl struct{}

var _ RegionNotesHandler = (*RegionNotesImpl)(nil)

// Authorize decides whether f.Call.Principal may run region_notes with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *RegionNotesImpl) Authorize(ctx context.Context, f *RegionNotesFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("region_notes: Authorize is not implemented yet")
}

// FindNotes is the check of state find. It must set f.Continuation.Notes (on found) before it
// returns (sets: in the spec); a value still empty fails the round. Return mrtr.Reject to refuse
// the request with a message; any other error is a dependency failure.
func (h *RegionNotesImpl) FindNotes(ctx context.Context, f *RegionNotesFlow) (RegionNotesFindNotesOutcome, error) {
	// TODO: check findNotes; set f.Continuation fields later states need.
	return 0, errors.New("region_notes: FindNotes is not implemented yet")
}
