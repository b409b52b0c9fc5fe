package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	grpcgzip "google.golang.org/grpc/encoding/gzip"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/gen/errsvc/v1/errsvcv1connect"
	"github.com/errsvc/errsvc/internal/golden"
)

// connectProtocols are the ways a connect-go client can call the HTTP port
// over HTTP/1.1: Connect with binary and with JSON messages, and gRPC-Web.
var connectProtocols = map[string][]connect.ClientOption{
	"connect": nil,
	// The answer's additive members are members of their objects, as on
	// REST; a plain protojson client drops them, so this one reads them
	// back with codec/openjson, as a REST client in Go would.
	"connect-json": {connect.WithCodec(connectJSON{"json", newRESTJSON(0)})},
	"grpcweb":      {connect.WithGRPCWeb()},
	"grpcweb-gzip": {connect.WithGRPCWeb(), connect.WithSendGzip()},
}

func connectClients(r *running) map[string]errsvcv1connect.TranslationServiceClient {
	out := map[string]errsvcv1connect.TranslationServiceClient{}
	for name, opts := range connectProtocols {
		out[name] = errsvcv1connect.NewTranslationServiceClient(http.DefaultClient, r.base, opts...)
	}
	return out
}

// Every golden vector over Connect and gRPC-Web on the HTTP port answers
// what gRPC answers: the same message, or the same INVALID_ARGUMENT naming
// the same field.
func TestGoldenVectorsOverConnectAndGRPCWeb(t *testing.T) {
	dir, err := golden.Dir()
	if err != nil {
		t.Fatal(err)
	}
	vectors, err := golden.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := start(t, Options{})
	clients := connectClients(r)
	ctx := context.Background()
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			if v.Error != nil {
				// Malformed JSON cannot be built as a message: it goes as
				// the body of a Connect JSON call.
				code, body := r.post(t, errsvcv1connect.TranslationServiceTranslateProcedure, string(v.Request))
				if code != http.StatusBadRequest {
					t.Fatalf("Connect: HTTP %d: %s", code, body)
				}
				if f := connectViolation(t, body).GetField(); f != v.Error.Field {
					t.Errorf("Connect violation names %q, want %q", f, v.Error.Field)
				}
				return
			}
			req := &errsvcv1.TranslateRequest{}
			decodeJSON(t, v.Request, req)
			want, err := r.client.Translate(ctx, req)
			if err != nil {
				t.Fatalf("gRPC: %v", err)
			}
			for name, c := range clients {
				got, err := c.Translate(ctx, req)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
					t.Errorf("%s answer differs from gRPC (-gRPC +%s):\n%s", name, name, diff)
				}
			}
		})
	}
}

