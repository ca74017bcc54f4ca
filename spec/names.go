package spec

import (
	"strings"
	"sync"
	"unicode"
)

// commonInitialisms are written in capitals inside Go names, as Go's own
// naming guidance does (TicketID, not TicketId).
var commonInitialisms = map[string]bool{
	"API": true, "ASCII": true, "CPU": true, "CSS": true, "CSV": true, "DNS": true, "EOF": true,
	"GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true, "IP": true, "JSON": true,
	"MCP": true, "OS": true, "QPS": true, "RAM": true, "RPC": true, "SLA": true, "SMTP": true, "SQL": true,
	"SSH": true, "SSO": true, "TCP": true, "TLS": true, "TTL": true, "UDP": true, "UI": true, "UID": true,
	"URI": true, "URL": true, "UTF8": true, "UUID": true, "VM": true, "XML": true,
}

// GoName converts a spec name (snake_case, kebab-case, dotted or camelCase)
// to an exported Go identifier: close_support_ticket → CloseSupportTicket,
// ticketId → TicketID. Different spec names can map to one Go name; lint
// reports such collisions.
func GoName(s string) string {
	// The generator asks for the same few names thousands of times.
	if name, ok := goNames.Load(s); ok {
		return name.(string)
	}
	name := goName(s)
	goNames.Store(s, name)
	return name
}

var goNames sync.Map // spec name → GoName

func goName(s string) string {
	words := splitWords(s)
	var b strings.Builder
	for _, w := range words {
		up := strings.ToUpper(w)
		if commonInitialisms[up] {
			b.WriteString(up)
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]))
		b.WriteString(w[1:])
	}
	name := b.String()
	if name == "" || !unicode.IsLetter(rune(name[0])) {
		name = "X" + name
	}
	return name
}

// goNameLower is GoName with a lower-case first word, for unexported names.
func goNameLower(s string) string {
	words := splitWords(s)
	if len(words) == 0 {
		return "x"
	}
	first := strings.ToLower(words[0])
	rest := GoName(strings.Join(words[1:], "_"))
	if len(words) == 1 {
		rest = ""
	}
	return first + rest
}

// GoNameLower converts a spec name to an unexported Go identifier.
func GoNameLower(s string) string { return goNameLower(s) }

// splitWords breaks a name at separators and lower→upper case changes:
// "closeTicket_v2" → ["close", "Ticket", "v2"].
func splitWords(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			flush()
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])):
			flush()
			cur = append(cur, r)
		case unicode.IsUpper(r) && i > 0 && i+1 < len(rs) && unicode.IsUpper(rs[i-1]) && unicode.IsLower(rs[i+1]):
			// "HTTPServer" → "HTTP", "Server"
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return words
}

// FlowMembers are the fields and methods every generated flow (the struct
// handler methods get) has. An input request key becomes a field of the
// flow too, so a key whose Go name is one of these would not compile; lint
// refuses it (go-identifier-collision).
var FlowMembers = []string{"Call", "Args", "Continuation", "State"}
