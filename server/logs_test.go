package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
)

// secretCase is one entry of testdata/secrets/corpus.json: a secret and a
// text that carries it the way an upstream error would.
type secretCase struct {
	Name   string `json:"name"`
	Secret string `json:"secret"`
	Text   string `json:"text"`
}

// fallbackSecrets stands in when the shared corpus is absent.
var fallbackSecrets = []secretCase{
	{"openai key", "sk-proj-Zq8vTt3mWc9LrX2bN5yPfK7hJd4sGa1e", "401: Incorrect API key provided: sk-proj-Zq8vTt3mWc9LrX2bN5yPfK7hJd4sGa1e."},
	{"github token", "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngOnly9xYz", "remote: https://x:ghp_R4nd0mT0k3nV4lu3F0rT3st1ngOnly9xYz@github.com/o/r.git denied"},
	{"bearer", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0In0.c2lnbmF0dXJlLW5vdC1yZWFs", "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0In0.c2lnbmF0dXJlLW5vdC1yZWFs"},
	{"aws", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYTESTKEY00", `{"aws_secret_access_key":"wJalrXUtnFEMI/K7MDENG/bPxRfiCYTESTKEY00"}`},
	{"password url", "hunter2-S3cr3t-pw", "dial postgres://app:hunter2-S3cr3t-pw@db:5432/app: refused"},
}

func loadSecrets(t *testing.T) []secretCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "secrets", "corpus.json"))
	if errors.Is(err, os.ErrNotExist) {
		t.Log("testdata/secrets/corpus.json absent: using the built-in corpus")
		return fallbackSecrets
	}
	if err != nil {
		t.Fatal(err)
	}
	var corpus []secretCase
	if err := json.Unmarshal(data, &corpus); err != nil {
		t.Fatalf("corpus.json: %v", err)
	}
	if len(corpus) == 0 {
		t.Fatal("corpus.json is empty")
	}
	return corpus
}

