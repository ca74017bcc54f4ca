// Package headeruser is how the task tests and fixtures of mrtr/tasks
// (and taskstest's instances) authenticate: the principal is the X-User
// header of the HTTP request.
package headeruser

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Header is the header that names the principal.
const Header = "X-User"

// Authenticate returns the principal of a request, the value of its
// X-User header; "" (anonymous) for a request without headers.
func Authenticate(_ context.Context, extra *mcp.RequestExtra) (string, error) {
	if extra == nil || extra.Header == nil {
		return "", nil
	}
	return extra.Header.Get(Header), nil
}
