package diagram

import (
	"fmt"
	"strings"
)

// mermaidClasses style the node classes. Fills are light with dark text
// so the diagram stays readable on GitHub's light and dark themes.
var mermaidClasses = []struct{ name, style string }{
	{"check", "fill:#e8f0fe,stroke:#1a56db,color:#111"},
	{"ask", "fill:#fff4d6,stroke:#b7791f,color:#111"},
	{"confirm", "fill:#fde8d7,stroke:#c05621,stroke-width:2px,color:#111"},
	{"approval", "fill:#fde8d7,stroke:#9c4221,stroke-width:4px,color:#111"},
	{"effect", "fill:#e6f4ea,stroke:#2f855a,color:#111"},
	{"irreversible", "fill:#fde2e1,stroke:#c53030,stroke-width:3px,color:#111"},
	{"branch", "fill:#f3e8ff,stroke:#6b46c1,color:#111"},
	{"success", "fill:#c6f6d5,stroke:#2f855a,color:#111"},
	{"cancelled", "fill:#edf2f7,stroke:#4a5568,color:#111"},
	{"failed", "fill:#fed7d7,stroke:#9b2c2c,color:#111"},
	{"expired", "fill:#fefcbf,stroke:#975a16,color:#111"},
	{"exit", "fill:#ffffff,stroke:#718096,stroke-dasharray:4 3,color:#4a5568"},
}

// Mermaid renders the graph as a Mermaid stateDiagram-v2. States are
// declared with their name and described with their kind; implicit exits
// are dashed; classes colour states by kind.
func (g *Graph) Mermaid() string {
	var b strings.Builder
	b.WriteString("stateDiagram-v2\n")
	used := map[string]bool{}
	for _, n := range g.Nodes {
		if n.Kind != State && n.Kind != Exit {
			continue
		}
		used[n.Class] = true
		title := n.Name
		fmt.Fprintf(&b, "    state \"%s\" as %s\n", mermaidText(title), n.ID)
		for _, l := range n.Lines {
			fmt.Fprintf(&b, "    %s : %s\n", n.ID, mermaidText(l))
		}
	}
	for _, e := range g.Edges {
		from, to := mermaidRef(g, e.From), mermaidRef(g, e.To)
		if len(e.Labels) == 0 {
			fmt.Fprintf(&b, "    %s --> %s\n", from, to)
			continue
		}
		fmt.Fprintf(&b, "    %s --> %s : %s\n", from, to, mermaidText(e.Label()))
	}
	for _, c := range mermaidClasses {
		if !used[c.name] {
			continue
		}
		fmt.Fprintf(&b, "    classDef %s %s\n", c.name, c.style)
	}
	for _, c := range mermaidClasses {
		var ids []string
		for _, n := range g.Nodes {
			if n.Class == c.name && (n.Kind == State || n.Kind == Exit) {
				ids = append(ids, n.ID)
			}
		}
		if len(ids) > 0 {
			fmt.Fprintf(&b, "    class %s %s\n", strings.Join(ids, ","), c.name)
		}
	}
	return b.String()
}

// mermaidRef is how an edge names a node: [*] for the start and end
// pseudo-states.
func mermaidRef(g *Graph, id string) string {
	if n := g.Node(id); n != nil && (n.Kind == Start || n.Kind == End) {
		return "[*]"
	}
	return id
}

// mermaidText makes text safe in a state name, description or transition
// label: characters Mermaid's state grammar gives a meaning to are written
// as entity codes (#35; for #), which Mermaid turns back into the
// characters when it draws.
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == ' ' || r == '(' || r == ')' || r == ',' || r == '/' || r == '.' || r == '_' || r == '-' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "#%d;", r)
		}
	}
	return b.String()
}
