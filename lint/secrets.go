package lint

import (
	"strings"
	"unicode"
)

// Names that say a value is a secret. A name matches by words (camelCase,
// snake_case and kebab-case are split, acronyms kept whole: "APIKey" is
// "api key"), never by substring, so "spinner", "opinion" and "keyboard"
// do not. A secret word must be the name's head, the last word or one
// followed only by words that still mean the value itself ("otpCode",
// "tokenValue"); a word after it that describes the secret instead of
// being it ("tokenCount", "passwordHint", "secretName", "pinLength",
// "tokenExpiresAt") and a quantity before it ("maxTokens") make the name
// metadata about a secret, which is not reported.

// secretWords are one-word secrets.
var secretWords = map[string]bool{
	"token": true, "tokens": true, "password": true, "passwords": true, "passwd": true, "pwd": true,
	"passphrase": true, "passcode": true, "secret": true, "secrets": true, "credential": true,
	"credentials": true, "apikey": true, "privatekey": true, "otp": true, "totp": true, "pin": true,
	"cvv": true, "cvc": true, "cookie": true, "bearer": true,
}

// secretPairs are two-word secrets, by their first word.
var secretPairs = map[string]map[string]bool{
	"api":     {"key": true, "keys": true},
	"private": {"key": true, "keys": true},
	"signing": {"key": true, "keys": true},
}

// stillSecret are words that may follow a secret word in the name of the
// secret itself.
var stillSecret = map[string]bool{"value": true, "code": true, "raw": true, "plain": true, "text": true, "string": true, "b64": true, "base64": true, "hex": true}

// quantities before a secret word make the name a number ("maxTokens").
var quantities = map[string]bool{"max": true, "min": true, "num": true, "number": true, "count": true, "total": true, "n": true}

// nameWords splits a field name into lower-case words.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case len(cur) > 0:
			prev := cur[len(cur)-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			switch {
			case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
				flush() // fooBar, foo2Bar
			case unicode.IsUpper(r) && unicode.IsUpper(prev) && nextLower:
				flush() // APIKey: the K starts a word
			case unicode.IsDigit(r) != unicode.IsDigit(prev):
				flush() // token2, 2fa
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// secretName returns the words of name that make it a secret's name
// ("api key"), or "" when it is not one.
func secretName(name string) string {
	ws := nameWords(name)
	for i := range ws {
		n := 0 // how many words the secret term takes
		switch {
		case secretWords[ws[i]]:
			n = 1
		case i+1 < len(ws) && secretPairs[ws[i]][ws[i+1]]:
			n = 2
		default:
			continue
		}
		if i > 0 && quantities[ws[i-1]] {
			continue
		}
		tail := ws[i+n:]
		head := true
		for _, w := range tail {
			if !stillSecret[w] {
				head = false
				break
			}
		}
		if head {
			return strings.Join(ws[i:i+n], " ")
		}
	}
	return ""
}

func checkSecretNotSensitive(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		for _, f := range t.Continuation.Fields {
			if f.Sensitive {
				continue
			}
			if w := secretName(f.Name); w != "" {
				c.report(r, f.Pos, c.toolScope(t, f.Lint), "%s %q: continuation field %q is named like a secret (%s) but is not sensitive: true, so it is handled like any other value (sealed into requestState by default, which travels through the client)", t.Kind, t.Name, f.Name, w)
			}
		}
	}
}
