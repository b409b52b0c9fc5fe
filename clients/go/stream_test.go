package errsvcclient_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	errsvcclient "github.com/errsvc/errsvc/clients/go"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// quotaStreamServer answers each stream message with its message text as
// the labby kind, but refuses messages over its limit the way errsvc does
// over a stream's rate: an item error RESOURCE_EXHAUSTED with RetryInfo.
type quotaStreamServer struct {
	errsvcv1.UnimplementedTranslationServiceServer
	// refuse reports whether the n-th message (from 1) of a stream is refused.
	refuse  func(n int) bool
	refused atomic.Int32
}

func (s *quotaStreamServer) TranslateStream(stream grpc.BidiStreamingServer[errsvcv1.TranslateRequest, errsvcv1.TranslateResponse]) error {
	for n := 1; ; n++ {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		resp := &errsvcv1.TranslateResponse{LabbyError: &errsvcv1.LabbyError{Kind: req.GetLabbyError().GetMessage()}}
		if s.refuse(n) {
			s.refused.Add(1)
			st, err := status.New(codes.ResourceExhausted, "stream_messages: over the rate").WithDetails(
				&errdetails.QuotaFailure{Violations: []*errdetails.QuotaFailure_Violation{{Subject: "stream_messages"}}},
				&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Millisecond)})
			if err != nil {
				return err
			}
			resp = &errsvcv1.TranslateResponse{Error: st.Proto()}
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
}

func startStreamServer(t *testing.T, s *quotaStreamServer) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	errsvcv1.RegisterTranslationServiceServer(srv, s)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

func numbered(n int) []*errsvcv1.TranslateRequest {
	reqs := make([]*errsvcv1.TranslateRequest, n)
	for i := range reqs {
		reqs[i] = &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
			LabbyError: &errsvcv1.LabbyError{Kind: "k", Message: fmt.Sprint(i)},
		}}
	}
	return reqs
}

// Refused messages are sent again and every answer lands in its place.
func TestTranslateAllResendsRefused(t *testing.T) {
	// A burst of 20, then one message per millisecond, as a token bucket
	// would allow.
	var last time.Time
	s := &quotaStreamServer{refuse: func(n int) bool {
		if n > 20 && time.Since(last) < time.Millisecond {
			return true
		}
		last = time.Now()
		return false
	}}
	c := dial(t, startStreamServer(t, s))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const n = 200
	resps, err := c.TranslateAll(ctx, numbered(n))
	if err != nil {
		t.Fatal(err)
	}
	if len(resps) != n {
		t.Fatalf("%d answers for %d requests", len(resps), n)
	}
	for i, r := range resps {
		if r.GetError() != nil || r.GetLabbyError().GetKind() != fmt.Sprint(i) {
			t.Fatalf("answer %d is %v", i, r)
		}
	}
	if s.refused.Load() == 0 {
		t.Fatal("the server refused nothing: the test tests nothing")
	}
}

// A request refused on every attempt keeps the refusal as its answer.
func TestTranslateAllBoundsAttempts(t *testing.T) {
	s := &quotaStreamServer{refuse: func(n int) bool { return n > 2 }}
	c := dial(t, startStreamServer(t, s))
	resps, err := c.TranslateAll(context.Background(), numbered(4))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range resps[:2] {
		if r.GetLabbyError().GetKind() != fmt.Sprint(i) {
			t.Fatalf("answer %d is %v", i, r)
		}
	}
	for i, r := range resps[2:] {
		if codes.Code(r.GetError().GetCode()) != codes.ResourceExhausted {
			t.Fatalf("answer %d is %v, want the refusal", i+2, r)
		}
	}
	if got := s.refused.Load(); got != 2*10 {
		t.Fatalf("server refused %d messages, want 2 requests x 10 attempts", got)
	}
}

func TestTranslateAllEmpty(t *testing.T) {
	resps, err := errsvcclient.NewInProcess().TranslateAll(context.Background(), nil)
	if err != nil || len(resps) != 0 {
		t.Fatalf("got %v, %v", resps, err)
	}
}
