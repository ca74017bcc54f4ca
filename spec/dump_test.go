package spec_test

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/mrtrgen/mrtrgen/spec"
)

var (
	posType    = reflect.TypeOf(spec.Pos{})
	regexpType = reflect.TypeOf(&regexp.Regexp{})
)

// dump renders a loaded model as indented text, field by field, leaving out
// positions (which depend on where things are written, not on what they
// mean) and compiled regular expressions (their source is dumped). Two
// specs that say the same thing dump the same.
func dump(f *spec.File) string {
	var b strings.Builder
	dumpValue(&b, reflect.ValueOf(f), 0)
	return b.String()
}

func dumpValue(b *strings.Builder, v reflect.Value, depth int) {
	ind := strings.Repeat("  ", depth)
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil\n")
			return
		}
		dumpValue(b, v.Elem(), depth)
	case reflect.Struct:
		b.WriteString("{\n")
		for i := range v.NumField() {
			fd := v.Type().Field(i)
			// Positions, and a field's written position (forms list fields as
			// written: that order is design, not noise), follow the text.
			if fd.Type == posType || fd.Type == regexpType || !fd.IsExported() || fd.Name == "Path" && v.Type() == reflect.TypeOf(spec.File{}) ||
				fd.Name == "Written" && v.Type() == reflect.TypeOf(spec.Field{}) {
				continue
			}
			fmt.Fprintf(b, "%s  %s: ", ind, fd.Name)
			dumpValue(b, v.Field(i), depth+1)
		}
		fmt.Fprintf(b, "%s}\n", ind)
	case reflect.Slice:
		if v.Len() == 0 {
			b.WriteString("[]\n")
			return
		}
		b.WriteString("[\n")
		for i := range v.Len() {
			fmt.Fprintf(b, "%s  ", ind)
			dumpValue(b, v.Index(i), depth+1)
		}
		fmt.Fprintf(b, "%s]\n", ind)
	case reflect.String:
		fmt.Fprintf(b, "%q\n", v.String())
	default:
		if s, ok := v.Interface().(fmt.Stringer); ok && v.Kind() == reflect.Int {
			fmt.Fprintf(b, "%v (%d)\n", s, v.Int())
			return
		}
		fmt.Fprintf(b, "%v\n", v.Interface())
	}
}
