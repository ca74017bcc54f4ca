package generator

import (
	"slices"

	"github.com/dave/jennifer/jen"
)

// pair is one key: value of a composite literal.
type pair struct {
	key jen.Code
	val jen.Code
}

// oneLine is the composite literal {key: value, ...} on a single line, in
// the order given (jen.Dict puts every pair on a line of its own). Tables
// in generated code then read one row a line, and formatting stays cheap:
// go/printer measures every element of a literal that spans lines by
// printing it, again at each enclosing level.
func oneLine(pairs ...pair) *jen.Statement {
	return jen.Values(pairCodes(pairs)...)
}

// pairCodes are the key: value elements of pairs.
func pairCodes(pairs []pair) []jen.Code {
	out := make([]jen.Code, len(pairs))
	for i, p := range pairs {
		out[i] = jen.Add(p.key).Op(":").Add(p.val)
	}
	return out
}

// rows is a composite literal's {elem, elem, ...} with one element a line.
func rows(elems ...jen.Code) *jen.Statement {
	return jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, elems...)
}

// sortedPairs orders pairs with string keys by key, as gofmt readers
// expect of map literals.
func sortedPairs(keys []string, val func(string) jen.Code) []pair {
	keys = slices.Sorted(slices.Values(keys))
	out := make([]pair, len(keys))
	for i, k := range keys {
		out[i] = pair{jen.Lit(k), val(k)}
	}
	return out
}