// jsonString is s as a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestLogsFreeOfSecrets sends every corpus secret through every path that
// can end in a log line (valid translations, malformed requests over both
// transports, a secret as a JSON key, as a wrong-typed value, in an
// oversize body, in a panic's value, in batch items and stream messages, in
// gRPC metadata) and checks that no log line and no metric carries it.
func TestLogsFreeOfSecrets(t *testing.T) {
	corpus := loadSecrets(t)
	const panicMarker = "PANIC-NOW"
	r := start(t, Options{
		MaxRequestBytes: 8 << 10,
		MaxBatchItems:   4,
		StreamRate:      1000, StreamBurst: 2,
		translate: func(req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error) {
			if msg := req.GetLabbyError().GetMessage(); strings.HasPrefix(msg, panicMarker) {
				panic("translator choked on " + msg) // a panic value quoting the input
			}
			if msg := req.GetClassifiedError().GetMessage(); strings.HasPrefix(msg, panicMarker) {
				return nil, fmt.Errorf("core failure on %q", msg) // an internal error quoting the input
			}
			return translate.Translate(req)
		},
	})
	ctx := context.Background()

	for _, sc := range corpus {
		text, secret := jsonString(sc.Text), jsonString(sc.Secret)
		restBodies := []string{
			`{"labby_error":{"kind":"upstream_error","message":` + text + `}}`,
			`{"classified_error":{"code":"provider_error","message":` + text + `,"class":` + secret + `,"detail":{"raw":` + text + `}}}`,
			`{"provider_response":{"provider":"openai","status":401,"headers":{"authorization":` + jsonString("Bearer "+sc.Secret) + `},"body":` + text + `}}`,
			`{"agent_error":{"code":` + secret + `,"message":` + text + `}}`,
			`{"mcp_tool_result":{"tool":"ns::t","is_error":true,"content":[{"type":"text","text":` + text + `}]}}`,
			`{` + secret + `:1}`, // a secret as an unknown field
			`{"labby_error":{"kind":` + secret + `,"message":5}}`, // wrong type next to it
			`{"labby_error":{"message":` + text + `}`,             // truncated JSON
			`{"labby_error":{"kind":["` + sc.Secret[:min(8, len(sc.Secret))] + `",` + secret + `]}}`,
			`{"labby_error":{"kind":"x","message":` + jsonString(sc.Text+strings.Repeat(" "+sc.Secret, (8<<10)/len(sc.Secret)+1)) + `}}`, // oversize
			`{"labby_error":{"kind":"x","message":` + jsonString(panicMarker+sc.Text) + `}}`,
			`{"classified_error":{"message":` + jsonString(panicMarker+sc.Text) + `}}`,
		}
		for _, body := range restBodies {
			req, _ := http.NewRequest(http.MethodPost, r.base+"/v1/translate", strings.NewReader(body))
			if printable(sc.Secret) {
				req.Header.Set("Authorization", "Bearer "+sc.Secret)
				req.Header.Set("Grpc-Metadata-X-Api-Key", sc.Secret)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
		}
		batch := `{"requests":[` + restBodies[0] + `,` + restBodies[3] + `,{}]}`
		r.post(t, "/v1/translate:batch", batch)
		r.post(t, "/v1/translate:batch", `{"requests":[`+strings.Repeat(restBodies[0]+",", 5)+restBodies[0]+`]}`)

		gctx := ctx
		if printable(sc.Secret) {
			gctx = metadata.NewOutgoingContext(ctx, metadata.Pairs("authorization", "Bearer "+sc.Secret, "x-api-key", sc.Secret))
		}
		var grpcReqs []*errsvcv1.TranslateRequest
		for _, body := range restBodies[:5] {
			req := &errsvcv1.TranslateRequest{}
			decodeJSON(t, []byte(body), req)
			grpcReqs = append(grpcReqs, req)
		}
		grpcReqs = append(grpcReqs,
			&errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{
				Kind: sc.Secret, Message: panicMarker + sc.Text}}},
			&errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{
				Kind: "x", Message: strings.Repeat(sc.Text, (8<<10)/len(sc.Text)+1)}}},
			&errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_AgentError{AgentError: &errsvcv1.AgentError{
				Code: sc.Secret, Message: sc.Text, Details: mustStruct(t, map[string]any{sc.Secret: sc.Text})}}},
		)
		for _, req := range grpcReqs {
			_, _ = r.client.Translate(gctx, req)
		}
		_, _ = r.client.TranslateBatch(gctx, &errsvcv1.TranslateBatchRequest{Requests: grpcReqs[:4]})
		_, _ = r.client.TranslateBatch(gctx, &errsvcv1.TranslateBatchRequest{Requests: grpcReqs})
		stream, err := r.client.TranslateStream(gctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, req := range grpcReqs[:5] { // more than the burst: some are refused by the rate
			_ = stream.Send(req)
		}
		_ = stream.CloseSend()
		for {
			if _, err := stream.Recv(); err != nil {
				break
			}
		}
	}

	logs := r.logs.String()
	// The check is only meaningful if the failures were logged at all.
	for _, want := range []string{`"level":"WARN","msg":"call failed"`, `"level":"ERROR","msg":"call failed"`,
		`"msg":"panic in handler"`, `"msg":"translate failed"`, `"msg":"call answered items with errors"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %s", want)
		}
	}
	_, metrics := r.get(t, "/metrics")
	for _, sc := range corpus {
		for _, form := range []string{sc.Secret, strings.Trim(jsonString(sc.Secret), `"`)} {
			if strings.Contains(logs, form) {
				t.Errorf("%s: the secret reached the logs", sc.Name)
			}
			if strings.Contains(string(metrics), form) {
				t.Errorf("%s: the secret reached /metrics", sc.Name)
			}
		}
	}
	if t.Failed() {
		t.Logf("logs:\n%s", logs)
	}
}

