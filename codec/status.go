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
// proto.Marshal and allocates its bytes, about a third of encoding a whole
// answer. The codec writes that one field itself, with protowire, where the
// generated code would: after TranslateResponse's fields 1 to 5 (numbers
// the contract can never reuse) and before everything else. A batch's
// answers are written the same way, one by one. TestResponseEncoding holds
// the bytes to the generated code's, for every golden answer and for an
// answer with every field set.

// grpcStatusTag is TranslateResponse.grpc_status's tag (field 6, bytes).
var grpcStatusTag = protowire.EncodeTag(6, protowire.BytesType)

// responseParts is an answer split around its grpc_status: head holds
// fields 1 to 5, tail the rest (fields 7 and up, the unknown fields).
type responseParts struct {
	head, tail errsvcv1.TranslateResponse
	status     *status.Status
	statusLen  int
}

// copyValue is *dst = *src for a generated message, whose lock-free state
// go vet would otherwise take for a copied lock; a shallow copy that only
// the generated methods read.
func copyValue[T any](dst, src *T) { *dst = *src }

func (p *responseParts) split(m *errsvcv1.TranslateResponse) {
	copyValue(&p.tail, m)
	p.tail.LabbyError, p.tail.CodeModeError, p.tail.AgentError, p.tail.Classification, p.tail.HttpStatus, p.tail.GrpcStatus = nil, nil, nil, nil, nil, nil
	p.head.LabbyError, p.head.CodeModeError, p.head.AgentError, p.head.Classification, p.head.HttpStatus = m.LabbyError, m.CodeModeError, m.AgentError, m.Classification, m.HttpStatus
	p.status = m.GrpcStatus
	p.statusLen = statusSize(p.status)
}

func (p *responseParts) size() int {
	return p.head.SizeVT() + protowire.SizeTag(6) + protowire.SizeBytes(p.statusLen) + p.tail.SizeVT()
}

// marshalTo writes the answer into b, of exactly size() bytes.
func (p *responseParts) marshalTo(b []byte) error {
	n, err := p.tail.MarshalToSizedBufferVT(b)
	if err != nil {
		return err
	}
	i := len(b) - n - p.statusLen
	if i < 0 || len(appendStatus(b[i:i], p.status)) != p.statusLen {
		return errShortBuffer
	}
	i -= protowire.SizeVarint(uint64(p.statusLen))
	if i < 0 {
		return errShortBuffer
	}
	protowire.AppendVarint(b[i:i], uint64(p.statusLen))
	i -= protowire.SizeVarint(grpcStatusTag)
	if i < 0 {
		return errShortBuffer
	}
	protowire.AppendVarint(b[i:i], grpcStatusTag)
	n, err = p.head.MarshalToSizedBufferVT(b[:i])
	if err == nil && n != i {
		return errShortBuffer
	}
	return err
}

var errShortBuffer = errors.New("codec: answer size changed while encoding")

// responseSize and marshalResponse are SizeVT and MarshalToSizedBufferVT
// of m with its grpc_status written by appendStatus.
func responseSize(m *errsvcv1.TranslateResponse) int {
	if m.GrpcStatus == nil {
		return m.SizeVT()
	}
	var p responseParts
	p.split(m)
	return p.size()
}

func marshalResponse(m *errsvcv1.TranslateResponse, b []byte) error {
	if m.GrpcStatus == nil {
		_, err := m.MarshalToSizedBufferVT(b)
		return err
	}
	var p responseParts
	p.split(m)
	return p.marshalTo(b)
}

// batchSize and marshalBatch are the same for a batch: its answers are
// field 1, in order, and the batch's unknown fields follow.
func batchSize(m *errsvcv1.TranslateBatchResponse) int {
	n := 0
	for _, r := range m.Responses {
		size := 0
		if r != nil {
			size = responseSize(r)
		}
		n += protowire.SizeTag(1) + protowire.SizeBytes(size)
	}
	var rest errsvcv1.TranslateBatchResponse
	copyValue(&rest, m)
	rest.Responses = nil
	return n + rest.SizeVT()
}

func marshalBatch(m *errsvcv1.TranslateBatchResponse, b []byte) error {
	var rest errsvcv1.TranslateBatchResponse
	copyValue(&rest, m)
	rest.Responses = nil
	n, err := rest.MarshalToSizedBufferVT(b)
	if err != nil {
		return err
	}
	i := len(b) - n
	for k := len(m.Responses) - 1; k >= 0; k-- {
		r := m.Responses[k]
		var size int
		if r != nil {
			size = responseSize(r)
		}
		if i -= size; i < 0 {
			return errShortBuffer
		}
		if r != nil {
			if err := marshalResponse(r, b[i:i+size]); err != nil {
				return err
			}
		}
		i -= protowire.SizeVarint(uint64(size)) + protowire.SizeTag(1)
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
