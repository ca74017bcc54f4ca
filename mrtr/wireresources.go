package mrtr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// AddResource registers a generated resource program on s: a fixed URI on
// resources/list, or a URI template on resources/templates/list, read on
// resources/read. The variables of a template are the program's
// arguments (strings), so a requestState is bound to the principal, the
// method and resource (its subject) and the URI read (the arguments
// digest), and checked as a tool's is; a reply that needs input is an
// input_required result (2026-07-28 allows it on resources/read).
//
// Caching (docs/spec.md, Resources): an input_required result carries no
// ttlMs or cacheScope (go-sdk v1.8.0 adds them to every resources/read
// result; they are stripped), and the final result of a read that was
// retried with a requestState says ttlMs 0, cacheScope private: it must
// not be cached. A read of a single round keeps what ServerOptions.
// SetCacheable decides.
//
// A workflow that does not end in success fails with JSON-RPC error
// -32000 carrying its message, and arguments that fail validation with
// -32602, as for prompts: resources/read has no error result. A URI that
// matches nothing, and the end at a terminal state the spec declares
// notFound, is the protocol's resource-not-found error of the request's
// revision, with data.uri: -32602 from 2026-07-28 on, -32002 before
// (resourceNotFound).
func AddResource[F any](s *mcp.Server, e *Engine, p Program[F]) {
	d := p.Descriptor()
	if d.Kind != vocab.KindResource || d.Resource == nil {
		panic(fmt.Sprintf("mrtr.AddResource: %s is a %s; use AddTool or AddPrompt", d.Name, d.Kind))
	}
	mustServe(e, d)
	keepClientAnswers(s)
	codedErrors(s)
	stripInterimCaching(s)
	notFoundByRevision(s)
	e.addCompleter(vocab.KindResource, d.Resource.URITemplate, p)
	info := d.Resource
	var match *regexp.Regexp
	if info.URITemplate != "" {
		match = templateRegexp(info.URITemplate)
	}
	handler := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		vars := map[string]string{}
		if match != nil {
			var ok bool
			if vars, ok = templateVars(match, uri); !ok {
				return nil, resourceNotFound(uri, req.ProtocolVersion(), "")
			}
		} else if uri != info.URI {
			return nil, resourceNotFound(uri, req.ProtocolVersion(), "")
		}
		args, err := json.Marshal(vars)
		if err != nil {
			return nil, err
		}
		reply, err := answer(ctx, e, p, req.Extra, args, req.Params.InputResponses, req.Params.RequestState,
			req.ClientCapabilities(), req.ProtocolVersion(), req.Session)
		if err == nil && !reply.NeedsInput() && reply.Final.NotFound {
			return nil, resourceNotFound(uri, req.ProtocolVersion(), reply.Final.Text)
		}
		if reply, err = settled(reply, err); err != nil {
			return nil, err
		}
		if reply.NeedsInput() {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{}, InputRequests: reply.InputRequests, RequestState: reply.RequestState}, nil
		}
		res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{}}
		for _, c := range reply.Final.Content {
			rc := c.Resource()
			if rc.URI == "" {
				rc.URI = uri
			}
			if rc.MIMEType == "" {
				rc.MIMEType = info.MIMEType
			}
			res.Contents = append(res.Contents, rc)
		}
		return res, nil
	}
	if info.URITemplate != "" {
		s.AddResourceTemplate(&mcp.ResourceTemplate{Name: d.Name, Title: d.Title, Description: d.Description,
			MIMEType: info.MIMEType, URITemplate: info.URITemplate}, handler)
		return
	}
	s.AddResource(&mcp.Resource{Name: d.Name, Title: d.Title, Description: d.Description, MIMEType: info.MIMEType, URI: info.URI}, handler)
}

// codeResourceNotFound is the resource-not-found code of revisions before
// 2026-07-28 (2025-11-25 and earlier); 2026-07-28 uses -32602 (Invalid
// Params), and tells clients to accept -32002 too.
const codeResourceNotFound = -32002

// resourceNotFound is the resource-not-found error of protocol revision
// version, for uri: -32602 from 2026-07-28 on (and when the revision is
// unknown, as go-sdk answers), -32002 before; data.uri names the URI on
// both. message is the text of the spec's notFound terminal, or "" for the
// protocol's own "Resource not found".
func resourceNotFound(uri, version, message string) error {
	code := int64(codeInvalidParams)
	if version != "" && version < protocolMRTR {
		code = codeResourceNotFound
	}
	if message == "" {
		message = "Resource not found"
	}
	data, _ := json.Marshal(map[string]string{"uri": uri})
	return &jsonrpc.Error{Code: code, Message: message, Data: data}
}

// notFoundMapped lists the servers notFoundByRevision has wrapped.
var notFoundMapped sync.Map // weak.Pointer[mcp.Server] -> struct{}

// notFoundByRevision adds, once per server, a receiving middleware that
// gives a resources/read of a URI no resource of the server matches the
// resource-not-found code of the request's revision: go-sdk answers it
// with -32602 on every revision (mcp.ResourceNotFoundError), which a
// client of 2025-11-25 does not take for "not found".
func notFoundByRevision(s *mcp.Server) {
	addOnce(&notFoundMapped, s, s.AddReceivingMiddleware, func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			rr, ok := req.(*mcp.ReadResourceRequest)
			var je *jsonrpc.Error
			if err == nil || !ok || method != vocab.MethodResourcesRead || !errors.As(err, &je) ||
				je.Code != codeInvalidParams || je.Message != "Resource not found" || rr.Params == nil {
				return res, err
			}
			return res, resourceNotFound(rr.Params.URI, rr.ProtocolVersion(), "")
		}
	})
}

