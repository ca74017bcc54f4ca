package jsonkeys

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

func TestDuplicate(t *testing.T) {
	many := func(dupAt int) string { // an object past linearKeys, its map in use
		var b strings.Builder
		b.WriteString(`{`)
		for i := range 40 {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		fmt.Fprintf(&b, `"k%d":0}`, dupAt)
		return b.String()
	}
	for _, c := range []struct {
		text, path, key string
	}{
		{`{"a":1,"a":2}`, "", "a"},
		{`{"params":{"inputResponses":{"confirm":{"action":"decline"},"confirm":{"action":"accept"}}}}`, ".params.inputResponses", "confirm"},
		{`{"params":{"inputResponses":{"c":{"action":"accept","content":{"ok":false,"ok":true}}}}}`, ".params.inputResponses.c.content", "ok"},
		{`{"params":{"arguments":{"items":[{"x":1},{"y":1,"y":2}]}}}`, ".params.arguments.items[1]", "y"},
		{`[[],[{"a":[1,{"b":0}],"a":0}]]`, "[1][0]", "a"},
		{`{"a.b":{"k":1,"k":2}}`, `["a.b"]`, "k"},
		{`{"io.modelcontextprotocol/x":{"\u006b":1,"k":2}}`, `["io.modelcontextprotocol/x"]`, "k"},
		{`{"\ud83d\ude00":1,"😀":2}`, "", "😀"},
		{"{\"\xff\":1,\"\xfe\":2}", "", "\uFFFD"}, // encoding/json reads both as U+FFFD
		{` { "a" : { } , "b" : [ ] , "a" : null } `, "", "a"},
		{`{"s":"\"a\":1,\"a\":2","t":"\\","t":1}`, "", "t"},
		{many(7), "", "k7"},
		{many(39), "", "k39"},
		{`{"x":` + many(3) + `}`, ".x", "k3"},
		// no duplicate
		{`{"a":1,"b":{"a":1},"c":[{"a":1},{"a":2}]}`, "", ""},
		{`{"s":"\"a\":1,\"a\":2"}`, "", ""},
		{`{"A":1,"a":2}`, "", ""}, // keys are case-sensitive (a map is)
		{many(40), "", ""},
		{`"just a string"`, "", ""},
		{`[]`, "", ""},
		{``, "", ""},
	} {
		found, dup := Duplicate([]byte(c.text))
		if dup != (c.key != "") || found.Path != c.path || found.Key != c.key {
			t.Errorf("Duplicate(%.60s) = %+v, %v; want {Path:%s Key:%s}", c.text, found, dup, c.path, c.key)
		}
		if ref, refDup, err := reference([]byte(c.text)); err == nil && (ref != found || refDup != dup) {
			t.Errorf("reference(%.60s) = %+v, %v; Duplicate says %+v, %v", c.text, ref, refDup, found, dup)
		}
	}
}

// TestDuplicateDeep: nesting past MaxDepth is given up on (the decoder
// refuses it), not followed into a stack overflow.
func TestDuplicateDeep(t *testing.T) {
	deep := strings.Repeat(`{"a":`, MaxDepth+5) + `{"b":1,"b":2}` + strings.Repeat(`}`, MaxDepth+5)
	if found, dup := Duplicate([]byte(deep)); dup {
		t.Errorf("Duplicate(too deep) = %+v, want none", found)
	}
	ok := strings.Repeat(`[`, MaxDepth-1) + `{"b":1,"b":2}` + strings.Repeat(`]`, MaxDepth-1)
	if found, dup := Duplicate([]byte(ok)); !dup || found.Key != "b" {
		t.Errorf("Duplicate(deep) = %+v, %v; want key b", found, dup)
	}
}

// FuzzDuplicate checks that Duplicate never panics, agrees with a
// reference walk of encoding/json's tokens on every valid text, and that
// a text it finds no duplicate in keeps every key when decoded into maps.
func FuzzDuplicate(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"a":2}`, `{"a":{"b":[1,{"c":1,"c":2}]}}`, `{"\u0061":1,"a":1}`, `[{"x":"\\\"","x":0}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"ticketId":"1"},"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}},"requestState":"abc","_meta":{"progressToken":1}}}`,
		`{"a":"}","b":"{","a":"]"}`, `{"":1,"":2}`, `{"a":1e5,"b":-0.5,"c":true,"d":null,"b":false}`, "{\"\xff\":1,\"\xfe\":2}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		found, dup := Duplicate(data)
		if !json.Valid(data) {
			return
		}
		ref, refDup, err := reference(data)
		if err != nil {
			t.Fatalf("reference on a valid text: %v", err)
		}
		if ref != found || refDup != dup {
			t.Fatalf("Duplicate(%q) = %+v, %v; reference %+v, %v", data, found, dup, ref, refDup)
		}
		if keys, kept := countKeys(t, data); !dup && keys != kept {
			t.Fatalf("Duplicate(%q) found none, but decoding into maps keeps %d of %d keys", data, kept, keys)
		}
	})
}

