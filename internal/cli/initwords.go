package cli

import (
	"strings"
	"unicode"
)

// starterWords are the words of the starter spec's texts and names, made
// from the starter tool's name read as a verb and its object
// (close_support_ticket: close, "support ticket"), so that init
// close_ticket writes a tool that closes tickets, not one that deletes
// documents under another name.
type starterWords struct {
	Tool, Title              string
	Verb, VerbTitle, Verbs   string // close, Close, closes
	Past, PastTitle          string // closed, Closed
	Able, AbleLower          string // Closable, closable
	Article                  string // a or an, before Object
	Object, ObjectTitle      string // support ticket, Support ticket
	IDArg, IDRef             string // supportTicketId, {supportTicketId}
	Find, FindMethod, Effect string // findSupportTicket, FindSupportTicket, closeSupportTicket
	Confirm                  string // confirmClose
}

// defaultTool is the starter tool when the name gives no verb and object.
const defaultTool = "delete_document"

// wordsOf reads tool (a valid tool name of two or more words) as a verb
// and its object.
func wordsOf(tool string) starterWords {
	parts := strings.Split(tool, "_")
	verb, object := parts[0], parts[1:]
	w := starterWords{
		Tool:    tool,
		Title:   toolTitle(tool),
		Verb:    verb,
		Verbs:   thirdPerson(verb),
		Past:    pastTense(verb),
		Able:    upperFirst(ableForm(verb)),
		Object:  strings.Join(object, " "),
		IDArg:   lowerFirst(camel(object)) + "Id",
		Find:    "find" + camel(object),
		Effect:  verb + camel(object),
		Confirm: "confirm" + upperFirst(verb),
	}
	w.VerbTitle, w.PastTitle = upperFirst(w.Verb), upperFirst(w.Past)
	w.AbleLower, w.ObjectTitle = ableForm(verb), upperFirst(w.Object)
	w.IDRef, w.FindMethod = "{"+w.IDArg+"}", upperFirst(w.Find)
	w.Article = article(w.Object)
	return w
}

// article is "an" before a vowel sound: an order, an update, but a user,
// a unit.
func article(noun string) string {
	for _, p := range []string{"use", "usu", "uni", "uti", "eu", "one"} {
		if strings.HasPrefix(noun, p) {
			return "a"
		}
	}
	if isVowel(noun[0]) {
		return "an"
	}
	return "a"
}

// isVerbObject reports whether tool reads as a verb and an object: two
// words or more (close_ticket), the first a word of letters.
func isVerbObject(tool string) bool {
	verb, rest, ok := strings.Cut(tool, "_")
	if !ok || rest == "" || !isLetters(verb) {
		return false
	}
	for _, p := range strings.Split(rest, "_") {
		if p == "" || !unicode.IsLetter(rune(p[0])) {
			return false
		}
	}
	return true
}

func isLetters(s string) bool {
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return s != ""
}

// irregularPast lists common verbs of tools whose past tense the rules
// below would get wrong.
var irregularPast = map[string]string{
	"build": "built", "buy": "bought", "cut": "cut", "do": "done", "find": "found",
	"get": "got", "give": "given", "hold": "held", "make": "made", "pay": "paid",
	"put": "put", "read": "read", "rebuild": "rebuilt", "reset": "reset", "resend": "resent",
	"rerun": "rerun", "run": "run", "sell": "sold", "send": "sent", "set": "set",
	"shut": "shut", "split": "split", "take": "taken", "write": "written",
	"admit": "admitted", "commit": "committed", "submit": "submitted", "transfer": "transferred",
	"upset": "upset",
}

// pastTense is the past participle of a regular English verb (delete →
// deleted, stop → stopped, copy → copied), or the irregular one.
func pastTense(verb string) string {
	if p, ok := irregularPast[verb]; ok {
		return p
	}
	switch {
	case strings.HasSuffix(verb, "e"):
		return verb + "d"
	case endsConsonantY(verb):
		return verb[:len(verb)-1] + "ied"
	case doublesFinal(verb):
		return verb + verb[len(verb)-1:] + "ed"
	}
	return verb + "ed"
}

// thirdPerson is "he ___s": close → closes, push → pushes, copy → copies.
func thirdPerson(verb string) string {
	switch {
	case endsConsonantY(verb):
		return verb[:len(verb)-1] + "ies"
	case strings.HasSuffix(verb, "s"), strings.HasSuffix(verb, "x"), strings.HasSuffix(verb, "z"),
		strings.HasSuffix(verb, "ch"), strings.HasSuffix(verb, "sh"), verb == "do", verb == "go":
		return verb + "es"
	}
	return verb + "s"
}

// ableForm is the adjective "can be ___ed": delete → deletable, stop →
// stoppable, refund → refundable.
func ableForm(verb string) string {
	switch {
	case strings.HasSuffix(verb, "ee"):
		return verb + "able"
	case strings.HasSuffix(verb, "e"):
		return verb[:len(verb)-1] + "able"
	case endsConsonantY(verb):
		return verb[:len(verb)-1] + "iable"
	case doublesFinal(verb):
		return verb + verb[len(verb)-1:] + "able"
	}
	return verb + "able"
}

func isVowel(b byte) bool { return strings.IndexByte("aeiou", b) >= 0 }

func endsConsonantY(w string) bool {
	return len(w) > 1 && w[len(w)-1] == 'y' && !isVowel(w[len(w)-2])
}

// doublesFinal: a one-syllable verb ending consonant, vowel, consonant
// (stop, ship, tag, plan) doubles its last letter before -ed; w, x and y
// never double.
func doublesFinal(w string) bool {
	n := len(w)
	if n < 3 || strings.IndexByte("wxy", w[n-1]) >= 0 {
		return false
	}
	vowels := 0
	for i := 0; i < n; i++ {
		if isVowel(w[i]) {
			vowels++
		}
	}
	return vowels == 1 && !isVowel(w[n-1]) && isVowel(w[n-2]) && !isVowel(w[n-3])
}

func camel(words []string) string {
	var b strings.Builder
	for _, w := range words {
		b.WriteString(upperFirst(w))
	}
	return b.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
