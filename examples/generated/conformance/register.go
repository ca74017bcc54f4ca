package conformance

//go:generate go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen generate ../../specs/conformance.mrtr.yaml

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// Register adds every conformance fixture to s, served by e, with its
// handler, and installs the middleware that gives handlers the request's
// session (test_logging_tool logs over it).
func Register(s *mcp.Server, e *mrtr.Engine) {
	s.AddReceivingMiddleware(sessionMiddleware)
	RegisterAll(s, e,
		&TestAudioContentImpl{},
		&TestEmbeddedResourceImpl{},
		&TestErrorHandlingImpl{},
		&TestImageContentImpl{},
		&TestInputRequiredResultCapabilitiesImpl{},
		&TestInputRequiredResultElicitationImpl{},
		&TestInputRequiredResultListRootsImpl{},
		&TestInputRequiredResultMultiRoundImpl{},
		&TestInputRequiredResultMultipleInputsImpl{},
		&TestInputRequiredResultRequestStateImpl{},
		&TestInputRequiredResultSamplingImpl{},
		&TestInputRequiredResultTamperedStateImpl{},
		&TestLoggingToolImpl{},
		&TestMissingCapabilityImpl{},
		&TestMultipleContentTypesImpl{},
		&TestSimpleTextImpl{},
		&TestStreamingElicitationImpl{},
		&TestTriggerPromptChangeImpl{Server: s},
		&TestTriggerToolChangeImpl{Server: s},
		&TestInputRequiredResultPromptImpl{},
		&TestPromptWithArgumentsImpl{},
		&TestPromptWithEmbeddedResourceImpl{},
		&TestPromptWithImageImpl{},
		&TestSimplePromptImpl{},
		&StaticBinaryImpl{},
		&StaticTextImpl{},
		&TemplateDataImpl{},
	)
}

type sessionKey struct{}

// sessionMiddleware puts the session of every request served by the
// server in the request's context.
func sessionMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
			ctx = context.WithValue(ctx, sessionKey{}, ss)
		}
		return next(ctx, method, req)
	}
}

// SessionFrom returns the session of the request being served, or nil
// outside a request served through Register's middleware.
func SessionFrom(ctx context.Context) *mcp.ServerSession {
	ss, _ := ctx.Value(sessionKey{}).(*mcp.ServerSession)
	return ss
}
