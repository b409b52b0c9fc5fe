package translate

import (
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// The new sources get a fuzz target each, seeded from their golden
// vectors, with every target asked for.

func withAllTargets(req *errsvcv1.TranslateRequest) *errsvcv1.TranslateRequest {
	for _, t := range targets {
		req.Targets = append(req.Targets, t.name)
	}
	return req
}

func FuzzGRPCStatusSource(f *testing.F) {
	fuzzSource(f, "grpc_status", func(b []byte) (*errsvcv1.TranslateRequest, bool) {
		e := &errsvcv1.GrpcStatusError{}
		if protojson.Unmarshal(b, e) != nil {
			return nil, false
		}
		return withAllTargets(&errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_GrpcStatus{GrpcStatus: e}}), true
	})
}

func FuzzJSONRPCSource(f *testing.F) {
	fuzzSource(f, "jsonrpc_error", func(b []byte) (*errsvcv1.TranslateRequest, bool) {
		e := &errsvcv1.JsonRpcError{}
		if protojson.Unmarshal(b, e) != nil {
			return nil, false
		}
		return withAllTargets(&errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_JsonrpcError{JsonrpcError: e}}), true
	})
}

func FuzzHTTPErrorSource(f *testing.F) {
	fuzzSource(f, "http_error", func(b []byte) (*errsvcv1.TranslateRequest, bool) {
		e := &errsvcv1.HttpError{}
		if protojson.Unmarshal(b, e) != nil {
			return nil, false
		}
		return withAllTargets(&errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_HttpError{HttpError: e}}), true
	})
}