// connectViolation reads the BadRequest of a Connect JSON error body.
func connectViolation(t *testing.T, body []byte) *errdetails.BadRequest_FieldViolation {
	t.Helper()
	var e struct {
		Code    string `json:"code"`
		Details []struct {
			Type  string `json:"type"`
			Value string `json:"value"`
		} `json:"details"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("Connect error body: %v: %s", err, body)
	}
	if e.Code != "invalid_argument" {
		t.Fatalf("Connect error code %q, want invalid_argument", e.Code)
	}
	for _, d := range e.Details {
		if d.Type != "google.rpc.BadRequest" {
			continue
		}
		raw, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(d.Value, "="))
		if err != nil {
			t.Fatal(err)
		}
		var br errdetails.BadRequest
		if err := proto.Unmarshal(raw, &br); err != nil {
			t.Fatal(err)
		}
		if len(br.GetFieldViolations()) > 0 {
			return br.GetFieldViolations()[0]
		}
	}
	t.Fatalf("no BadRequest in %s", body)
	return nil
}

// The other unary RPCs answer the same over every protocol, and a batch of
// nothing is an empty list, written as one in JSON.
func TestConnectUnaryRPCsMatchGRPC(t *testing.T) {
	r := start(t, Options{})
	ctx := context.Background()
	batch := &errsvcv1.TranslateBatchRequest{Requests: []*errsvcv1.TranslateRequest{validRequest(), {}, validRequest()}}
	wantBatch, err := r.client.TranslateBatch(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	wantVocab, err := r.client.ListVocabularies(ctx, &errsvcv1.ListVocabulariesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range connectClients(r) {
		got, err := c.TranslateBatch(ctx, batch)
		if err != nil {
			t.Fatalf("%s batch: %v", name, err)
		}
		if diff := cmp.Diff(wantBatch, got, protocmp.Transform()); diff != "" {
			t.Errorf("%s batch differs:\n%s", name, diff)
		}
		vocab, err := c.ListVocabularies(ctx, &errsvcv1.ListVocabulariesRequest{})
		if err != nil {
			t.Fatalf("%s vocabularies: %v", name, err)
		}
		if diff := cmp.Diff(wantVocab, vocab, protocmp.Transform()); diff != "" {
			t.Errorf("%s vocabularies differ:\n%s", name, diff)
		}
	}
	for _, path := range []string{"/v1/translate:batch", errsvcv1connect.TranslationServiceTranslateBatchProcedure} {
		code, body := r.post(t, path, `{}`)
		if code != http.StatusOK || strings.TrimSpace(string(body)) != `{"responses":[]}` {
			t.Errorf("%s of nothing: HTTP %d %s, want {\"responses\":[]}", path, code, body)
		}
	}
}

// Connect calls go through the same limits as gRPC and REST, and are
// counted and logged under their own transport label.
func TestConnectLimitsMetricsAndLogs(t *testing.T) {
	hook := newBlocking()
	r := start(t, Options{MaxConcurrentRequests: 1, MaxRequestBytes: 4 << 10, translate: hook.translate})
	t.Cleanup(hook.open)
	ctx := context.Background()
	clients := connectClients(r)

	big := validRequest()
	big.GetLabbyError().Message = strings.Repeat("x", 5<<10)
	// The hook holds every translation: a request the limit let through
	// would wait, so it fails on this deadline instead.
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for name, c := range clients {
		_, err := c.Translate(short, big)
		if connect.CodeOf(err) != connect.CodeResourceExhausted {
			t.Fatalf("%s over the byte limit: %v, want resource_exhausted", name, err)
		}
		if f := connectDetailViolation(t, err); f != "body" {
			t.Errorf("%s over the byte limit names %q, want body", name, f)
		}
	}

	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := r.client.Translate(ctx, validRequest()); err != nil {
			t.Errorf("held gRPC call: %v", err)
		}
	})
	hook.waitInside(t, 1)
	// As above: a call the limit let through would wait on the hook.
	held, cancelHeld := context.WithTimeout(ctx, 5*time.Second)
	defer cancelHeld()
	for name, c := range clients {
		_, err := c.Translate(held, validRequest())
		if connect.CodeOf(err) != connect.CodeResourceExhausted {
			t.Fatalf("%s over the concurrency limit: %v, want resource_exhausted", name, err)
		}
		var ce *connect.Error
		errors.As(err, &ce)
		var subject string
		for _, d := range ce.Details() {
			if m, err := d.Value(); err == nil {
				if q, ok := m.(*errdetails.QuotaFailure); ok && len(q.GetViolations()) > 0 {
					subject = q.GetViolations()[0].GetSubject()
				}
			}
		}
		if subject != quotaConcurrentRequests {
			t.Errorf("%s: QuotaFailure subject %q", name, subject)
		}
	}
	hook.open()
	wg.Wait()
	if _, err := clients["connect"].Translate(ctx, validRequest()); err != nil {
		t.Fatal(err)
	}
	if _, err := clients["grpcweb"].ListVocabularies(ctx, &errsvcv1.ListVocabulariesRequest{}); err != nil {
		t.Fatal(err)
	}
	_, missing := r.metricsHolding(t,
		`errsvc_requests_total{code="OK",rpc="/errsvc.v1.TranslationService/Translate",transport="connect"} 1`,
		`errsvc_requests_total{code="OK",rpc="/errsvc.v1.TranslationService/ListVocabularies",transport="grpcweb"} 1`,
		`errsvc_requests_total{code="ResourceExhausted",rpc="/errsvc.v1.TranslationService/Translate",transport="grpcweb"} 4`,
		`errsvc_limit_exceeded_total{limit="concurrent_requests"} 4`,
		`errsvc_in_flight_requests 0`,
	)
	for _, want := range missing {
		t.Errorf("/metrics lacks %s", want)
	}
	logs := r.logs.String()
	for _, want := range []string{`"transport":"connect"`, `"transport":"grpcweb"`, `"limit":"concurrent_requests"`, `"limit":"request_bytes"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %s", want)
		}
	}
	if strings.Contains(logs, "xxxxxxxx") {
		t.Error("the log quotes a request")
	}
}

