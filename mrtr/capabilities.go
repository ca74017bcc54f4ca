package mrtr

import "github.com/modelcontextprotocol/go-sdk/mcp"

// hasCapability reports whether the client declared a capability by name.
// Roots are read from RootsV2: the SDK always serialises the plain Roots
// struct, so only RootsV2 says whether the client declared roots.
func hasCapability(c *mcp.ClientCapabilities, name string) bool {
	if c == nil {
		return false
	}
	switch name {
	case "elicitation":
		return c.Elicitation != nil
	case "sampling":
		return c.Sampling != nil
	case "roots":
		return c.RootsV2 != nil
	}
	return false
}

func missingCapabilities(c *mcp.ClientCapabilities, required []string) []string {
	var missing []string
	for _, name := range required {
		if !hasCapability(c, name) {
			missing = append(missing, name)
		}
	}
	return missing
}
