// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package survey

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// RunSurveyImpl implements RunSurveyHandler for tool run_survey.
// Give it what the methods need: a database handle, API clients.
type RunSurveyImpl struct{}

var _ RunSurveyHandler = (*RunSurveyImpl)(nil)

// Authorize decides whether f.Call.Principal may run run_survey with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *RunSurveyImpl) Authorize(ctx context.Context, f *RunSurveyFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("run_survey: Authorize is not implemented yet")
}

// CustomerExists is the check of state lookup.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *RunSurveyImpl) CustomerExists(ctx context.Context, f *RunSurveyFlow) error {
	// TODO: check customerExists; set f.Continuation fields later states need.
	return errors.New("run_survey: CustomerExists is not implemented yet")
}

// StoreSurvey is the check of state saveAnswers.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *RunSurveyImpl) StoreSurvey(ctx context.Context, f *RunSurveyFlow) error {
	// TODO: check storeSurvey; set f.Continuation fields later states need.
	return errors.New("run_survey: StoreSurvey is not implemented yet")
}