func connectDetailViolation(t *testing.T, err error) string {
	t.Helper()
	var ce *connect.Error
	if !errors.As(err, &ce) {
		t.Fatalf("not a connect error: %v", err)
	}
	for _, d := range ce.Details() {
		if m, err := d.Value(); err == nil {
			if br, ok := m.(*errdetails.BadRequest); ok && len(br.GetFieldViolations()) > 0 {
				return br.GetFieldViolations()[0].GetField()
			}
		}
	}
	return ""
}

// CORS is off by default; with an allowlist, an allowed origin's preflight
// for each protocol gets the headers a browser needs, and no other origin
// gets any.
func TestCORS(t *testing.T) {
	preflight := func(r *running, origin, path, headers string, wantOK bool) http.Header {
		req, _ := http.NewRequest(http.MethodOptions, r.base+path, nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", http.MethodPost)
		req.Header.Set("Access-Control-Request-Headers", headers)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if wantOK && resp.StatusCode/100 != 2 {
			t.Errorf("preflight %s: HTTP %d", path, resp.StatusCode)
		}
		return resp.Header
	}
	const origin = "https://app.example.com"
	calls := map[string]string{
		"/v1/translate": "content-type",
		errsvcv1connect.TranslationServiceTranslateProcedure:        "connect-protocol-version,content-type",
		errsvcv1connect.TranslationServiceListVocabulariesProcedure: "content-type,x-grpc-web,x-user-agent",
	}

	off := start(t, Options{})
	for path, headers := range calls {
		if h := preflight(off, origin, path, headers, false); h.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("CORS off: %s allowed %q", path, h.Get("Access-Control-Allow-Origin"))
		}
	}

	on := start(t, Options{CORSOrigins: []string{origin}})
	for path, headers := range calls {
		h := preflight(on, origin, path, headers, true)
		if h.Get("Access-Control-Allow-Origin") != origin {
			t.Errorf("%s: Allow-Origin %q", path, h.Get("Access-Control-Allow-Origin"))
		}
		if got := h.Get("Access-Control-Allow-Headers"); got != headers {
			t.Errorf("%s: Allow-Headers %q, want %q", path, got, headers)
		}
		if h := preflight(on, "https://evil.example.net", path, headers, false); h.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s: another origin allowed", path)
		}
	}
	// The actual call exposes what gRPC-Web and REST clients read.
	req, _ := http.NewRequest(http.MethodPost, on.base+"/v1/translate", strings.NewReader(`{}`))
	req.Header.Set("Origin", origin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	exposed := strings.ToLower(resp.Header.Get("Access-Control-Expose-Headers"))
	for _, h := range []string{"grpc-status", "grpc-message", "grpc-status-details-bin", "retry-after"} {
		if !strings.Contains(exposed, h) {
			t.Errorf("Expose-Headers %q lacks %s", exposed, h)
		}
	}
}

