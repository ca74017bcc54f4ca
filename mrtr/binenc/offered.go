package binenc

import "unicode/utf8"

// Values offered at run time (a form enum whose values a check found, and
// the options it offered: a value and a title each) are carried like the
// enums and lists of the spec, but are checked against the options the
// continuation carries, not against a list compiled in.

// OfferedField reads the current entry as an enum value whose values are
// only known at run time (spec valuesFrom): any value of kind enum.
func (r *Fields) OfferedField(name string) string {
	if !r.want(name, KindEnum) {
		return ""
	}
	if !utf8.Valid(r.val) {
		r.fail(ErrCorrupt)
		return ""
	}
	return string(r.val)
}

// OfferedList reads the current entry as a list of such enum values.
func (r *Fields) OfferedList(name string) []string { return list(r, name, KindEnum, stringPayload) }

// The keys of an option's two entries.
var (
	optionValueKey = FieldKey("value")
	optionTitleKey = FieldKey("title")
)

// AppendOptionList appends a list of n options, option(i) giving the
// value and title of each: a list of groups of two strings.
func AppendOptionList(dst []byte, key uint32, n int, option func(i int) (value, title string)) []byte {
	return appendList(dst, key, KindGroup, n, func(b []byte, i int) []byte {
		value, title := option(i)
		b = AppendStringField(b, optionValueKey, value)
		return AppendStringField(b, optionTitleKey, title)
	})
}

// OptionList reads the current entry as a list of options, each made into
// a T by option.
func OptionList[T any](r *Fields, name string, option func(value, title string) T) []T {
	return list(r, name, KindGroup, func(b []byte) (T, bool) {
		g := Fields{b: b, err: r.err}
		var value, title string
		for g.Next() {
			switch g.Key() {
			case optionValueKey:
				value = g.String(name + ".value")
			case optionTitleKey:
				title = g.String(name + ".title")
			}
		}
		return option(value, title), true
	})
}
