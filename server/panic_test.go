package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestPanicIsRecovered(t *testing.T) {
	const secret = "secret-payload"
	r := start(t, Options{translate: func(req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error) {
		if strings.Contains(req.GetLabbyError().GetMessage(), secret) {
			panic("injected fault")
		}
		return translate.Translate(req)
	}})
	ctx := context.Background()
	poison := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
		LabbyError: &errsvcv1.LabbyError{Kind: "x", Message: secret},
	}}
	poisonJSON := `{"labby_error":{"kind":"x","message":"` + secret + `"}}`

	if _, err := r.client.Translate(ctx, poison); status.Code(err) != codes.Internal {
		t.Errorf("gRPC unary: %v, want INTERNAL", err)
	}
	// A stream and a batch answer the item that panicked with INTERNAL,
	// and go on: one item never sinks the others (the stream is not
	// ended, the batch not failed).
	stream, err := r.client.TranslateStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []*errsvcv1.TranslateRequest{poison, validRequest()} {
		if err := stream.Send(req); err != nil {
			t.Fatal(err)
		}
	}
	if resp, err := stream.Recv(); err != nil || codes.Code(resp.GetError().GetCode()) != codes.Internal {
		t.Errorf("gRPC stream, the item that panicked: %v, %v; want a response carrying INTERNAL", resp, err)
	}
	if resp, err := stream.Recv(); err != nil || resp.GetError() != nil || resp.GetClassification() == nil {
		t.Errorf("gRPC stream, the item after it: %v, %v; want an answer", resp, err)
	}
	_ = stream.CloseSend()
	if code, body := r.post(t, "/v1/translate", poisonJSON); code != http.StatusInternalServerError {
		t.Errorf("REST: HTTP %d %s, want 500", code, body)
	}
	code, body := r.post(t, "/v1/translate:batch", `{"requests":[`+poisonJSON+`,`+validJSON+`]}`)
	var batch errsvcv1.TranslateBatchResponse
	decodeJSON(t, []byte(body), &batch)
	if rs := batch.GetResponses(); code != http.StatusOK || len(rs) != 2 ||
		codes.Code(rs[0].GetError().GetCode()) != codes.Internal || rs[1].GetError() != nil || rs[1].GetClassification() == nil {
		t.Errorf("REST batch: HTTP %d %s; want 200, the first item INTERNAL and the second answered", code, body)
	}

	if _, err := r.client.Translate(ctx, validRequest()); err != nil {
		t.Errorf("gRPC after panics: %v", err)
	}
	if code, body := r.post(t, "/v1/translate", validJSON); code != http.StatusOK {
		t.Errorf("REST after panics: HTTP %d %s", code, body)
	}

	logs := r.logs.String()
	if n := strings.Count(logs, "panic in handler"); n != 4 {
		t.Errorf("%d panic log lines, want 4:\n%s", n, logs)
	}
	if strings.Contains(logs, secret) {
		t.Errorf("request payload leaked into logs:\n%s", logs)
	}
	_, metrics := r.get(t, "/metrics")
	for _, want := range []string{
		`errsvc_requests_total{code="Internal",rpc="/errsvc.v1.TranslationService/Translate",transport="grpc"} 1`,
		`errsvc_requests_total{code="Internal",rpc="/errsvc.v1.TranslationService/Translate",transport="http"} 1`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
