package codec_test

import (
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/errsvc/errsvc/codec"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
)

// benchAnswer is errsvc's answer to an Agent Surface error, a typical
// full answer (every vocabulary, details, a note).
func benchAnswer(b *testing.B) (*errsvcv1.TranslateRequest, *errsvcv1.TranslateResponse) {
	req := &errsvcv1.TranslateRequest{}
	if err := protojson.Unmarshal([]byte(`{"agent_error":{"code":"TIMEOUT","message":"timed out","retry":"no","details":{"timeoutMs":30000,"idempotent":false}}}`), req); err != nil {
		b.Fatal(err)
	}
	resp, err := translate.Translate(req)
	if err != nil {
		b.Fatal(err)
	}
	return req, resp
}

// The baseline is grpc-go's own codec (protobuf-go), measured in the same
// run: compare the sub-benchmarks, not their absolute figures.
func BenchmarkDecodeAnswer(b *testing.B) {
	_, resp := benchAnswer(b)
	wire, _ := proto.Marshal(resp)
	b.Run("protobuf-go", func(b *testing.B) {
		b.SetBytes(int64(len(wire)))
		for b.Loop() {
			if err := proto.Unmarshal(wire, &errsvcv1.TranslateResponse{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("codec.Client", func(b *testing.B) {
		b.SetBytes(int64(len(wire)))
		for b.Loop() {
			if err := codec.Client.Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, &errsvcv1.TranslateResponse{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkEncodeAnswer(b *testing.B) {
	_, resp := benchAnswer(b)
	b.Run("protobuf-go", func(b *testing.B) {
		for b.Loop() {
			if _, err := proto.Marshal(resp); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("codec.Server", func(b *testing.B) {
		for b.Loop() {
			enc, err := codec.Server.Marshal(resp)
			if err != nil {
				b.Fatal(err)
			}
			enc.Free()
		}
	})
}

func BenchmarkDecodeRequest(b *testing.B) {
	req, _ := benchAnswer(b)
	wire, _ := proto.Marshal(req)
	b.Run("protobuf-go", func(b *testing.B) {
		for b.Loop() {
			if err := proto.Unmarshal(wire, &errsvcv1.TranslateRequest{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("codec.Server", func(b *testing.B) {
		for b.Loop() {
			if err := codec.Server.Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, &errsvcv1.TranslateRequest{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
