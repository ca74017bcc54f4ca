package mrtr_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// serveReports serves testprog's multi-round resource region_report, with
// the engine's completions, and a SetCacheable that would cache every read.
func serveReports(t *testing.T) (string, *testprog.RegionReportImpl) {
	t.Helper()
	clock := mrtrtest.NewClock()
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "http-test", Codec: mrtrtest.NewCodec(t, clock), Logger: quiet,
		Store: store.NewMemory(store.Options{Now: clock.Now})})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "http-test", Version: "test"}, &mcp.ServerOptions{
		CompletionHandler: e.Complete,
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) {
			c.TTLMs, c.CacheScope = 60000, "public"
		},
	})
	impl := &testprog.RegionReportImpl{}
	testprog.RegisterRegionReport(s, e, impl)
	ts := httptest.NewServer(mrtr.Handler(s, nil))
	t.Cleanup(ts.Close)
	return ts.URL, impl
}

const readMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

type readReply struct {
	Result map[string]json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func read(t *testing.T, url, uri, extra string) readReply {
	t.Helper()
	resp := post(t, url, "resources/read", uri, `{"uri":"`+uri+`"`+extra+`,`+readMeta+`}`)
	defer resp.Body.Close()
	var r readReply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

// A resource asks before it is read (input_required on resources/read);
// the interim result carries no caching hints although SetCacheable
// would put them on, and the final result of the retried read says it
// must not be cached. A replay of the final round returns the recorded
// contents: the chart first drawn, even when the handler draws another
// (a round with a sealed continuation may run its states again before it
// finds its record).
func TestMultiRoundResourceRead(t *testing.T) {
	url, impl := serveReports(t)
	r1 := read(t, url, "reports://emea/summary", "")
	if r1.Error != nil || string(r1.Result["resultType"]) != `"input_required"` {
		t.Fatalf("round 1: %+v %v", r1.Result, r1.Error)
	}
	for _, k := range []string{"ttlMs", "cacheScope"} {
		if v, ok := r1.Result[k]; ok {
			t.Errorf("input_required result carries %s: %s", k, v)
		}
	}
	var state string
	if err := json.Unmarshal(r1.Result["requestState"], &state); err != nil || state == "" {
		t.Fatalf("requestState %s: %v", r1.Result["requestState"], err)
	}
	answer := `,"requestState":"` + state + `","inputResponses":{"format":{"action":"accept","content":{"kind":"chart"}}}`
	r2 := read(t, url, "reports://emea/summary", answer)
	if r2.Error != nil || string(r2.Result["resultType"]) == `"input_required"` {
		t.Fatalf("round 2: %+v %v", r2.Result, r2.Error)
	}
	if string(r2.Result["ttlMs"]) != "0" || string(r2.Result["cacheScope"]) != `"private"` {
		t.Errorf("a retried read's result: ttlMs %s cacheScope %s, want 0 and private", r2.Result["ttlMs"], r2.Result["cacheScope"])
	}
	var contents []struct {
		URI, MimeType, Text, Blob string
	}
	if err := json.Unmarshal(r2.Result["contents"], &contents); err != nil || len(contents) != 2 {
		t.Fatalf("contents %s: %v", r2.Result["contents"], err)
	}
	if c := contents[0]; c.URI != "reports://emea/summary" || c.MimeType != "text/plain" || c.Text != "Report of emea (chart)" {
		t.Errorf("text contents %+v", c)
	}
	if c := contents[1]; c.URI != "reports://emea/chart.png" || c.MimeType != "image/png" || c.Blob == "" || c.Text != "" {
		t.Errorf("blob contents %+v", c)
	}
	// The same round again is a replay: the same contents.
	r3 := read(t, url, "reports://emea/summary", answer)
	if string(r3.Result["contents"]) != string(r2.Result["contents"]) || impl.Charts() < 1 {
		t.Errorf("replay: contents %s (want %s), %d charts drawn", r3.Result["contents"], r2.Result["contents"], impl.Charts())
	}
}

// A requestState is bound to the URI read: replayed against another
// region, another method or another resource, it is refused (-32602),
// never continued.
func TestResourceStateIsBoundToTheURI(t *testing.T) {
	url, _ := serveReports(t)
	r1 := read(t, url, "reports://emea/summary", "")
	var state string
	if err := json.Unmarshal(r1.Result["requestState"], &state); err != nil || state == "" {
		t.Fatalf("round 1: %+v", r1.Result)
	}
	answer := `,"requestState":"` + state + `","inputResponses":{"format":{"action":"accept","content":{"kind":"text"}}}`
	r := read(t, url, "reports://west/summary", answer)
	if r.Error == nil || r.Error.Code != -32602 {
		t.Fatalf("state of emea read for west: %+v %+v", r.Result, r.Error)
	}
	if strings.Contains(string(r.Result["contents"]), "west") {
		t.Fatalf("the state was continued for another URI: %s", r.Result["contents"])
	}
}

// A URI that the template does not match is not found; a variable that
// fails its constraints is invalid params.
func TestResourceURIsOutsideTheTemplate(t *testing.T) {
	url, _ := serveReports(t)
	if r := read(t, url, "reports://emea/other", ""); r.Error == nil {
		t.Errorf("reports://emea/other: %+v", r.Result)
	}
	if r := read(t, url, "reports://EMEA-1/summary", ""); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("a region outside its pattern: %+v %+v", r.Result, r.Error)
	}
}

// completion/complete offers the spec's values that start with what was
// typed, for the resource template's variable; other references and
// arguments get none.
func TestCompletionsOfATemplateVariable(t *testing.T) {
	url, _ := serveReports(t)
	complete := func(ref, arg, value string) []string {
		t.Helper()
		resp := post(t, url, "completion/complete", "", `{"ref":`+ref+`,"argument":{"name":"`+arg+`","value":"`+value+`"},`+readMeta+`}`)
		defer resp.Body.Close()
		var r struct {
			Result struct {
				Completion struct {
					Values []string `json:"values"`
				} `json:"completion"`
			} `json:"result"`
			Error any `json:"error"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Error != nil {
			t.Fatalf("completion/complete: %v %v", err, r.Error)
		}
		return r.Result.Completion.Values
	}
	tpl := `{"type":"ref/resource","uri":"reports://{region}/summary"}`
	if got := complete(tpl, "region", "E"); strings.Join(got, ",") != "emea,east" {
		t.Errorf("region E: %v, want [emea east]", got)
	}
	if got := complete(tpl, "region", ""); len(got) != 3 {
		t.Errorf("region empty: %v, want all three", got)
	}
	if got := complete(tpl, "other", "e"); len(got) != 0 {
		t.Errorf("an argument without completions: %v", got)
	}
	if got := complete(`{"type":"ref/prompt","name":"nothing"}`, "x", ""); len(got) != 0 {
		t.Errorf("an unknown prompt: %v", got)
	}
}
