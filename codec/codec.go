// Package codec is errsvc's gRPC codec: the standard "proto" wire format,
// encoded and decoded by the methods protoc-gen-go-vtproto generates
// (MarshalToSizedBufferVT, UnmarshalVTUnsafe, SizeVT) instead of
// protobuf-go's reflection. Messages without those methods (health,
// reflection, any foreign service on the same server) go through grpc-go's
// own codec, so installing it server-wide or on a client connection changes
// nothing on the wire, only the CPU and the garbage each message costs.
//
// Server: grpc.ForceServerCodecV2(codec.Server). Client:
// grpc.WithDefaultCallOptions(grpc.ForceCodecV2(codec.Client)).
package codec

import (
	"errors"
	"fmt"
	"google.golang.org/protobuf/encoding/protowire"
	"strconv"

	"google.golang.org/grpc/encoding"
	protoenc "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Server is the codec for untrusted input. Before the generated decoder
// runs, CheckWire walks the bytes against the message's descriptor and
// refuses what protobuf-go would refuse and the generated decoder would
// not: a string that is not valid UTF-8 (proto3 requires it) and nesting
// deeper than protobuf-go's limit (the generated decoder recurses without
// one).
var Server encoding.CodecV2 = vtCodec{checkWire: true}

// Client trusts its server's answers: the generated decoder alone.
var Client encoding.CodecV2 = vtCodec{}

// generated is the part of vtprotobuf's output the codec needs.
type generated interface {
	proto.Message
	SizeVT() int
	MarshalToSizedBufferVT([]byte) (int, error)
	// UnmarshalVTUnsafe (feature unmarshal_unsafe) decodes without copying:
	// the message's strings point into the bytes it was given.
	UnmarshalVTUnsafe([]byte) error
}

type vtCodec struct {
	checkWire bool
}

// fallback is grpc-go's registered "proto" codec, looked up once.
var fallback = encoding.GetCodecV2(protoenc.Name)

func (vtCodec) Name() string { return protoenc.Name }

func (vtCodec) Marshal(v any) (mem.BufferSlice, error) {
	if e, ok := v.(*Encoded); ok {
		if buf := e.pooled; buf != nil {
			// Handed over once: grpc-go returns it to the pool when written.
			e.pooled, e.Bytes = nil, nil
			return mem.BufferSlice{mem.NewBuffer(buf, encodeBuffers)}, nil
		}
		return mem.BufferSlice{mem.SliceBuffer(e.Bytes)}, nil
	}
	m, ok := v.(generated)
	if !ok {
		return fallback.Marshal(v)
	}
	plain, pooled, err := encode(m)
	if err != nil {
		return nil, fmt.Errorf("codec: marshal %T: %w", v, err)
	}
	if pooled != nil {
		return mem.BufferSlice{mem.NewBuffer(pooled, encodeBuffers)}, nil
	}
	return mem.BufferSlice{mem.SliceBuffer(plain)}, nil
}

// Encode encodes v now, for a caller about to reuse v's memory (an answer
// in leased storage): the codec then sends the bytes as they are, and a
// large message's buffer comes from the codec's pool (encodeBuffers) and
// goes back to it once written, as Marshal's would. A message without the
// generated methods is encoded by protobuf-go.
func Encode(v proto.Message) (*Encoded, error) {
	m, ok := v.(generated)
	if !ok {
		b, err := proto.Marshal(v)
		if err != nil {
			return nil, err
		}
		return &Encoded{Bytes: b}, nil
	}
	plain, pooled, err := encode(m)
	if err != nil {
		return nil, fmt.Errorf("codec: marshal %T: %w", v, err)
	}
	if pooled != nil {
		return &Encoded{Bytes: *pooled, pooled: pooled}, nil
	}
	return &Encoded{Bytes: plain}, nil
}

// encode encodes m into a plain slice when it is small, else into a buffer
// from encodeBuffers (the split grpc-go makes), returned as pooled.
func encode(m generated) (plain []byte, pooled *[]byte, err error) {
	size := sizeOf(m)
	if mem.IsBelowBufferPoolingThreshold(size) {
		buf := make([]byte, size)
		if err := marshalTo(m, buf); err != nil {
			return nil, nil, err
		}
		return buf, nil, nil
	}
	buf := encodeBuffers.Get(size)
	if err := marshalTo(m, *buf); err != nil {
		encodeBuffers.Put(buf)
		return nil, nil, err
	}
	return nil, buf, nil
}

// sizeOf and marshalTo are the generated SizeVT and MarshalToSizedBufferVT,
// but for answers, whose google.rpc.Status the codec writes (status.go).
// marshalTo fills all of b or fails: b may be a reused buffer
// (encodeBuffers), and a byte it left unwritten would send what an earlier
// answer left there.
func sizeOf(m generated) int {
	switch m := m.(type) {
	case *errsvcv1.TranslateResponse:
		return responseSize(m)
	case *errsvcv1.TranslateBatchResponse:
		return batchSize(m)
	}
	return m.SizeVT()
}

func marshalTo(m generated, b []byte) error {
	switch m := m.(type) {
	case *errsvcv1.TranslateResponse:
		return marshalResponse(m, b)
	case *errsvcv1.TranslateBatchResponse:
		return marshalBatch(m, b)
	}
	n, err := m.MarshalToSizedBufferVT(b)
	if err == nil && n != len(b) {
		return errShortBuffer
	}
	return err
}

func (c vtCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if capture, ok := v.(*Capture); ok {
		if n := data.Len(); capture.MaxBytes > 0 && n > capture.MaxBytes {
			capture.Err = &FieldError{Field: "body", Err: ErrTooLarge,
				Description: "message of " + strconv.Itoa(n) + " bytes exceeds " + strconv.Itoa(capture.MaxBytes)}
			return nil
		}
		if _, batch := capture.Msg.(*errsvcv1.TranslateBatchRequest); batch && capture.MaxItems > 0 {
			// Counted before a byte is decoded: a million empty items
			// under the byte limit cost a scan, not a million messages.
			b := data.Materialize()
			if n := countBatchItems(b, capture.MaxItems); n > capture.MaxItems {
				capture.Err = &FieldError{Field: "requests", Err: ErrTooManyItems,
					Description: "a batch holds at most " + strconv.Itoa(capture.MaxItems) + " requests"}
				return nil
			}
			if capture.Raw != nil && capture.Raw.Raw(b) {
				return nil
			}
			capture.Err = c.unmarshalBytes(b, capture.Msg)
			return nil
		}
		if _, ok := capture.Msg.(generated); capture.Raw == nil || !ok {
			capture.Err = c.Unmarshal(data, capture.Msg)
			return nil
		}
		b := data.Materialize()
		if capture.Raw.Raw(b) {
			return nil
		}
		capture.Err = c.unmarshalBytes(b, capture.Msg)
		return nil
	}
	if _, ok := v.(generated); !ok {
		return fallback.Unmarshal(data, v)
	}
	// A private copy: the decoded strings point into it, nothing ever
	// writes to it, and it lives as long as any of them does. One
	// allocation instead of one per string.
	return c.unmarshalBytes(data.Materialize(), v)
}

// unmarshalBytes decodes b, a private copy of a message, into v, which has
// the generated methods.
func (c vtCodec) unmarshalBytes(b []byte, v any) error {
	m := v.(generated)
	if c.checkWire {
		if err := CheckWire(b, m.ProtoReflect().Descriptor()); err != nil {
			// A batch is decoded item by item instead: one bad item fails
			// alone (see unmarshalBatchItems).
			// Too many values is the request's fault, never one item's.
			if batch, ok := v.(*errsvcv1.TranslateBatchRequest); ok && !errors.Is(err, ErrTooWide) {
				return unmarshalBatchItems(b, batch)
			}
			return err
		}
	}
	return m.UnmarshalVTUnsafe(b)
}

// Marshal is m's encoding in a slice of its own (never a pooled buffer),
// for a caller that keeps the bytes.
func Marshal(m proto.Message) ([]byte, error) {
	g, ok := m.(generated)
	if !ok {
		return proto.Marshal(m)
	}
	b := make([]byte, sizeOf(g))
	if err := marshalTo(g, b); err != nil {
		return nil, fmt.Errorf("codec: marshal %T: %w", m, err)
	}
	return b, nil
}

// Size is the encoded size of m, by the generated SizeVT when m has one.
func Size(m proto.Message) int {
	if g, ok := m.(generated); ok {
		return sizeOf(g)
	}
	return proto.Size(m)
}

// ErrInvalidUTF8 is wrapped by CheckWire's error for a string that is not
// valid UTF-8.
var ErrInvalidUTF8 = errors.New("invalid UTF-8")

// Capture carries the codec's refusal through grpc-go, which would
// otherwise answer a codec error itself, with a bare INTERNAL status,
// before the handler can say what was wrong: receive into
// &Capture{Msg: m}; the receive then succeeds and Err holds what the codec
// refused (a *FieldError for a known field, or for a message over
// MaxBytes when that is set). Only the server codec fills it.
type Capture struct {
	Msg      proto.Message
	MaxBytes int
	// MaxItems, when positive, bounds a TranslateBatchRequest's requests:
	// they are counted on the wire before anything is decoded, and past it
	// Err is a FieldError on "requests" wrapping ErrTooManyItems.
	MaxItems int
	Err      error
	// Raw, when set, sees the message's bytes (within MaxBytes) before they
	// are checked and decoded: a private copy nothing writes to, which it
	// may keep, e.g. as the key of a cache of answers. When it returns
	// true the caller already has its answer for exactly these bytes (which
	// were checked when it was made), so they are not decoded and Msg
	// stays as it was.
	Raw RawHook
}

// RawHook is Capture.Raw: an interface rather than a func, so a per-call
// value the caller already holds serves as the hook without a closure.
type RawHook interface {
	Raw(b []byte) (answered bool)
}

// Encoded is a message already encoded in the wire format, e.g. a cached
// answer: the codec sends Bytes as they are. Nothing may write to Bytes
// once it is handed over.
type Encoded struct {
	Bytes []byte
	// pooled is Bytes' buffer when it came from encodeBuffers (Encode):
	// the first Marshal hands it to grpc-go, which puts it back once
	// written, so such an Encoded is sent once.
	pooled *[]byte
}

// ErrTooLarge is wrapped by Capture.Err for a message over MaxBytes.
var ErrTooLarge = errorString("message too large")

// ErrTooManyItems is a batch with more requests than Capture.MaxItems.
var ErrTooManyItems = errorString("too many items")

// countBatchItems counts the requests of an encoded TranslateBatchRequest,
// stopping once it passes max; malformed framing stops the count (the
// decoder refuses it with its own error).
func countBatchItems(b []byte, max int) int {
	n := 0
	for len(b) > 0 && n <= max {
		num, typ, k := protowire.ConsumeTag(b)
		if k < 0 {
			return n
		}
		size := protowire.ConsumeFieldValue(num, typ, b[k:])
		if size < 0 {
			return n
		}
		if num == 1 && typ == protowire.BytesType {
			n++
		}
		b = b[k+size:]
	}
	return n
}
