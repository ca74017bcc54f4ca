package diagram

import (
	"fmt"
	"strings"
)

// dotFill is the fill colour of each node class (the same palette as the
// Mermaid classes).
var dotFill = map[string]string{
	"check":        "#e8f0fe",
	"ask":          "#fff4d6",
	"confirm":      "#fde8d7",
	"approval":     "#fde8d7",
	"effect":       "#e6f4ea",
	"irreversible": "#fde2e1",
	"branch":       "#f3e8ff",
	"success":      "#c6f6d5",
	"cancelled":    "#edf2f7",
	"failed":       "#fed7d7",
	"expired":      "#fefcbf",
	"exit":         "#ffffff",
}

// DOT renders the graph as a Graphviz digraph: states as rounded boxes
// labelled with their name and kind, the start as a dot, the end as a
// ringed dot, implicit exits and their edges dashed, irreversible effects
// with a thick red border.
func (g *Graph) DOT() string {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %s {\n", dotQuote(g.Kind.String()+" "+g.Name))
	fmt.Fprintf(&b, "\tgraph [label=%s, labelloc=t, fontname=\"Helvetica\", rankdir=TB];\n", dotQuote(g.Kind.String()+" "+g.Name))
	b.WriteString("\tnode [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11, fillcolor=\"#ffffff\"];\n")
	b.WriteString("\tedge [fontname=\"Helvetica\", fontsize=10];\n")
	for _, n := range g.Nodes {
		var attrs []string
		switch n.Kind {
		case Start:
			attrs = []string{`shape=circle`, `style=filled`, `fillcolor="#000000"`, `label=""`, `width=0.2`, `fixedsize=true`}
		case End:
			attrs = []string{`shape=doublecircle`, `style=filled`, `fillcolor="#000000"`, `label=""`, `width=0.15`, `fixedsize=true`}
		default:
			attrs = append(attrs,
				"label="+dotQuote(strings.Join(append([]string{n.Name}, n.Lines...), "\n")),
				"fillcolor="+dotQuote(dotFill[n.Class]))
			switch n.Class {
			case "irreversible":
				attrs = append(attrs, `color="#c53030"`, `penwidth=3`)
			case "confirm":
				attrs = append(attrs, `penwidth=2`)
			case "approval":
				attrs = append(attrs, `color="#9c4221"`, `penwidth=4`)
			case "exit":
				attrs = append(attrs, `style="rounded,dashed"`, `fontcolor="#4a5568"`)
			}
		}
		fmt.Fprintf(&b, "\t%s [%s];\n", dotQuote(n.ID), strings.Join(attrs, ", "))
	}
	for _, e := range g.Edges {
		var attrs []string
		if len(e.Labels) > 0 {
			attrs = append(attrs, "label="+dotQuote(e.Label()))
		}
		if e.Implicit {
			attrs = append(attrs, "style=dashed", `color="#718096"`, `fontcolor="#4a5568"`)
		}
		if len(attrs) == 0 {
			fmt.Fprintf(&b, "\t%s -> %s;\n", dotQuote(e.From), dotQuote(e.To))
			continue
		}
		fmt.Fprintf(&b, "\t%s -> %s [%s];\n", dotQuote(e.From), dotQuote(e.To), strings.Join(attrs, ", "))
	}
	b.WriteString("}\n")
	return b.String()
}

// dotQuote writes s as a DOT double-quoted string; newlines become the
// centred line break \n.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