// OPTIONS on a REST route answers its methods; a wrong method is 405 with
// an Allow header (RFC 9110).
func TestRESTOptionsAndAllow(t *testing.T) {
	r := start(t, Options{})
	for _, tc := range []struct{ method, path, allow string }{
		{http.MethodOptions, "/v1/translate", "POST, OPTIONS"},
		{http.MethodOptions, "/v1/vocabularies", "GET, OPTIONS"},
		{http.MethodDelete, "/v1/translate", "POST, OPTIONS"},
		{http.MethodPut, "/v1/translate:batch", "POST, OPTIONS"},
		{http.MethodPost, "/v1/vocabularies", "GET, OPTIONS"},
		{http.MethodHead, "/v1/vocabularies", "GET, OPTIONS"},
	} {
		req, _ := http.NewRequest(tc.method, r.base+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		want := http.StatusMethodNotAllowed
		if tc.method == http.MethodOptions {
			want = http.StatusNoContent
		}
		if resp.StatusCode != want || resp.Header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: HTTP %d Allow %q, want %d %q", tc.method, tc.path, resp.StatusCode,
				resp.Header.Get("Allow"), want, tc.allow)
		}
	}
}

// restRoutes is the REST mapping of the generated OpenAPI document and
// names the RPCs restRPC names.
func TestRESTRoutesMatchOpenAPI(t *testing.T) {
	r := start(t, Options{})
	_, body := r.get(t, "/openapi.json")
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("/openapi.json is OpenAPI %q", doc.OpenAPI)
	}
	var fromDoc, fromTable []string
	for path, ops := range doc.Paths {
		for m := range ops {
			fromDoc = append(fromDoc, strings.ToUpper(m)+" "+path)
		}
	}
	for _, rt := range restRoutes {
		fromTable = append(fromTable, rt.method+" "+rt.path)
		req, _ := http.NewRequest(rt.method, "http://x"+rt.path, nil)
		if got := restRPC(req); got != rt.rpc {
			t.Errorf("restRPC(%s) = %q, table says %q", rt.path, got, rt.rpc)
		}
	}
	if diff := cmp.Diff(fromDoc, fromTable, cmp.Transformer("sort", func(s []string) []string {
		out := append([]string(nil), s...)
		for i := range out {
			for j := i + 1; j < len(out); j++ {
				if out[j] < out[i] {
					out[i], out[j] = out[j], out[i]
				}
			}
		}
		return out
	})); diff != "" {
		t.Errorf("restRoutes differ from the OpenAPI paths:\n%s", diff)
	}
	code, swagger := r.get(t, "/openapi.swagger.json")
	if code != http.StatusOK || !bytes.Contains(swagger, []byte(`"swagger": "2.0"`)) {
		t.Errorf("/openapi.swagger.json: HTTP %d", code)
	}
}

// gzip on every transport: a gRPC client that compresses is answered, and
// REST and Connect answers are compressed for clients that accept it.
func TestGzipEveryTransport(t *testing.T) {
	r := start(t, Options{})
	ctx := context.Background()
	if _, err := r.client.Translate(ctx, validRequest(), grpc.UseCompressor(grpcgzip.Name)); err != nil {
		t.Fatalf("gRPC with gzip: %v", err)
	}
	for _, tc := range []struct{ method, path, body string }{
		{http.MethodGet, "/v1/vocabularies", ""},
		{http.MethodPost, errsvcv1connect.TranslationServiceListVocabulariesProcedure, "{}"},
		{http.MethodGet, "/openapi.json", ""},
		{http.MethodGet, "/", ""},
	} {
		req, _ := http.NewRequest(tc.method, r.base+tc.path, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s %s: HTTP %d Content-Encoding %q, want gzip", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Content-Encoding"))
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if plain, err := io.ReadAll(zr); err != nil || len(plain) <= len(raw) {
			t.Errorf("%s: %d compressed bytes, %d plain, %v", tc.path, len(raw), len(plain), err)
		}
	}
}
