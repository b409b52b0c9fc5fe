package server

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/errsvc/errsvc/codec"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// wideDetails is a Labby envelope whose details hold n one-byte keys: a
// few bytes of body per value, a few hundred bytes each once decoded.
func wideDetails(n int) string {
	var b strings.Builder
	b.WriteString(`{"labby_error":{"kind":"x","message":"m","detail":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + strconv.Itoa(i) + `":1`)
	}
	b.WriteString(`}}}`)
	return b.String()
}

// A wide request (more JSON values than codec.MaxJSONValues, far under the
// byte limit) is refused before it is decoded, on REST, Connect and gRPC,
// with INVALID_ARGUMENT naming where the limit was passed; the bytes the
// server allocates for the refusal stay a small multiple of the body
// (decoded, 419,000 keys took about 150 MiB). A batch cannot spread the
// values over its items: the limit is the request's.
func TestWideJSONIsRefusedBeforeDecoding(t *testing.T) {
	r := start(t, Options{MaxRequestBytes: 4 << 20})
	body := wideDetails(codec.MaxJSONValues + 10)
	measure := func(name string, send func() (int, string)) {
		t.Helper()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code, answer := send()
		runtime.ReadMemStats(&after)
		if code != int(codes.InvalidArgument) || !strings.Contains(answer, "65536 values") {
			t.Errorf("%s: code %d %.300s; want INVALID_ARGUMENT naming the value limit", name, code, answer)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(16*len(body)) {
			t.Errorf("%s: refusing a %d-byte wide body allocated %d bytes (more than 16× the body; decoded, it takes about 36×): it was decoded", name, len(body), alloc)
		} else {
			t.Logf("%s: refused, %d bytes allocated for a %d-byte body", name, alloc, len(body))
		}
	}
	post := func(path, body string, connectProto bool) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, r.base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		switch {
		case connectProto && strings.Contains(string(b), `"invalid_argument"`):
			return int(codes.InvalidArgument), string(b)
		case strings.Contains(string(b), `"code":3`):
			return int(codes.InvalidArgument), string(b)
		}
		return resp.StatusCode, string(b)
	}
	measure("REST", func() (int, string) { return post("/v1/translate", body, false) })
	measure("Connect", func() (int, string) {
		return post("/errsvc.v1.TranslationService/Translate", body, true)
	})
	items := make([]string, 200)
	for i := range items {
		items[i] = wideDetails(400)
	}
	batch := `{"requests":[` + strings.Join(items, ",") + `]}`
	measure("REST batch of 200 items of 400 values", func() (int, string) { return post("/v1/translate:batch", batch, false) })
	details := map[string]any{}
	for i := 0; i < codec.MaxJSONValues+10; i++ {
		details[strconv.Itoa(i)] = 1
	}
	st, err := structpb.NewStruct(details)
	if err != nil {
		t.Fatal(err)
	}
	wide := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
		LabbyError: &errsvcv1.LabbyError{Kind: "x", Message: "m", Detail: st}}}
	wideBytes, _ := proto.Marshal(wide)
	measure("gRPC", func() (int, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// Sent as its encoding, so the client's own marshalling is not
		// counted.
		var out []byte
		err := r.conn.Invoke(ctx, errsvcv1.TranslationService_Translate_FullMethodName, wideBytes, &out, grpc.ForceCodec(rawCodec{}))
		s := status.Convert(err)
		return int(s.Code()), s.Message() + " " + strings.Join(violations(s), " ")
	})
	// Counted under json_values on REST (twice), Connect and gRPC.
	if _, missing := r.metricsHolding(t, `errsvc_limit_exceeded_total{limit="json_values"} 4`); len(missing) > 0 {
		t.Errorf("/metrics does not count the REST, Connect and gRPC refusals under json_values")
	}
}

func violations(s *status.Status) []string {
	var out []string
	if v := fieldViolation(s); v != nil {
		out = append(out, v.GetField()+": "+v.GetDescription())
	}
	return out
}
