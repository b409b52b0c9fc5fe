package codec_test

import (
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/errsvc/errsvc/codec"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/golden"
	"github.com/google/go-cmp/cmp"
	_ "google.golang.org/genproto/googleapis/rpc/errdetails" // Any in grpc_status
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// goldenMessages are every request and answer of testdata/golden.
func goldenMessages(t testing.TB) []proto.Message {
	dir, err := golden.Dir()
	if err != nil {
		t.Fatal(err)
	}
	vectors, err := golden.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []proto.Message
	for _, v := range vectors {
		req := &errsvcv1.TranslateRequest{}
		if err := protojson.Unmarshal(v.Request, req); err == nil {
			out = append(out, req)
		}
		if v.Response != nil {
			resp := &errsvcv1.TranslateResponse{}
			if err := protojson.Unmarshal(v.Response, resp); err != nil {
				t.Fatalf("%s: %v", v.Name, err)
			}
			out = append(out, resp)
		}
	}
	if len(out) < 500 {
		t.Fatalf("only %d golden messages", len(out))
	}
	return out
}

// The generated encoder and protobuf-go must agree on every message errsvc
// sends, both ways: what one writes the other reads back equal. protobuf-go
// is the strict reader (it refuses invalid UTF-8), so this also proves the
// answers the server encodes without that check are valid proto3.
func TestGeneratedCodeAgreesWithProtobufGo(t *testing.T) {
	for _, c := range []struct {
		name  string
		codec interface {
			Marshal(any) (mem.BufferSlice, error)
			Unmarshal(mem.BufferSlice, any) error
		}
	}{{"server", codec.Server}, {"client", codec.Client}} {
		for _, m := range goldenMessages(t) {
			enc, err := c.codec.Marshal(m)
			if err != nil {
				t.Fatalf("%s: marshal %v: %v", c.name, m, err)
			}
			back := m.ProtoReflect().New().Interface()
			if err := proto.Unmarshal(enc.Materialize(), back); err != nil {
				t.Fatalf("%s: protobuf-go cannot read what the codec wrote for %v: %v", c.name, m, err)
			}
			enc.Free()
			if d := cmp.Diff(m, back, protocmp.Transform()); d != "" {
				t.Fatalf("%s: round trip through protobuf-go differs (-sent +read):\n%s", c.name, d)
			}
			wire, err := proto.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			got := m.ProtoReflect().New().Interface()
			if err := c.codec.Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, got); err != nil {
				t.Fatalf("%s: codec cannot read protobuf-go's bytes for %v: %v", c.name, m, err)
			}
			if d := cmp.Diff(m, got, protocmp.Transform()); d != "" {
				t.Fatalf("%s: codec read differs (-sent +read):\n%s", c.name, d)
			}
			if codec.Size(m) != proto.Size(m) {
				t.Fatalf("Size %d, protobuf-go %d for %v", codec.Size(m), proto.Size(m), m)
			}
		}
	}
}

// The server codec reads requests with protobuf-go, which refuses a string
// that is not UTF-8; the generated reader would let it through.
func TestServerRefusesInvalidUTF8(t *testing.T) {
	// field 1 (labby_error), length 4: field 2 (kind) = "\xff\xfe"
	wire := []byte{0x0a, 0x04, 0x12, 0x02, 0xff, 0xfe}
	var req errsvcv1.TranslateRequest
	if err := (&req).UnmarshalVT(wire); err != nil {
		t.Fatalf("the fixture must be readable without the UTF-8 check: %v", err)
	}
	if req.GetLabbyError() == nil {
		t.Fatalf("fixture does not decode to a labby_error: %v", &req)
	}
	if err := codec.Server.Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, &errsvcv1.TranslateRequest{}); err == nil {
		t.Fatal("the server codec accepted a string that is not UTF-8")
	}
}

// Messages without generated methods go through grpc-go's codec.
func TestForeignMessagesFallBack(t *testing.T) {
	in := &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}
	for _, c := range []interface {
		Marshal(any) (mem.BufferSlice, error)
		Unmarshal(mem.BufferSlice, any) error
	}{codec.Server, codec.Client} {
		enc, err := c.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		out := &healthpb.HealthCheckResponse{}
		if err := c.Unmarshal(enc, out); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(in, out) {
			t.Fatalf("got %v, want %v", out, in)
		}
	}
}

// FuzzClientDecode feeds arbitrary bytes to the generated answer decoder the
// client codec uses: it must never panic, and whatever protobuf-go also
// accepts must decode to the same message.
func FuzzClientDecode(f *testing.F) {
	for _, m := range goldenMessages(f) {
		if r, ok := m.(*errsvcv1.TranslateResponse); ok {
			b, _ := proto.Marshal(r)
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := &errsvcv1.TranslateResponse{}
		err := codec.Client.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, got)
		want := &errsvcv1.TranslateResponse{}
		if proto.Unmarshal(b, want) != nil || err != nil {
			return
		}
		if d := cmp.Diff(want, got, protocmp.Transform()); d != "" {
			t.Fatalf("generated decoder and protobuf-go disagree (-protobuf-go +generated):\n%s", d)
		}
	})
}
