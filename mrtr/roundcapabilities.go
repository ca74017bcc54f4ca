package mrtr

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// hasCapability reports whether the client declared a capability by name.
// Roots are read from RootsV2: the SDK always serialises the plain Roots
// struct, so only RootsV2 says whether the client declared roots.
func hasCapability(c *mcp.ClientCapabilities, name vocab.Capability) bool {
	if c == nil {
		return false
	}
	switch name {
	case vocab.CapElicitation:
		// Forms: a bare elicitation: {} or one with form: {}; a client
		// that declares only url: {} does not do forms.
		return c.Elicitation != nil && (c.Elicitation.Form != nil || c.Elicitation.URL == nil)
	case vocab.CapElicitationURL:
		// elicitation: {url: {}}; a bare elicitation: {} means form only.
		return c.Elicitation != nil && c.Elicitation.URL != nil
	case vocab.CapSampling:
		//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; the runtime reads what the client declares
		return c.Sampling != nil
	case vocab.CapRoots:
		//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; the runtime reads what the client declares
		return c.RootsV2 != nil
	}
	return false
}

func missingCapabilities(c *mcp.ClientCapabilities, required []vocab.Capability) []vocab.Capability {
	var missing []vocab.Capability
	for _, name := range required {
		if !hasCapability(c, name) {
			missing = append(missing, name)
		}
	}
	return missing
}
