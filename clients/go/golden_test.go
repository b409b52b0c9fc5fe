package errsvcclient_test

import (
	"context"
	"net"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	errsvcclient "github.com/errsvc/errsvc/clients/go"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/golden"
	"github.com/errsvc/errsvc/server"
	"github.com/errsvc/errsvc/translate"
)

// minVectors is the least number of shared vectors every SDK must run.
const minVectors = 50

// batchSize is the items of one TranslateBatch in the tests.
const batchSize = 100

// vector is a golden vector decoded for the client.
type vector struct {
	golden.Vector
	req  *errsvcv1.TranslateRequest
	want *errsvcv1.TranslateResponse // nil for a malformed request
}

// loadVectors reads testdata/golden at run time: the vectors follow the
// engine, so they are never copied here.
func loadVectors(t *testing.T) []vector {
	t.Helper()
	dir, err := golden.Dir()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := golden.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) < minVectors {
		t.Fatalf("only %d golden vectors in %s; want at least %d", len(raw), dir, minVectors)
	}
	vs := make([]vector, 0, len(raw))
	for _, g := range raw {
		v := vector{Vector: g, req: &errsvcv1.TranslateRequest{}}
		if err := protojson.Unmarshal(g.Request, v.req); err != nil {
			t.Fatalf("%s: request: %v", g.Name, err)
		}
		if g.Error == nil {
			v.want = &errsvcv1.TranslateResponse{}
			if err := protojson.Unmarshal(g.Response, v.want); err != nil {
				t.Fatalf("%s: response: %v", g.Name, err)
			}
		}
		vs = append(vs, v)
	}
	return vs
}

func requests(vs []vector) []*errsvcv1.TranslateRequest {
	out := make([]*errsvcv1.TranslateRequest, len(vs))
	for i, v := range vs {
		out[i] = v.req
	}
	return out
}

// checkCall checks the answer of a unary Translate against the vector.
func checkCall(t *testing.T, v vector, resp *errsvcv1.TranslateResponse, err error) {
	t.Helper()
	if v.Error != nil {
		if err == nil {
			t.Fatalf("want INVALID_ARGUMENT naming %q, got a response", v.Error.Field)
		}
		checkStatus(t, v, status.Convert(err))
		return
	}
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	compare(t, v.want, resp)
}

// checkItem checks a batch or stream item, which carries its own error.
func checkItem(t *testing.T, v vector, resp *errsvcv1.TranslateResponse) {
	t.Helper()
	if v.Error != nil {
		if resp.GetError() == nil {
			t.Fatalf("want an item error naming %q, got %v", v.Error.Field, resp)
		}
		checkStatus(t, v, status.FromProto(resp.GetError()))
		if diff := cmp.Diff(&errsvcv1.TranslateResponse{Error: resp.GetError()}, resp, protocmp.Transform()); diff != "" {
			t.Errorf("an item with an error has other fields set:\n%s", diff)
		}
		return
	}
	if resp.GetError() != nil {
		t.Fatalf("unexpected item error: %v", resp.GetError())
	}
	compare(t, v.want, resp)
}

// compare reports how got differs from want. protocmp compares the
// google.protobuf.Any details by their unpacked messages (proto.Equal would
// compare their bytes, whose map order is not deterministic).
func compare(t *testing.T, want, got proto.Message) {
	t.Helper()
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Errorf("response differs from the vector (-want +got):\n%s", diff)
	}
}

func checkStatus(t *testing.T, v vector, st *status.Status) {
	t.Helper()
	if st.Code() != codes.InvalidArgument {
		t.Errorf("code %v, want InvalidArgument (%s)", st.Code(), st.Message())
	}
	var fields []string
	for _, fv := range errsvcclient.StatusFieldViolations(st) {
		fields = append(fields, fv.GetField())
	}
	if !slices.Contains(fields, v.Error.Field) {
		t.Errorf("BadRequest field violations %q do not name %q", fields, v.Error.Field)
	}
}

