// Package codec is errsvc's gRPC codec: the standard "proto" wire format,
// encoded and decoded by the methods protoc-gen-go-vtproto generates
// (MarshalToSizedBufferVT, UnmarshalVT, SizeVT) instead of protobuf-go's
// reflection. Messages without those methods (health, reflection, any
// foreign service on the same server) go through grpc-go's own codec, so
// installing it server-wide or on a client connection changes nothing on
// the wire, only the CPU and the garbage each message costs.
//
// Server: grpc.ForceServerCodecV2(codec.Server). Client:
// grpc.WithDefaultCallOptions(grpc.ForceCodecV2(codec.Client)).
package codec

import (
	"fmt"

	"google.golang.org/grpc/encoding"
	protoenc "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// Server encodes answers with the generated methods but decodes requests
// with protobuf-go: requests are untrusted, and protobuf-go refuses a string
// that is not valid UTF-8, as proto3 requires, where the generated decoder
// would let it in. The translator only ever emits valid UTF-8 (every golden
// answer is checked by protobuf-go's own decoder in codec_test.go).
var Server encoding.CodecV2 = vtCodec{decodeGenerated: false}

// Client uses the generated methods both ways: a client trusts its server's
// answers as far as UTF-8 goes. It decodes with UnmarshalVTUnsafe: the
// answer's strings point into a private copy of the received bytes instead
// of one allocation each; nothing ever writes to that copy, and it lives as
// long as any string of the answer does.
var Client encoding.CodecV2 = vtCodec{decodeGenerated: true}

// generated is the part of vtprotobuf's output the codec needs.
type generated interface {
	SizeVT() int
	MarshalToSizedBufferVT([]byte) (int, error)
	UnmarshalVT([]byte) error
}

// aliasing is the zero-copy decoder of the unmarshal_unsafe feature.
type aliasing interface {
	UnmarshalVTUnsafe([]byte) error
}

type vtCodec struct {
	decodeGenerated bool
}

// fallback is grpc-go's registered "proto" codec, looked up once.
var fallback = encoding.GetCodecV2(protoenc.Name)

func (vtCodec) Name() string { return protoenc.Name }

func (vtCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(generated)
	if !ok {
		return fallback.Marshal(v)
	}
	size := m.SizeVT()
	// Small answers are plain slices, large ones come from grpc-go's buffer
	// pool and go back to it once written (the same split grpc-go makes).
	if mem.IsBelowBufferPoolingThreshold(size) {
		buf := make([]byte, size)
		if _, err := m.MarshalToSizedBufferVT(buf); err != nil {
			return nil, fmt.Errorf("codec: marshal %T: %w", v, err)
		}
		return mem.BufferSlice{mem.SliceBuffer(buf)}, nil
	}
	pool := mem.DefaultBufferPool()
	buf := pool.Get(size)
	if _, err := m.MarshalToSizedBufferVT((*buf)[:size]); err != nil {
		pool.Put(buf)
		return nil, fmt.Errorf("codec: marshal %T: %w", v, err)
	}
	return mem.BufferSlice{mem.NewBuffer(buf, pool)}, nil
}

func (c vtCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(generated)
	if !ok || !c.decodeGenerated {
		return fallback.Unmarshal(data, v)
	}
	if a, ok := v.(aliasing); ok {
		return a.UnmarshalVTUnsafe(data.Materialize())
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	// UnmarshalVT copies strings and bytes out of buf, so freeing it after
	// is safe.
	return m.UnmarshalVT(buf.ReadOnlyData())
}

// Size is the encoded size of m, by the generated SizeVT when m has one.
func Size(m proto.Message) int {
	if g, ok := m.(generated); ok {
		return g.SizeVT()
	}
	return proto.Size(m)
}
