package codec

import (
	"errors"

	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/anypb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// An answer's grpc_status is a google.rpc.Status, genproto's type, which
// has no generated VT methods: the generated code of TranslateResponse
// hands it to protobuf-go, which sizes it in SizeVT, sizes it again in
// proto.Marshal and allocates its bytes (BenchmarkEncodeAnswer: 950 ns and
// 4 allocations that way, 860 ns and 3 this way). The codec writes that
// one field itself, with protowire, where the generated code would: after
// TranslateResponse's fields 1 to 5 (numbers the contract can never
// reuse) and before everything else. A batch's answers are written the
// same way, one by one. Like the generated code, the writing goes from the
// end of the buffer to its start, so each part's size comes from writing
// it, not from sizing it again. TestResponseEncoding holds the bytes to
// the generated code's, for every golden answer and for an answer with
// every field set.
//
// What it earns a caller (issue 42): alone, noise (turned off, a +1.2% /
// -1.9% and c +0.7% / -3.8% at 16 / 64 callers, 3 rounds); with the other
// four paths of docs/TESTING.md's set of five, a +5.2% / +6.7%, c +4.0% /
// +4.2% (bench/ab.sh, 5 interleaved rounds, 2026-12-05).
//
// Decoding an answer is the generated code's, the Status protobuf-go's.
// The codec read the Status in place once, 136 ns less per answer
// (BenchmarkDecodeAnswer 1.72 µs against 1.86), which earned a caller
// nothing: a +0.2% / +1.7% with it, each revision driven by its own load
// generator (ERRSVC_AB_LOADGEN=each bench/ab.sh, 3 rounds), so it went.

// grpcStatusTag is TranslateResponse.grpc_status's tag (field 6, bytes).
var grpcStatusTag = protowire.EncodeTag(6, protowire.BytesType)

// responseParts is an answer split around its grpc_status: head holds
// fields 1 to 5, tail the rest (fields 7 and up), unknown its unknown
// fields, written last (set on tail through ProtoReflect, the parts would
// escape to the heap: 768 bytes per answer).
type responseParts struct {
	head, tail errsvcv1.TranslateResponse
	status     *status.Status
	unknown    []byte
}

// split fills p from m. The parts get m's fields one by one (a copy of
// the whole struct would read its protobuf-go state without the atomics
// protobuf-go writes it with); a field added to the contract must be added
// here too, and TestResponseEncoding fails until it is.
func (p *responseParts) split(m *errsvcv1.TranslateResponse) {
	p.head.LabbyError, p.head.CodeModeError, p.head.AgentError, p.head.Classification, p.head.HttpStatus = m.LabbyError, m.CodeModeError, m.AgentError, m.Classification, m.HttpStatus
	t := &p.tail
	t.Notes, t.Error, t.Handling, t.HttpHeaders, t.GrpcMetadata = m.Notes, m.Error, m.Handling, m.HttpHeaders, m.GrpcMetadata
	t.OpenaiError, t.AnthropicError, t.GoogleError, t.JsonrpcError, t.Limit = m.OpenaiError, m.AnthropicError, m.GoogleError, m.JsonrpcError, m.Limit
	p.unknown = m.ProtoReflect().GetUnknown()
	p.status = m.GrpcStatus
}

var errShortBuffer = errors.New("codec: answer size changed while encoding")

// responseSize is SizeVT of m with its grpc_status sized by statusSize.
func responseSize(m *errsvcv1.TranslateResponse) int {
	if m.GrpcStatus == nil {
		return m.SizeVT()
	}
	var p responseParts
	p.split(m)
	return p.head.SizeVT() + protowire.SizeTag(6) + protowire.SizeBytes(statusSize(p.status)) + p.tail.SizeVT() + len(p.unknown)
}

// marshalResponse writes m into b, of exactly responseSize(m) bytes.
func marshalResponse(m *errsvcv1.TranslateResponse, b []byte) error {
	n, err := marshalResponseBack(m, b)
	if err == nil && n != len(b) {
		return errShortBuffer
	}
	return err
}

// marshalResponseBack is MarshalToSizedBufferVT of m (written at the end
// of b, its size returned) with its grpc_status written by appendStatus.
func marshalResponseBack(m *errsvcv1.TranslateResponse, b []byte) (int, error) {
	if m.GrpcStatus == nil {
		return m.MarshalToSizedBufferVT(b)
	}
	var p responseParts
	p.split(m)
	i := len(b) - len(p.unknown)
	if i < 0 {
		return 0, errShortBuffer
	}
	copy(b[i:], p.unknown)
	n, err := p.tail.MarshalToSizedBufferVT(b[:i])
	if err != nil {
		return 0, err
	}
	i -= n
	st := statusSize(p.status)
	field := protowire.SizeTag(6) + protowire.SizeBytes(st)
	if i < field {
		return 0, errShortBuffer
	}
	i -= field
	w := protowire.AppendVarint(protowire.AppendVarint(b[i:i], grpcStatusTag), uint64(st))
	if len(appendStatus(w, p.status)) != field {
		return 0, errShortBuffer
	}
	n, err = p.head.MarshalToSizedBufferVT(b[:i])
	if err != nil {
		return 0, err
	}
	return len(b) - i + n, nil
}

// batchSize and marshalBatch are the same for a batch: its answers are
// field 1, in order, and the batch's unknown fields follow (the batch has
// no other field; TestResponseEncoding fails if it gains one).
func batchSize(m *errsvcv1.TranslateBatchResponse) int {
	n := len(m.ProtoReflect().GetUnknown())
	for _, r := range m.Responses {
		size := 0
		if r != nil {
			size = responseSize(r)
		}
		n += protowire.SizeTag(1) + protowire.SizeBytes(size)
	}
	return n
}

func marshalBatch(m *errsvcv1.TranslateBatchResponse, b []byte) error {
	unknown := m.ProtoReflect().GetUnknown()
	i := len(b) - len(unknown)
	if i < 0 {
		return errShortBuffer
	}
	copy(b[i:], unknown)
	for k := len(m.Responses) - 1; k >= 0; k-- {
		size := 0
		if r := m.Responses[k]; r != nil {
			n, err := marshalResponseBack(r, b[:i])
			if err != nil {
				return err
			}
			size = n
		}
		i -= size + protowire.SizeVarint(uint64(size)) + protowire.SizeTag(1)
		if i < 0 {
			return errShortBuffer
		}
		protowire.AppendVarint(protowire.AppendTag(b[i:i], 1, protowire.BytesType), uint64(size))
	}
	if i != 0 {
		return errShortBuffer
	}
	return nil
}

// statusSize is the encoded size of st as protobuf-go writes it: known
// fields in number order, zero values left out, then its unknown fields.
func statusSize(st *status.Status) int {
	n := len(st.ProtoReflect().GetUnknown())
	if st.Code != 0 {
		n += protowire.SizeTag(1) + protowire.SizeVarint(uint64(int64(st.Code)))
	}
	if st.Message != "" {
		n += protowire.SizeTag(2) + protowire.SizeBytes(len(st.Message))
	}
	for _, d := range st.Details {
		n += protowire.SizeTag(3) + protowire.SizeBytes(anySize(d))
	}
	return n
}

// anySize is the encoded size of a detail (a nil one is empty, as
// protobuf-go writes it).
func anySize(d *anypb.Any) int {
	if d == nil {
		return 0
	}
	n := len(d.ProtoReflect().GetUnknown())
	if d.TypeUrl != "" {
		n += protowire.SizeTag(1) + protowire.SizeBytes(len(d.TypeUrl))
	}
	if len(d.Value) > 0 {
		n += protowire.SizeTag(2) + protowire.SizeBytes(len(d.Value))
	}
	return n
}

func appendStatus(b []byte, st *status.Status) []byte {
	if st.Code != 0 {
		b = protowire.AppendVarint(protowire.AppendTag(b, 1, protowire.VarintType), uint64(int64(st.Code)))
	}
	if st.Message != "" {
		b = protowire.AppendString(protowire.AppendTag(b, 2, protowire.BytesType), st.Message)
	}
	for _, d := range st.Details {
		b = protowire.AppendVarint(protowire.AppendTag(b, 3, protowire.BytesType), uint64(anySize(d)))
		if d == nil {
			continue
		}
		if d.TypeUrl != "" {
			b = protowire.AppendString(protowire.AppendTag(b, 1, protowire.BytesType), d.TypeUrl)
		}
		if len(d.Value) > 0 {
			b = protowire.AppendBytes(protowire.AppendTag(b, 2, protowire.BytesType), d.Value)
		}
		b = append(b, d.ProtoReflect().GetUnknown()...)
	}
	return append(b, st.ProtoReflect().GetUnknown()...)
}
