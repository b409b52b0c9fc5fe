package server

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/golden"
	"github.com/errsvc/errsvc/internal/schemas"
)

// Every golden vector, over gRPC and over REST, against the real server:
// the transports must answer exactly what the core answers in-process.
func TestGoldenVectorsOverBothTransports(t *testing.T) {
	dir, err := golden.Dir()
	if err != nil {
		t.Fatal(err)
	}
	vectors, err := golden.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := start(t, Options{})
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			req := &errsvcv1.TranslateRequest{}
			decodeJSON(t, v.Request, req)

			got, err := r.client.Translate(context.Background(), req)
			// REST gets the request in its producers' shape: members the
			// contract does not model as members of their object.
			restBody := string(v.Request)
			if v.Error == nil {
				b, err := openjson.Marshal(protojson.MarshalOptions{UseProtoNames: true}, req)
				if err != nil {
					t.Fatal(err)
				}
				restBody = string(b)
			}
			code, body := r.post(t, "/v1/translate", restBody)
			if v.Error != nil {
				if status.Code(err) != codes.InvalidArgument {
					t.Fatalf("gRPC: %v, want INVALID_ARGUMENT", err)
				}
				if f := grpcViolation(t, err).GetField(); f != v.Error.Field {
					t.Errorf("gRPC violation names %q, want %q", f, v.Error.Field)
				}
				if f := restViolation(t, code, body, http.StatusBadRequest, int32(codes.InvalidArgument)).GetField(); f != v.Error.Field {
					t.Errorf("REST violation names %q, want %q", f, v.Error.Field)
				}
				return
			}
			want := &errsvcv1.TranslateResponse{}
			decodeJSON(t, v.Response, want)
			if err != nil {
				t.Fatalf("gRPC: %v", err)
			}
			if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
				t.Errorf("gRPC answer differs (-want +got):\n%s", diff)
			}
			if code != http.StatusOK {
				t.Fatalf("REST: HTTP %d: %s", code, body)
			}
			rest := &errsvcv1.TranslateResponse{}
			if err := openjson.Unmarshal(body, rest); err != nil {
				t.Fatalf("REST body: %v", err)
			}
			if diff := cmp.Diff(want, rest, protocmp.Transform()); diff != "" {
				t.Errorf("REST answer differs (-want +got):\n%s", diff)
			}
			schemas.AssertResponse(t, rest)
		})
	}
}
