// Hand-written tests of the generated code of this case, run next to it
// by TestGoldenCompile: every constraint of the form is enforced, defaults
// are applied, and the continuation codec round-trips.
package survey

import (
	"context"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"
)

// validForm answers every field.
func validForm() map[string]any {
	return map[string]any{
		"nickname": "Ada", "code": "AB-123", "email": "ada@example.com", "homepage": "https://example.com",
		"birthday": "1990-12-31", "lastSeen": "2026-01-02T03:04:05Z", "rating": 4.5, "weight": -3.25,
		"age": int64(18), "visits": int64(0), "newsletter": true, "vip": false, "color": "blue", "size": "xl",
		"channels": []any{"mail", "chat"}, "topics": []any{"billing", "other", "returns"},
	}
}

func TestFormConstraints(t *testing.T) {
	p := runSurveyProgram{}
	ctx := context.Background()
	if a, problems, _ := p.decodeForm(ctx, validForm()); len(problems) > 0 {
		t.Fatalf("a valid form: %v", problems)
	} else if a.Nickname != "Ada" || a.Size == nil || *a.Size != RunSurveySizeXl || len(a.Channels) != 2 || a.Vip == nil || *a.Vip {
		t.Fatalf("decoded %+v", a)
	}
	for _, tc := range []struct {
		field string
		value any // nil: leave the field out
		want  string
	}{
		{"nickname", "A", "nickname: at least 2 characters (got 1)"},
		{"nickname", strings.Repeat("é", 31), "nickname: at most 30 characters (got 31)"},
		{"nickname", nil, "nickname: required"},
		{"nickname", 7, "nickname: expected a string"},
		{"code", "ab-123", "code: must match [A-Z]{2}-[0-9]{3}"},
		{"code", "AB-1234", "code: must match"},
		{"code", "xAB-123", "code: must match"},
		{"email", "not an address", "email: must be a valid email"},
		{"email", "Ada <ada@example.com>", "email: must be a valid email"},
		{"homepage", "example.com/no-scheme", "homepage: must be a valid uri"},
		{"birthday", "1990-13-01", "birthday: must be a valid date"},
		{"birthday", "2000-01-01 ", "birthday: at most 10 characters (got 11); birthday: must be a valid date"},
		{"lastSeen", "2026-01-02 03:04:05", "lastSeen: must be a valid date-time"},
		{"rating", 0.49, "rating: at least 0.5"},
		{"rating", 4.51, "rating: at most 4.5"},
		{"rating", "high", "rating: expected a number"},
		{"age", int64(17), "age: at least 18"},
		{"age", int64(131), "age: at most 130"},
		{"age", 18.5, "age: expected an integer"},
		{"age", nil, "age: required"},
		{"visits", int64(-1), "visits: at least 0"},
		{"newsletter", "yes", "newsletter: expected true or false"},
		{"color", "purple", "color: must be one of red, green, blue"},
		{"size", "xxl", "size: must be one of s, m, l, xl"},
		{"channels", []any{}, "channels: choose at least 1"},
		{"channels", []any{"mail", "phone", "chat"}, "channels: choose at most 2"},
		{"channels", []any{"fax"}, "channels[]: must be one of mail, phone, chat"},
		{"channels", []any{1}, "channels[0]: expected a string"},
		{"channels", "mail", "channels: expected a list"},
		{"topics", []any{"billing", "shipping", "returns", "other"}, "topics: choose at most 3"},
		{"topics", []any{"weather"}, "topics[]: must be one of billing, shipping, returns, other"},
		{"weight", "heavy", "weight: expected a number"},
	} {
		form := validForm()
		if tc.value == nil {
			delete(form, tc.field)
		} else {
			form[tc.field] = tc.value
		}
		_, problems, _ := p.decodeForm(ctx, form)
		if got := strings.Join(problems, "; "); !strings.HasPrefix(got, tc.want) || strings.Count(got, ";") != strings.Count(tc.want, ";") {
			t.Errorf("%s = %#v: problems %q, want %q", tc.field, tc.value, got, tc.want)
		}
	}
}

func TestFormDefaults(t *testing.T) {
	form := validForm()
	for _, k := range []string{"birthday", "rating", "visits", "newsletter", "color", "channels", "vip", "size", "topics", "weight", "homepage", "lastSeen"} {
		delete(form, k)
	}
	a, problems, _ := runSurveyProgram{}.decodeForm(context.Background(), form)
	if len(problems) > 0 {
		t.Fatalf("problems %v", problems)
	}
	want := RunSurveyFormAnswer{
		Nickname: "Ada", Code: "AB-123", Email: "ada@example.com", Age: 18,
		Birthday: "2000-01-01", Rating: 2.5, Visits: 3, Newsletter: false, Color: RunSurveyColorGreen,
		Channels: []RunSurveyChannels{RunSurveyChannelsMail},
	}
	if !reflect.DeepEqual(*a, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", *a, want)
	}
}

func TestContinuationRoundTrip(t *testing.T) {
	p := runSurveyProgram{}
	a, problems, _ := p.decodeForm(context.Background(), validForm())
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	for _, f := range []*RunSurveyFlow{
		{},
		{Continuation: RunSurveyContinuation{CustomerName: "Grace Hopper ✓"}},
		{Continuation: RunSurveyContinuation{CustomerName: "x"}, Form: a},
		{Form: &RunSurveyFormAnswer{}},
	} {
		data := p.AppendContinuation(nil, f)
		got := &RunSurveyFlow{}
		if err := p.LoadContinuation(got, data); err != nil {
			t.Fatalf("LoadContinuation: %v", err)
		}
		if !reflect.DeepEqual(got.Continuation, f.Continuation) || !reflect.DeepEqual(got.Form, f.Form) {
			t.Errorf("round trip:\n got %+v %+v\nwant %+v %+v", got.Continuation, got.Form, f.Continuation, f.Form)
		}
		ends := entryEnds(data)
		for n := range len(data) {
			if err := p.LoadContinuation(&RunSurveyFlow{}, data[:n]); (err == nil) != ends[n] {
				t.Errorf("truncated to %d of %d bytes (between entries: %t): %v", n, len(data), ends[n], err)
			}
		}
		if err := p.LoadContinuation(&RunSurveyFlow{}, append(data, 0)); err == nil {
			t.Error("a trailing byte: no error")
		}
	}
}

func TestArgumentPattern(t *testing.T) {
	p := runSurveyProgram{}
	for raw, want := range map[string]string{
		`{"customerId": "c-1"}`:                   "",
		`{"customerId": "c-"}`:                    "customerId: must match c-[0-9]+",
		`{"customerId": "c-1234567890123456789"}`: "customerId: at most 20 characters (got 21)",
		`{}`:                                "customerId: required",
		`{"customerId": "c-1", "extra": 1}`: "extra: unknown argument",
		`[1]`:                               "arguments must be a JSON object",
	} {
		_, err := p.NewFlow(context.Background(), nil, []byte(raw))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", raw, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %q", raw, err, want)
		}
	}
}

// entryEnds are the offsets in data at which a top-level tagged entry
// (key(4) | kind(1) | length | payload) ends: cut there, a continuation
// reads fewer values; cut anywhere else, it is corrupt.
func entryEnds(data []byte) map[int]bool {
	ends := map[int]bool{0: true}
	for i := 0; i+5 <= len(data); {
		n, w := binary.Uvarint(data[i+5:])
		if w <= 0 {
			break
		}
		i += 5 + w + int(n)
		ends[i] = true
	}
	return ends
}