var templateVar = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// templateRegexp matches the URIs of a level-1 URI template: each {name}
// is one non-empty path segment (no /, ?, #).
func templateRegexp(tpl string) *regexp.Regexp {
	var b strings.Builder
	b.WriteByte('^')
	last := 0
	for _, m := range templateVar.FindAllStringSubmatchIndex(tpl, -1) {
		b.WriteString(regexp.QuoteMeta(tpl[last:m[0]]))
		fmt.Fprintf(&b, "(?P<%s>[^/?#]+)", tpl[m[2]:m[3]])
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(tpl[last:]))
	b.WriteByte('$')
	return regexp.MustCompile(b.String())
}

// templateVars returns the variables of uri under the template, percent-
// decoded, or false when uri does not match it.
func templateVars(re *regexp.Regexp, uri string) (map[string]string, bool) {
	m := re.FindStringSubmatch(uri)
	if m == nil {
		return nil, false
	}
	vars := map[string]string{}
	for i, name := range re.SubexpNames() {
		if i == 0 || name == "" {
			continue
		}
		v, err := url.PathUnescape(m[i])
		if err != nil {
			return nil, false
		}
		vars[name] = v
	}
	return vars, true
}

// cachingStripped lists the servers stripInterimCaching has wrapped.
var cachingStripped sync.Map // weak.Pointer[mcp.Server] -> struct{}

// stripInterimCaching adds, once per server, a receiving middleware that
// takes the caching hints off input_required results of resources/read
// and marks the final result of a retried read (one that carried a
// requestState) as not to be cached.
func stripInterimCaching(s *mcp.Server) {
	addOnce(&cachingStripped, s, s.AddReceivingMiddleware, func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			rr, ok := res.(*mcp.ReadResourceResult)
			if err != nil || !ok || method != vocab.MethodResourcesRead {
				return res, err
			}
			if rr.NeedsInput() {
				return interimRead{rr}, nil
			}
			if p, ok := req.GetParams().(*mcp.ReadResourceParams); ok && p.RequestState != "" {
				rr.TTLMs, rr.CacheScope = 0, "private"
			}
			return rr, nil
		}
	})
}

// interimRead is an input_required resources/read result without the
// caching hints go-sdk puts on every read result.
type interimRead struct{ *mcp.ReadResourceResult }

func (r interimRead) MarshalJSON() ([]byte, error) {
	b, err := r.ReadResourceResult.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "ttlMs")
	delete(m, "cacheScope")
	return json.Marshal(m)
}

// completerKey names what completion/complete refers to: a prompt by name,
// a resource template by its URI template.
type completerKey struct {
	kind vocab.Kind
	name string
}

// addCompleter records p's completions, when its spec declares any.
func (e *Engine) addCompleter(kind vocab.Kind, name string, p any) {
	c, ok := p.(mrtrimpl.Completer)
	if !ok || name == "" {
		return
	}
	e.completers.Store(completerKey{kind, name}, c)
}

// Complete answers completion/complete from the completions the specs of
// the registered prompts and resource templates declare; set it as
// mcp.ServerOptions.CompletionHandler (which also makes the server declare
// the completions capability). A reference to nothing registered, or an
// argument without completions, gets no values; a handler method's error
// is logged and answered as an internal error.
//
// Suggestions are data too (the customers, regions or services a caller
// may see), so a completion is a trust boundary like a round: the caller
// is authenticated first (Config.Authenticate; a failure is -32602 "not
// authenticated", and no handler method runs), and a completion method
// finds who asks with PrincipalFromContext, to offer only what that caller
// may read.
func (e *Engine) Complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	if req == nil || req.Params == nil {
		return nil, &jsonrpc.Error{Code: codeInvalidParams, Message: "completion/complete needs params"}
	}
	principal, err := e.authenticate(ctx, req.Extra)
	if err != nil {
		return nil, err
	}
	ctx = context.WithValue(ctx, principalKey{}, principal)
	ref := req.Params.Ref
	if ref == nil {
		return nil, &jsonrpc.Error{Code: codeInvalidParams, Message: "completion/complete needs a ref"}
	}
	var key completerKey
	switch ref.Type {
	case "ref/prompt":
		key = completerKey{vocab.KindPrompt, ref.Name}
	case "ref/resource":
		key = completerKey{vocab.KindResource, ref.URI}
	default:
		return nil, &jsonrpc.Error{Code: codeInvalidParams, Message: fmt.Sprintf("unknown completion reference type %q", ref.Type)}
	}
	v, ok := e.completers.Load(key)
	if !ok {
		return res, nil
	}
	var resolved map[string]string
	if req.Params.Context != nil {
		resolved = req.Params.Context.Arguments
	}
	values, err := v.(mrtrimpl.Completer).Complete(ctx, req.Params.Argument.Name, req.Params.Argument.Value, resolved)
	if err != nil {
		e.log.ErrorContext(ctx, "mrtr: completion failed", "ref", ref.Name+ref.URI, "argument", req.Params.Argument.Name, "error", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
	}
	res.Completion.Total = len(values)
	if len(values) > maxCompletions {
		values, res.Completion.HasMore = values[:maxCompletions], true
	}
	if values != nil {
		res.Completion.Values = values
	}
	return res, nil
}

// principalKey carries the authenticated caller of a completion.
type principalKey struct{}

// PrincipalFromContext returns the caller Config.Authenticate found for
// the request ctx belongs to, inside a completion method (the source of
// `complete: {from: ...}`); ok is false elsewhere. In a round, the caller
// is the flow's Call().Principal instead.
func PrincipalFromContext(ctx context.Context) (principal string, ok bool) {
	principal, ok = ctx.Value(principalKey{}).(string)
	return principal, ok
}

// maxCompletions is the most values one completion/complete result holds
// (MCP's limit); more are cut, and the result says it has more.
const maxCompletions = 100
