package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"testing"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/encoding/protojson"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
)

// cannedREST is the canned-answer floor of bench/internal/floors
// (CannedREST, which this module cannot import): it reads the body and
// writes the answer errsvc gives for its source, behind the same handler
// (mux, body limit, concurrency limit, metrics, logging) as Translate.
type cannedREST struct{ json [][]byte }

const cannedPath = "/v1/bench/canned"

var cannedKeys = [][]byte{[]byte(`"labby_error"`), []byte(`"agent_error"`), []byte(`"classified_error"`), []byte(`"mcp_tool_result"`)}

func newCannedREST(tb testing.TB) *cannedREST {
	c := &cannedREST{}
	for _, s := range perCallSources {
		req := &errsvcv1.TranslateRequest{}
		if err := protojson.Unmarshal([]byte("{"+s+"}"), req); err != nil {
			tb.Fatal(err)
		}
		resp, err := translate.Translate(req)
		if err != nil {
			tb.Fatal(err)
		}
		j, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(resp)
		if err != nil {
			tb.Fatal(err)
		}
		c.json = append(c.json, j)
	}
	return c
}

func (c *cannedREST) register(mux *runtime.ServeMux) error {
	return mux.HandlePath(http.MethodPost, cannedPath, func(w http.ResponseWriter, r *http.Request, _ map[string]string) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "body", http.StatusRequestEntityTooLarge)
			return
		}
		answer := c.json[len(c.json)-1]
		for i, k := range cannedKeys {
			if bytes.Contains(body, k) {
				answer = c.json[i]
				break
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	})
}

// discardWriter is a ResponseWriter that keeps the status and drops the
// body, reused between calls (its header map is cleared), so the benchmark
// measures the handler, not a recorder.
type discardWriter struct {
	h    http.Header
	code int
	n    int
}

func (d *discardWriter) Header() http.Header { return d.h }

// The connection's deadlines, as http.ResponseController sets them.
func (*discardWriter) SetReadDeadline(time.Time) error  { return nil }
func (*discardWriter) SetWriteDeadline(time.Time) error { return nil }
func (d *discardWriter) WriteHeader(code int) {
	if d.code == 0 {
		d.code = code
	}
}
func (d *discardWriter) Write(p []byte) (int, error) {
	if d.code == 0 {
		d.code = http.StatusOK
	}
	d.n += len(p)
	return len(p), nil
}

// BenchmarkRESTHandler is the server's own cost of one cold REST call in
// process (no network, no client): POST /v1/translate against the
// canned-answer floor (route=canned) behind the same handler, at errsvc's
// GC target. The difference is what Translate costs beyond carrying the
// JSON: the gateway's generated handler, decoding, translating, encoding,
// the answer cache's miss.
//
//	go test ./server -run '^$' -bench BenchmarkRESTHandler -benchmem -count 5
func BenchmarkRESTHandler(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(DefaultGCPercent))
	quiet := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	canned := newCannedREST(b)
	h, err := NewHTTPHandler(context.Background(), Options{Logger: quiet, RegisterGateway: canned.register})
	if err != nil {
		b.Fatal(err)
	}
	bodies := make([][]byte, perCallPool)
	for i := range bodies {
		bodies[i] = []byte(coldBody(i))
	}
	for _, path := range []string{"/v1/translate", cannedPath} {
		name := "route=translate"
		if path == cannedPath {
			name = "route=canned"
		}
		b.Run(name, func(b *testing.B) {
			tmpl, err := http.NewRequest(http.MethodPost, "http://127.0.0.1"+path, nil)
			if err != nil {
				b.Fatal(err)
			}
			tmpl.Header.Set("Content-Type", "application/json")
			tmpl.Header.Set("User-Agent", "wrk")
			tmpl.RemoteAddr = "127.0.0.1:40000"
			w := &discardWriter{h: make(http.Header)}
			var body bytes.Reader
			n := 0
			b.ReportAllocs()
			for b.Loop() {
				n++
				data := bodies[n%perCallPool]
				body.Reset(data)
				r := *tmpl
				r.Body = io.NopCloser(&body)
				r.ContentLength = int64(len(data))
				clear(w.h)
				w.code = 0
				h.ServeHTTP(w, &r)
				if w.code != http.StatusOK {
					b.Fatalf("HTTP %d", w.code)
				}
			}
		})
	}
}