// printable reports whether s can travel as a header value.
func printable(s string) bool {
	for _, c := range []byte(s) {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

func mustStruct(t *testing.T, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFailedCallLogLines checks the one line per failed call: WARN for what
// the caller can fix, ERROR for what an operator must, with rpc, code,
// duration and the violated field; nothing at INFO for a call that worked.
func TestFailedCallLogLines(t *testing.T) {
	r := start(t, Options{translate: func(req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error) {
		if req.GetLabbyError().GetKind() == "boom" {
			panic("boom")
		}
		return translate.Translate(req)
	}})
	ctx := context.Background()
	r.post(t, "/v1/translate", `{}`)
	r.post(t, "/v1/translate", `{"labby_error":{"kind":"x","side_effects":5}}`)
	_, _ = r.client.Translate(ctx, &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_AgentError{
		AgentError: &errsvcv1.AgentError{Message: "no code"}}})
	_, _ = r.client.Translate(ctx, &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
		LabbyError: &errsvcv1.LabbyError{Kind: "boom"}}})
	if _, err := r.client.Translate(ctx, validRequest()); err != nil {
		t.Fatal(err)
	}
	r.post(t, "/v1/translate:batch", `{"requests":[`+validJSON+`,{}]}`)
	// Bytes that are no TranslateRequest: the caller's fault, answered
	// INVALID_ARGUMENT naming the body (not grpc-go's INTERNAL, which the
	// paging alert counts as a server failure).
	var out []byte
	err := r.conn.Invoke(ctx, errsvcv1.TranslationService_Translate_FullMethodName, []byte{0xff, 0xff, 0xff}, &out, grpc.ForceCodec(rawCodec{}))
	if status.Code(err) != codes.InvalidArgument || grpcViolation(t, err).GetField() != "body" {
		t.Fatalf("undecodable message: %v", err)
	}
	waitFor(t, func() bool {
		return hasLogLine(logLines(t, r.logs.String(), "call failed"), map[string]any{"level": "WARN", "code": "InvalidArgument", "field": "body"})
	}, "a WARN line for the undecodable message")
	// A well-formed message whose string is not UTF-8 is refused the same
	// way (package codec checks what protobuf-go would), and the server
	// goes on serving.
	badKind := []byte{0x0a, 0x04, 0x12, 0x02, 0xff, 0xfe} // labby_error.kind = "\xff\xfe"
	err = r.conn.Invoke(ctx, errsvcv1.TranslationService_Translate_FullMethodName, badKind, &out, grpc.ForceCodec(rawCodec{}))
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), "UTF-8") ||
		grpcViolation(t, err).GetField() != "labby_error.kind" {
		t.Fatalf("a string that is not UTF-8: %v", err)
	}
	if _, err := r.client.Translate(ctx, validRequest()); err != nil {
		t.Fatalf("after a refused message: %v", err)
	}

	lines := logLines(t, r.logs.String(), "call failed", "call answered items with errors", "call")
	for _, want := range []map[string]any{
		{"level": "WARN", "msg": "call failed", "transport": "http", "rpc": "/errsvc.v1.TranslationService/Translate", "code": "InvalidArgument", "field": "source"},
		{"level": "WARN", "msg": "call failed", "transport": "http", "code": "InvalidArgument", "field": "labby_error.side_effects"},
		{"level": "WARN", "msg": "call failed", "transport": "grpc", "code": "InvalidArgument", "field": "agent_error.code"},
		{"level": "ERROR", "msg": "call failed", "transport": "grpc", "code": "Internal", "panic": true},
		{"level": "WARN", "msg": "call answered items with errors", "transport": "http", "rpc": "/errsvc.v1.TranslationService/TranslateBatch",
			"code": "OK", "items": float64(2), "failed_items": float64(1), "item_code": "InvalidArgument", "item_field": "source"},
		{"level": "DEBUG", "msg": "call", "transport": "grpc", "code": "OK"},
	} {
		if !hasLogLine(lines, want) {
			t.Errorf("no log line with %v", want)
		}
	}
	for _, l := range lines {
		if l["msg"] == "call failed" {
			if _, ok := l["duration_ms"].(float64); !ok {
				t.Errorf("line without duration_ms: %v", l)
			}
		}
	}
	if t.Failed() {
		t.Logf("logs:\n%s", r.logs)
	}
}

// rawCodec sends bytes as they are, under the proto content type.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return v.([]byte), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

func TestLogSafeField(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "",
		"body":                             "body",
		"labby_error.kind":                 "labby_error.kind",
		"agent_error.details.retryAfterMs": "agent_error.details.retryAfterMs",
		"agent_error.details.myKey":        "agent_error.details.*",
		"sk-ant-api03-xyz":                 "*",
		"ghp_abc.kind":                     "*.kind",
		"sideEffects":                      "sideEffects",
		"a.b.c.d.e.f.g.h.i.j":              "*.*.*.*.*.*.*.*.*",
	} {
		if got := logSafeField(in); got != want {
			t.Errorf("logSafeField(%q) = %q, want %q", in, got, want)
		}
	}
}
