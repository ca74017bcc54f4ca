package mrtr

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// publicParams returns the params of pending request p as they are sent: a
// URL-mode elicitation whose url is a path gets Config.PublicURL in front.
// Without a PublicURL that round fails (a server configuration error; the
// client sees an internal error, the log says which request).
func (e *Engine) publicParams(d *mrtrimpl.Descriptor, p mrtrimpl.Pending) (mcp.InputRequest, error) {
	ep, ok := p.Params.(*mcp.ElicitParams)
	if !ok || p.Kind != vocab.ElicitURL || !strings.HasPrefix(ep.URL, "/") {
		return p.Params, nil
	}
	if e.cfg.PublicURL == "" {
		return nil, fmt.Errorf("mrtr: %s: input request %q opens the path %q, but Config.PublicURL is not set", d.Name, p.Key, ep.URL)
	}
	out := *ep
	out.URL = e.cfg.PublicURL + ep.URL
	return &out, nil
}

// sessionElicitation returns URL-mode params as a client before 2026-07-28
// needs them on its session: with an elicitationId (that revision requires
// one; 2026-07-28 dropped it and correlates through requestState). The id
// is random and only names this one request.
func sessionElicitation(p *mcp.ElicitParams) *mcp.ElicitParams {
	if p.Mode != "url" || p.ElicitationID != "" {
		return p
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	out := *p
	out.ElicitationID = hex.EncodeToString(b[:])
	return &out
}
