package codec_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/errsvc/errsvc/codec"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/golden"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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

// The server codec refuses what protobuf-go refuses and the generated
// decoder alone would let through: a string that is not UTF-8, at any depth,
// and nesting past protobuf-go's limit.
func TestServerRefusesInvalidUTF8AndDeepNesting(t *testing.T) {
	valid := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_AgentError{AgentError: &errsvcv1.AgentError{
		Code: "TIMEOUT", Details: &structpb.Struct{Fields: map[string]*structpb.Value{"k": structpb.NewStringValue("v")}},
	}}}
	good, err := proto.Marshal(valid)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		// field 1 (labby_error), length 4: field 2 (kind) = "\xff\xfe"
		"a top-level string": {0x0a, 0x04, 0x12, 0x02, 0xff, 0xfe},
		"a Struct value":     replace(good, "v", "\xff"),
		"a Struct key":       replace(good, "k", "\xc3"),
	} {
		var req errsvcv1.TranslateRequest
		if err := req.UnmarshalVT(bad); err != nil {
			t.Fatalf("%s: the fixture must decode without the check: %v", name, err)
		}
		if proto.Unmarshal(bad, &errsvcv1.TranslateRequest{}) == nil {
			t.Fatalf("%s: protobuf-go accepts the fixture", name)
		}
		err := codec.Server.Unmarshal(mem.BufferSlice{mem.SliceBuffer(bad)}, &errsvcv1.TranslateRequest{})
		if !errors.Is(err, codec.ErrInvalidUTF8) {
			t.Errorf("%s: the server codec answered %v, want invalid UTF-8", name, err)
		}
		if err := codec.Client.Unmarshal(mem.BufferSlice{mem.SliceBuffer(bad)}, &errsvcv1.TranslateRequest{}); err != nil {
			t.Errorf("%s: the client codec does not check, yet: %v", name, err)
		}
	}

	// Values nested past the limit: Value{struct_value: Struct{fields: {"": Value{...}}}}.
	deep := []byte{}
	for range codec.MaxDepth/2 + 10 {
		entry := append([]byte{0x12}, protowire.AppendVarint(nil, uint64(len(deep)))...) // map entry value (field 2)
		entry = append(entry, deep...)
		st := append([]byte{0x0a}, protowire.AppendVarint(nil, uint64(len(entry)))...) // Struct.fields (1)
		st = append(st, entry...)
		deep = append([]byte{0x2a}, protowire.AppendVarint(nil, uint64(len(st)))...) // Value.struct_value (5)
		deep = append(deep, st...)
	}
	err = codec.Server.Unmarshal(mem.BufferSlice{mem.SliceBuffer(deep)}, &structpb.Value{})
	if err == nil || !strings.Contains(err.Error(), "depth") {
		t.Errorf("nesting past %d levels: %v", codec.MaxDepth, err)
	}
}

// replace swaps the one occurrence of old in b, same length.
func replace(b []byte, old, new string) []byte {
	out := bytes.Clone(b)
	i := bytes.Index(out, []byte(old))
	copy(out[i:], new)
	return out
}

// FuzzServerDecode feeds arbitrary bytes to the server codec: it must never
// panic, accept nothing protobuf-go refuses, and decode what both accept to
// the same message.
func FuzzServerDecode(f *testing.F) {
	for _, m := range goldenMessages(f) {
		if r, ok := m.(*errsvcv1.TranslateRequest); ok {
			b, _ := proto.Marshal(r)
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := &errsvcv1.TranslateRequest{}
		err := codec.Server.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, got)
		want := &errsvcv1.TranslateRequest{}
		wantErr := proto.Unmarshal(b, want)
		if err != nil {
			return // stricter than protobuf-go is allowed (a wire type that does not match the field)
		}
		if wantErr != nil {
			t.Fatalf("the server codec accepted bytes protobuf-go refuses (%v)", wantErr)
		}
		// Unknown fields may differ: vtprotobuf's google.protobuf.Struct drops
		// them, protobuf-go keeps them; the translator reads neither. A NaN
		// double (retry_after_secs) is no value equal to itself.
		if d := cmp.Diff(want, got, protocmp.Transform(), protocmp.IgnoreUnknown(), cmpopts.EquateNaNs()); d != "" {
			t.Fatalf("generated decoder and protobuf-go disagree (-protobuf-go +generated):\n%s", d)
		}
	})
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
		if d := cmp.Diff(want, got, protocmp.Transform(), cmpopts.EquateNaNs()); d != "" {
			t.Fatalf("generated decoder and protobuf-go disagree (-protobuf-go +generated):\n%s", d)
		}
	})
}

// Encode is Marshal done ahead: the same bytes, from a plain slice for a
// small message and from grpc-go's pool for a large one, which the codec
// hands to grpc-go once; and protobuf-go's bytes for a foreign message.
func TestEncodeIsMarshal(t *testing.T) {
	small := &errsvcv1.TranslateResponse{HttpStatus: proto.Int32(429)}
	large := &errsvcv1.TranslateResponse{LabbyError: &errsvcv1.LabbyError{Kind: "rate_limited", Message: strings.Repeat("slow down ", 300)}}
	foreign := &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}
	for name, m := range map[string]proto.Message{"small": small, "large": large, "foreign": foreign} {
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := codec.Encode(m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(enc.Bytes, want) {
			t.Fatalf("%s: Encode's bytes differ from protobuf-go's", name)
		}
		bs, err := codec.Server.Marshal(enc)
		if err != nil {
			t.Fatal(err)
		}
		if got := bs.Materialize(); !bytes.Equal(got, want) {
			t.Fatalf("%s: the codec sent other bytes than Encode's", name)
		}
		bs.Free()
	}
}