// reference finds the first duplicate key with encoding/json's tokenizer
// and a map per object.
func reference(data []byte) (Found, bool, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // a number past float64 is still valid JSON
	found, dup, err := refValue(dec, "")
	if err != nil || dup {
		return found, dup, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Found{}, false, fmt.Errorf("trailing data: %w", err)
	}
	return Found{}, false, nil
}

func refValue(dec *json.Decoder, path string) (Found, bool, error) {
	tok, err := dec.Token()
	if err != nil {
		return Found{}, false, err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return Found{}, false, err
			}
			k := kt.(string)
			if seen[k] {
				return Found{Path: path, Key: k}, true, nil
			}
			seen[k] = true
			if found, dup, err := refValue(dec, path+refKey(k)); err != nil || dup {
				return found, dup, err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if found, dup, err := refValue(dec, path+"["+strconv.Itoa(i)+"]"); err != nil || dup {
				return found, dup, err
			}
		}
		_, err = dec.Token()
	}
	return Found{}, false, err
}

func refKey(k string) string {
	var b strings.Builder
	writeKey(&b, []byte(k))
	return b.String()
}

// countKeys counts the keys of every object of data as written (tokens)
// and as kept by decoding into maps.
func countKeys(t *testing.T, data []byte) (written, kept int) {
	type open struct{ object, wantKey bool }
	var stack []open
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey && tok != json.Delim('}') {
			written++
			stack[n-1].wantKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, open{object: true, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, open{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if n := len(stack); n > 0 && stack[n-1].object { // a member's value ended
			stack[n-1].wantKey = true
		}
	}
	var v any
	full := json.NewDecoder(bytes.NewReader(data))
	full.UseNumber()
	if err := full.Decode(&v); err != nil {
		t.Fatalf("decoding a valid text: %v", err)
	}
	return written, mapKeys(v)
}

func mapKeys(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		n += len(v)
		for _, e := range v {
			n += mapKeys(e)
		}
	case []any:
		for _, e := range v {
			n += mapKeys(e)
		}
	}
	return n
}

// BenchmarkDuplicate checks the body of a final round as a 2026-07-28
// client sends it (close_support_ticket: arguments, one answer, a
// requestState of 600 bytes, _meta); envelope-unmarshal is what Handler
// already did with the same bytes (finding params._meta), for scale.
//
//	go test ./mrtr/internal/jsonkeys -run '^$' -bench BenchmarkDuplicate
func BenchmarkDuplicate(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"close_support_ticket","arguments":{"ticketId":"500001"},` +
		`"inputResponses":{"reason":{"action":"accept","content":{"closeReason":"resolved","comment":"Replaced the toner cartridge."}}},` +
		`"requestState":"` + strings.Repeat("AbCdEfGh-_", 60) + `",` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`)
	b.Run("duplicate", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if _, dup := Duplicate(body); dup {
				b.Fatal("duplicate")
			}
		}
	})
	b.Run("envelope-unmarshal", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			var msg struct {
				Params struct {
					Meta map[string]json.RawMessage `json:"_meta"`
				} `json:"params"`
			}
			if err := json.Unmarshal(body, &msg); err != nil {
				b.Fatal(err)
			}
		}
	})
}