// runSuite runs every vector through every method of c.
func runSuite(t *testing.T, c *errsvcclient.Client) {
	vs := loadVectors(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	t.Run("Translate", func(t *testing.T) {
		for _, v := range vs {
			t.Run(v.Name, func(t *testing.T) {
				resp, err := c.Translate(ctx, v.req)
				checkCall(t, v, resp, err)
			})
		}
	})
	t.Run("TranslateBatch", func(t *testing.T) {
		// In batches of batchSize: a server bounds the items of one batch.
		for start := 0; start < len(vs); start += batchSize {
			chunk := vs[start:min(start+batchSize, len(vs))]
			resps, err := c.TranslateBatch(ctx, requests(chunk))
			if err != nil {
				t.Fatal(err)
			}
			if len(resps) != len(chunk) {
				t.Fatalf("%d responses for %d requests", len(resps), len(chunk))
			}
			for i, v := range chunk {
				t.Run(v.Name, func(t *testing.T) { checkItem(t, v, resps[i]) })
			}
		}
	})
	t.Run("Stream", func(t *testing.T) {
		// Every vector over one stream: more than a stream may send at once,
		// so a live server refuses some over its rate and TranslateAll
		// sends them again.
		resps, err := c.TranslateAll(ctx, requests(vs))
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vs {
			t.Run(v.Name, func(t *testing.T) { checkItem(t, v, resps[i]) })
		}
	})
	t.Run("StreamSendRecv", func(t *testing.T) {
		// One request, one answer, in lock step.
		s, err := c.Stream(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs[:10] {
			if err := s.Send(v.req); err != nil {
				t.Fatalf("Send: %v", err)
			}
			resp, err := s.Recv()
			if err != nil {
				t.Fatalf("Recv: %v", err)
			}
			checkItem(t, v, resp)
		}
		if err := s.CloseSend(); err != nil {
			t.Fatal(err)
		}
		if resp, err := s.Recv(); err == nil {
			t.Fatalf("Recv after CloseSend: %v, want io.EOF", resp)
		}
	})
	t.Run("ListVocabularies", func(t *testing.T) {
		got, err := c.ListVocabularies(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(translate.Vocabularies(), got, protocmp.Transform()); diff != "" {
			t.Errorf("vocabularies differ from the translator's (-want +got):\n%s", diff)
		}
		// In process, the answer is the translator's own value, so the
		// comparison above cannot fail there: check it against the
		// contract's descriptors as well, read without the translator.
		if diff := cmp.Diff(vocabularyTerms(), servedTerms(got)); diff != "" {
			t.Errorf("vocabularies differ from the contract's enum values (-want +got):\n%s", diff)
		}
	})
}

// TestInProcess needs no server.
func TestInProcess(t *testing.T) {
	c := errsvcclient.NewInProcess()
	defer c.Close()
	runSuite(t, c)
}

// TestLive runs against the errsvc at ERRSVC_GRPC_ADDR (clients/test.sh
// starts one). Without it, it serves errsvc's own gRPC server on a free
// loopback port and runs there, so it never skips; with
// ERRSVC_REQUIRE_SERVER set, a missing address is a failure.
func TestLive(t *testing.T) {
	addr := os.Getenv("ERRSVC_GRPC_ADDR")
	if addr == "" && os.Getenv("ERRSVC_REQUIRE_SERVER") != "" {
		t.Fatal("ERRSVC_REQUIRE_SERVER is set but ERRSVC_GRPC_ADDR is not")
	}
	if addr == "" {
		if os.Getenv("ERRSVC_REQUIRE_SERVER") != "" {
			t.Fatal("ERRSVC_REQUIRE_SERVER is set but ERRSVC_GRPC_ADDR is not")
		}
		addr = serveLoopback(t)
	}
	c, err := errsvcclient.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	runSuite(t, c)
}

// TestInProcessErrors checks the in-process client reports a
// malformed request as the server does.
func TestInProcessErrors(t *testing.T) {
	c := errsvcclient.NewInProcess()
	_, err := c.Translate(context.Background(), &errsvcv1.TranslateRequest{})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("empty request: %v, want InvalidArgument", err)
	}
	if fv := errsvcclient.FieldViolations(err); len(fv) != 1 || fv[0].GetField() != "source" {
		t.Fatalf("field violations %v, want one naming source", fv)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.ListVocabularies(ctx); status.Code(err) != codes.Canceled {
		t.Fatalf("cancelled context: %v, want Canceled", err)
	}
	s, err := c.Stream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CloseSend(); err != nil {
		t.Fatal(err)
	}
	if err := s.Send(&errsvcv1.TranslateRequest{}); err == nil {
		t.Fatal("Send after CloseSend succeeded")
	}
}

// serveLoopback serves errsvc's gRPC server on a free loopback port for
// the test and returns its address.
func serveLoopback(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := server.NewGRPCServer(server.Options{})
	go func() { _ = s.Serve(lis) }()
	t.Cleanup(s.Stop)
	t.Logf("ERRSVC_GRPC_ADDR unset: serving errsvc on %s for this test", lis.Addr())
	return lis.Addr().String()
}

// vocabularyTerms reads every vocabulary enum of the contract from its
// file descriptor: enum name -> wire spellings, in declaration order.
func vocabularyTerms() map[string][]string {
	out := map[string][]string{}
	enums := errsvcv1.File_errsvc_v1_vocabulary_proto.Enums()
	for i := 0; i < enums.Len(); i++ {
		ed := enums.Get(i)
		for j := 0; j < ed.Values().Len(); j++ {
			vd := ed.Values().Get(j)
			if vd.Number() == 0 {
				continue
			}
			wire, _ := proto.GetExtension(vd.Options(), errsvcv1.E_Wire).(string)
			out[string(ed.Name())] = append(out[string(ed.Name())], wire)
		}
	}
	return out
}

func servedTerms(resp *errsvcv1.ListVocabulariesResponse) map[string][]string {
	out := map[string][]string{}
	for _, v := range resp.GetVocabularies() {
		for _, term := range v.GetTerms() {
			out[v.GetName()] = append(out[v.GetName()], term.GetTerm())
		}
	}
	return out
}
