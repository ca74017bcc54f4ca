// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package names

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// GetUserInfoImpl implements GetUserInfoHandler for tool get-user.info.
// Give it what the methods need: a database handle, API clients.
type GetUserInfoImpl struct{}

var _ GetUserInfoHandler = (*GetUserInfoImpl)(nil)

// Authorize decides whether f.Call.Principal may run get-user.info with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *GetUserInfoImpl) Authorize(ctx context.Context, f *GetUserInfoFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("get-user.info: Authorize is not implemented yet")
}

// FetchUserAPI is the check of state fetchHTTP.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *GetUserInfoImpl) FetchUserAPI(ctx context.Context, f *GetUserInfoFlow) (GetUserInfoFetchUserAPIOutcome, error) {
	// TODO: check fetchUserAPI; set f.Continuation fields later states need.
	return 0, errors.New("get-user.info: FetchUserAPI is not implemented yet")
}
