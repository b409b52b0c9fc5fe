package codec_test

import (
	"encoding/json"
	"testing"

	"google.golang.org/protobuf/proto"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/errsvc/errsvc/codec"
	"github.com/errsvc/errsvc/codec/errjson"
	"github.com/errsvc/errsvc/codec/jsonwire"
	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
)

// benchSources are the REST Translate bodies of translate/bench_test.go's
// benchSources (one per source kind), as a client sends them.
var jsonBenchSources = []struct{ name, body string }{
	{"labby", `{"labby_error":{"kind":"rate_limited","message":"slow down"}}`},
	{"agent", `{"agent_error":{"code":"TIMEOUT","message":"timed out","retry":"no","details":{"timeoutMs":30000,"idempotent":false}}}`},
	{"classified", `{"classified_error":{"code":"account_selection_refused","message":"no account","detail":{"routing_code":"account_hold","retry_after_secs":12}}}`},
	{"mcp", `{"mcp_tool_result":{"tool":"github::create_issue","is_error":true,"content":[{"type":"text","text":"{\"kind\":\"upstream_error\",\"message\":\"backend 502\"}"}]}}`},
}

var restOptions = protojson.MarshalOptions{UseProtoNames: true}

// BenchmarkRESTDecode: the request body, as the REST face reads it (after
// codec.CheckJSON, which both pay and is left out).
func BenchmarkRESTDecode(b *testing.B) {
	for _, s := range jsonBenchSources {
		body := []byte(s.body)
		b.Run(s.name+"/openjson", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if err := openjson.Unmarshal(body, &errsvcv1.TranslateRequest{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(s.name+"/errjson", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if err := errjson.Unmarshal(body, &errsvcv1.TranslateRequest{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func jsonAnswer(b testing.TB, body string) *errsvcv1.TranslateResponse {
	req := &errsvcv1.TranslateRequest{}
	if err := openjson.Unmarshal([]byte(body), req); err != nil {
		b.Fatal(err)
	}
	resp, err := translate.Translate(req)
	if err != nil {
		b.Fatal(err)
	}
	return resp
}

// BenchmarkRESTEncode: the full answer to each body, as the REST face
// writes it (the openjson figure is what it cost before: openjson.Marshal
// and the top-level lists pass, which re-reads the answer when notes is
// empty, as it is here for most sources).
func BenchmarkRESTEncode(b *testing.B) {
	for _, s := range jsonBenchSources {
		resp := jsonAnswer(b, s.body)
		b.Run(s.name+"/openjson", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := openjson.Marshal(restOptions, resp)
				if err != nil {
					b.Fatal(err)
				}
				_ = jsonTopLevelLists(out, resp)
			}
		})
		b.Run(s.name+"/errjson", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := errjson.Marshal(errjson.Options{ProtoNames: true, TopLevelLists: true}, resp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRESTRoundTrip: decode of the body plus encode of its answer
// (the codec's share of a REST Translate), with CheckJSON, without the
// translation itself.
func BenchmarkRESTRoundTrip(b *testing.B) {
	for _, s := range jsonBenchSources {
		body := []byte(s.body)
		resp := jsonAnswer(b, s.body)
		b.Run(s.name+"/openjson", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = codec.CheckJSON(body, codec.MaxJSONDepth)
				if err := openjson.Unmarshal(body, &errsvcv1.TranslateRequest{}); err != nil {
					b.Fatal(err)
				}
				out, err := openjson.Marshal(restOptions, resp)
				if err != nil {
					b.Fatal(err)
				}
				_ = jsonTopLevelLists(out, resp)
			}
		})
		b.Run(s.name+"/errjson", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = codec.CheckJSON(body, codec.MaxJSONDepth)
				if err := errjson.Unmarshal(body, &errsvcv1.TranslateRequest{}); err != nil {
					b.Fatal(err)
				}
				if _, err := errjson.Marshal(errjson.Options{ProtoNames: true, TopLevelLists: true}, resp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAnyFallbacksInTypicalAnswers measures the protojson path for Any:
// the answers to the typical bodies carry google.rpc.ErrorInfo (and
// RetryInfo), which are written natively, so it never runs.
func TestAnyFallbacksInTypicalAnswers(t *testing.T) {
	b := t
	before := jsonwire.AnyFallbacks.Load()
	details := 0
	for _, s := range jsonBenchSources {
		resp := jsonAnswer(b, s.body)
		details += len(resp.GetGrpcStatus().GetDetails()) + len(resp.GetError().GetDetails())
		if _, err := errjson.Marshal(errjson.Options{ProtoNames: true}, resp); err != nil {
			t.Fatal(err)
		}
	}
	if details == 0 {
		t.Fatal("no Any in the answers: the measure measures nothing")
	}
	if n := jsonwire.AnyFallbacks.Load() - before; n != 0 {
		t.Errorf("%d of %d Any details went through protojson", n, details)
	}
}

// jsonTopLevelLists is what the REST face did after openjson.Marshal
// before errjson (server/json_lists.go): write the empty top-level lists.
func jsonTopLevelLists(b []byte, m proto.Message) []byte {
	r := m.ProtoReflect()
	var missing []string
	fields := r.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.IsList() && r.Get(fd).List().Len() == 0 {
			missing = append(missing, string(fd.Name()))
		}
	}
	if len(missing) == 0 {
		return b
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(b, &members) != nil || members == nil {
		return b
	}
	for _, name := range missing {
		if _, ok := members[name]; !ok {
			members[name] = json.RawMessage("[]")
		}
	}
	out, _ := json.Marshal(members)
	return out
}
