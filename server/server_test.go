package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
)

const (
	validJSON     = `{"labby_error":{"kind":"rate_limited","message":"slow down"}}`
	twoSourceJSON = `{"labby_error":{"kind":"x","message":"m"},"agent_error":{"code":"TIMEOUT"}}`
)

func validRequest() *errsvcv1.TranslateRequest {
	return &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
		LabbyError: &errsvcv1.LabbyError{Kind: "rate_limited", Message: "slow down"},
	}}
}

func TestEndToEnd(t *testing.T) {
	r := start(t, Options{MaxRequestBytes: 64 << 10, MaxBatchItems: 3})
	ctx := context.Background()

	translateOK := func(t *testing.T) {
		t.Helper()
		if _, err := r.client.Translate(ctx, validRequest()); err != nil {
			t.Fatalf("gRPC Translate: %v", err)
		}
		code, body := r.post(t, "/v1/translate", validJSON)
		if code != http.StatusOK {
			t.Fatalf("REST translate: HTTP %d %s", code, body)
		}
		decodeJSON(t, body, &errsvcv1.TranslateResponse{})
	}

	t.Run("translate", translateOK)

	t.Run("REST malformed requests are 400 with a field violation", func(t *testing.T) {
		for _, tc := range []struct{ name, body, field string }{
			{"bad JSON", `{"labby_error":`, "body"},
			{"empty body", ``, "source"},
			{"no source", `{}`, "source"},
			{"two sources", twoSourceJSON, "source"},
			{"wrong type", `{"labby_error":{"side_effects":5}}`, "labby_error.side_effects"}, // the full path
		} {
			t.Run(tc.name, func(t *testing.T) {
				code, body := r.post(t, "/v1/translate", tc.body)
				v := restViolation(t, code, body, http.StatusBadRequest, int32(codes.InvalidArgument))
				if v.GetField() != tc.field {
					t.Errorf("field %q, want %q (%s)", v.GetField(), tc.field, body)
				}
			})
		}
	})

	t.Run("REST unknown fields translate with one field_ignored note", func(t *testing.T) {
		code, body := r.post(t, "/v1/translate", `{"labby_error":{"kind":"forbidden","required_scopes":["repo:write"],"recovery":{"x_retry":1},"trace_ref":"t-1"},"foo":1}`)
		if code != http.StatusOK {
			t.Fatalf("HTTP %d, want 200: %s", code, body)
		}
		var out map[string]any
		if err := json.Unmarshal(body, &out); err != nil {
			t.Fatal(err)
		}
		labby := out["labby_error"].(map[string]any)
		if labby["trace_ref"] != "t-1" || labby["recovery"].(map[string]any)["x_retry"] != float64(1) {
			t.Errorf("additive fields not carried to the Labby envelope at their place: %s", body)
		}
		if _, ok := labby["additional_fields"]; ok {
			t.Errorf("additional_fields leaked into the JSON shape: %s", body)
		}
		if s, _ := labby["required_scopes"].([]any); len(s) != 1 || s[0] != "repo:write" {
			t.Errorf("required_scopes: %s", body)
		}
		ignored := 0
		for _, n := range out["notes"].([]any) {
			if n.(map[string]any)["code"] == "field_ignored" {
				ignored++
				msg := n.(map[string]any)["message"].(string)
				for _, p := range []string{"foo", "labby_error.trace_ref", "labby_error.recovery.x_retry"} {
					if !strings.Contains(msg, p) {
						t.Errorf("field_ignored note %q does not name %s", msg, p)
					}
				}
			}
		}
		if ignored != 1 {
			t.Errorf("%d field_ignored notes, want 1: %s", ignored, body)
		}
	})

	t.Run("gRPC no source is INVALID_ARGUMENT with a field violation", func(t *testing.T) {
		_, err := r.client.Translate(ctx, &errsvcv1.TranslateRequest{})
		if status.Code(err) != codes.InvalidArgument {
			t.Fatalf("got %v, want INVALID_ARGUMENT", err)
		}
		if v := grpcViolation(t, err); v.GetField() != "source" {
			t.Errorf("field %q, want source", v.GetField())
		}
	})

	t.Run("still serving after bad requests", translateOK)

	t.Run("oversize body is 413", func(t *testing.T) {
		big := `{"labby_error":{"kind":"x","message":"` + strings.Repeat("a", 100<<10) + `"}}`
		// Declared length.
		code, body := r.post(t, "/v1/translate", big)
		restViolation(t, code, body, http.StatusRequestEntityTooLarge, int32(codes.ResourceExhausted))
		// Unknown length (chunked), refused while reading.
		code, body = r.do(t, http.MethodPost, "/v1/translate", io.MultiReader(strings.NewReader(big)))
		v := restViolation(t, code, body, http.StatusRequestEntityTooLarge, int32(codes.ResourceExhausted))
		if v.GetField() != "body" {
			t.Errorf("field %q, want body", v.GetField())
		}
	})

	t.Run("batch answers each item, a bad one with its own error", func(t *testing.T) {
		code, body := r.post(t, "/v1/translate:batch", `{"requests":[`+validJSON+`,{}]}`)
		if code != http.StatusOK {
			t.Fatalf("HTTP %d %s", code, body)
		}
		var resp errsvcv1.TranslateBatchResponse
		decodeJSON(t, body, &resp)
		if n := len(resp.GetResponses()); n != 2 {
			t.Fatalf("%d responses, want 2: %s", n, body)
		}
		if e := resp.GetResponses()[0].GetError(); e != nil {
			t.Errorf("first item failed: %v", e)
		}
		e := resp.GetResponses()[1].GetError()
		if e.GetCode() != int32(codes.InvalidArgument) {
			t.Fatalf("second item error %v, want INVALID_ARGUMENT", e)
		}
		violation(t, e)
	})

	t.Run("oversize batch is RESOURCE_EXHAUSTED on requests", func(t *testing.T) {
		code, body := r.post(t, "/v1/translate:batch", `{"requests":[{},{},{},{}]}`)
		if v := restViolation(t, code, body, http.StatusRequestEntityTooLarge, int32(codes.ResourceExhausted)); v.GetField() != "requests" {
			t.Errorf("field %q, want requests", v.GetField())
		}
		reqs := make([]*errsvcv1.TranslateRequest, 4)
		_, err := r.client.TranslateBatch(ctx, &errsvcv1.TranslateBatchRequest{Requests: reqs})
		if status.Code(err) != codes.ResourceExhausted {
			t.Fatalf("got %v, want RESOURCE_EXHAUSTED", err)
		}
		if v := grpcViolation(t, err); v.GetField() != "requests" {
			t.Errorf("field %q, want requests", v.GetField())
		}
	})

	t.Run("stream answers in order and survives a bad item", func(t *testing.T) {
		stream, err := r.client.TranslateStream(ctx)
		if err != nil {
			t.Fatal(err)
		}
		reqs := []*errsvcv1.TranslateRequest{validRequest(), {}, validRequest()}
		for _, req := range reqs {
			if err := stream.Send(req); err != nil {
				t.Fatal(err)
			}
		}
		if err := stream.CloseSend(); err != nil {
			t.Fatal(err)
		}
		for i, wantErr := range []bool{false, true, false} {
			resp, err := stream.Recv()
			if err != nil {
				t.Fatalf("response %d: %v", i, err)
			}
			if got := resp.GetError() != nil; got != wantErr {
				t.Errorf("response %d: error set %v, want %v (%v)", i, got, wantErr, resp)
			}
		}
		if _, err := stream.Recv(); !errors.Is(err, io.EOF) {
			t.Errorf("after 3 responses: %v, want EOF", err)
		}
	})

	t.Run("vocabularies", func(t *testing.T) {
		code, body := r.get(t, "/v1/vocabularies")
		if code != http.StatusOK {
			t.Fatalf("HTTP %d %s", code, body)
		}
		decodeJSON(t, body, &errsvcv1.ListVocabulariesResponse{})
		if _, err := r.client.ListVocabularies(ctx, &errsvcv1.ListVocabulariesRequest{}); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("operational endpoints", func(t *testing.T) {
		for _, path := range []string{"/healthz", "/readyz", "/openapi.json", "/metrics"} {
			if code, body := r.get(t, path); code != http.StatusOK {
				t.Errorf("%s: HTTP %d %s", path, code, body)
			}
		}
		if _, body := r.get(t, "/openapi.json"); !json.Valid(body) {
			t.Error("/openapi.json is not valid JSON")
		}
		_, body := r.get(t, "/metrics")
		for _, want := range []string{
			`errsvc_requests_total{code="OK",rpc="/errsvc.v1.TranslationService/Translate",transport="grpc"}`,
			`errsvc_requests_total{code="OK",rpc="/errsvc.v1.TranslationService/Translate",transport="http"}`,
			`errsvc_requests_total{code="InvalidArgument",rpc="/errsvc.v1.TranslationService/Translate",transport="http"}`,
			`errsvc_request_duration_seconds_bucket{rpc="/errsvc.v1.TranslationService/TranslateStream",transport="grpc"`,
		} {
			if !strings.Contains(string(body), want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
	})

	t.Run("routing errors keep their HTTP status", func(t *testing.T) {
		if code, body := r.get(t, "/v1/translate"); code != http.StatusMethodNotAllowed {
			t.Errorf("GET /v1/translate: HTTP %d %s, want 405", code, body)
		}
		if code, body := r.get(t, "/v1/nope"); code != http.StatusNotFound {
			t.Errorf("GET /v1/nope: HTTP %d %s, want 404", code, body)
		}
	})

	t.Run("gRPC health SERVING", func(t *testing.T) {
		hc := healthpb.NewHealthClient(r.conn)
		for _, svc := range []string{"", "errsvc.v1.TranslationService"} {
			resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
			if err != nil {
				t.Fatalf("%q: %v", svc, err)
			}
			if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
				t.Errorf("%q: %v", svc, resp.GetStatus())
			}
		}
	})

	t.Run("reflection lists the service", func(t *testing.T) {
		stream, err := reflectionpb.NewServerReflectionClient(r.conn).ServerReflectionInfo(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = stream.CloseSend() }()
		err = stream.Send(&reflectionpb.ServerReflectionRequest{
			MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{},
		})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range resp.GetListServicesResponse().GetService() {
			names = append(names, s.GetName())
		}
		if !strings.Contains(strings.Join(names, " "), "errsvc.v1.TranslationService") {
			t.Errorf("services %v lack errsvc.v1.TranslationService", names)
		}
	})

	t.Run("cancel shuts down and readiness flips", func(t *testing.T) {
		r.stop(t)
		if r.srv.Health().Ready() {
			t.Error("still ready after shutdown")
		}
		for _, addr := range []string{r.srv.HTTPAddr(), r.srv.GRPCAddr()} {
			if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
				_ = c.Close()
				t.Errorf("%s still accepts connections", addr)
			}
		}
		if !strings.Contains(r.logs.String(), "errsvc listening") {
			t.Errorf("no listening log line in %s", r.logs)
		}
	})
}

// TestGracefulDrain checks that shutdown reports not-ready first and lets an
// open stream finish its work.
func TestGracefulDrain(t *testing.T) {
	r := start(t, Options{})
	stream, err := r.client.TranslateStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	roundTrip := func() {
		t.Helper()
		if err := stream.Send(validRequest()); err != nil {
			t.Fatal(err)
		}
		if _, err := stream.Recv(); err != nil {
			t.Fatal(err)
		}
	}
	roundTrip()

	r.cancel()
	deadline := time.Now().Add(5 * time.Second)
	for r.srv.Health().Ready() {
		if time.Now().After(deadline) {
			t.Fatal("readiness did not flip")
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case err := <-r.done:
		t.Fatalf("Serve returned (%v) with a stream still open", err)
	case <-time.After(100 * time.Millisecond):
	}

	roundTrip()
	if err := stream.CloseSend(); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); !errors.Is(err, io.EOF) {
		t.Fatalf("stream end: %v", err)
	}
	r.stop(t)
}

// TestShutdownTimeout checks that a call that never ends cannot hold
// shutdown beyond ShutdownTimeout.
func TestShutdownTimeout(t *testing.T) {
	r := start(t, Options{ShutdownTimeout: 200 * time.Millisecond})
	stream, err := r.client.TranslateStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(validRequest()); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	r.stop(t)
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("shutdown took %v", took)
	}
	if _, err := stream.Recv(); err == nil {
		t.Error("stream survived a forced stop")
	}
}

// A batch of 1000 where every tenth item carries a member the contract does
// not model answers a translation for each, 100 of them with a
// field_ignored note; a malformed item among them fails alone.
func TestBatchWithUnknownFieldsTranslatesEveryItem(t *testing.T) {
	r := start(t, Options{})
	var items []string
	for i := 0; i < 1000; i++ {
		switch {
		case i%10 == 0:
			items = append(items, `{"labby_error":{"kind":"rate_limited","message":"m","vendor_hint":`+strconv.Itoa(i)+`}}`)
		default:
			items = append(items, `{"labby_error":{"kind":"rate_limited","message":"m"}}`)
		}
	}
	// A malformed item in place of the last: it fails alone.
	items[999] = `{"labby_error":{"kind":["not","a","string"]}}`
	code, body := r.post(t, "/v1/translate:batch", `{"requests":[`+strings.Join(items, ",")+`]}`)
	if code != http.StatusOK {
		t.Fatalf("HTTP %d: %.300s", code, body)
	}
	var out struct {
		Responses []struct {
			LabbyError map[string]any   `json:"labby_error"`
			Notes      []map[string]any `json:"notes"`
			Error      map[string]any   `json:"error"`
		} `json:"responses"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Responses) != 1000 {
		t.Fatalf("%d responses, want 1000", len(out.Responses))
	}
	translated, noted, failed := 0, 0, 0
	for i, resp := range out.Responses {
		switch {
		case resp.Error != nil:
			failed++
			if i != 999 {
				t.Errorf("item %d failed: %v", i, resp.Error)
			}
		default:
			translated++
			for _, n := range resp.Notes {
				if n["code"] == "field_ignored" {
					noted++
					if resp.LabbyError["vendor_hint"] != float64(i) {
						t.Errorf("item %d: the additive member is not carried: %v", i, resp.LabbyError)
					}
				}
			}
		}
	}
	if translated != 999 || noted != 100 || failed != 1 {
		t.Errorf("translated %d, noted %d, failed %d; want 999, 100, 1", translated, noted, failed)
	}
	t.Logf("1000 items: %d translated (%d with field_ignored), %d failed alone", translated, noted, failed)
}

// One batch item nested past the limit, or holding broken text, fails
// alone on REST; the other items translate.
func TestBatchItemFaultsAreIsolated(t *testing.T) {
	r := start(t, Options{})
	deep := `{"agent_error":{"code":"RATE_LIMITED","details":{"x":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}}}`
	broken := `{"labby_error":{"kind":"x","message":"\ud800"}}`
	ok := `{"labby_error":{"kind":"rate_limited","message":"m"}}`
	code, body := r.post(t, "/v1/translate:batch", `{"requests":[`+ok+`,`+deep+`,`+ok+`,`+broken+`]}`)
	if code != http.StatusOK {
		t.Fatalf("HTTP %d: %.400s", code, body)
	}
	var out struct {
		Responses []struct {
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		} `json:"responses"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Responses) != 4 {
		t.Fatalf("%d responses", len(out.Responses))
	}
	for i, want := range []bool{false, true, false, true} {
		failed := out.Responses[i].Error != nil
		if failed != want {
			t.Errorf("item %d failed %v, want %v: %s", i, failed, want, body)
		}
		if failed && out.Responses[i].Error.Code != int(codes.InvalidArgument) {
			t.Errorf("item %d: code %d, want INVALID_ARGUMENT", i, out.Responses[i].Error.Code)
		}
	}
}
