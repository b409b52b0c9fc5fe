package codec

import (
	"unicode/utf8"
	"unsafe"

	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/anypb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// An answer's grpc_status is a google.rpc.Status, genproto's type, which
// has no generated VT methods: the generated decoder of TranslateResponse
// hands it to proto.Unmarshal, which allocates what it copies. (Encoding
// it is left to the generated code: writing the Status with protowire
// saved about 90 ns per answer, which no caller saw; see CHANGELOG.) unmarshalResponse
// decodes the answer's other fields with the generated code, on the bytes
// before and after grpc_status (decoding into the same message is decoding
// the bytes as one, as protobuf defines it), and the Status itself with
// decodeStatus, whose strings and bytes point into b as the generated
// unsafe decoder's do. Anything but the one canonical Status (the field
// twice, an unknown field, text that is not UTF-8, any malformation) is
// left to the generated code, so every answer decodes to what it decoded
// to before; TestResponseDecoding and FuzzResponseDecoding hold the two to
// the same message or the same refusal.
func unmarshalResponse(b []byte, m *errsvcv1.TranslateResponse) error {
	start, from, to := statusField(b)
	if start < 0 {
		return m.UnmarshalVTUnsafe(b)
	}
	st, ok := decodeStatus(b[from:to])
	if !ok {
		return m.UnmarshalVTUnsafe(b)
	}
	head, tail := b[:start], b[to:]
	if err := m.UnmarshalVTUnsafe(head); err != nil {
		return err
	}
	if err := m.UnmarshalVTUnsafe(tail); err != nil {
		return err
	}
	m.GrpcStatus = st
	return nil
}

// statusField is where b's one grpc_status field starts and where its
// value lies, or -1s when b has none, more than one, or cannot be walked.
func statusField(b []byte) (start, from, to int) {
	start = -1
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 {
			return -1, -1, -1
		}
		size := protowire.ConsumeFieldValue(num, typ, b[i+n:])
		if size < 0 {
			return -1, -1, -1
		}
		if num == 6 {
			v, _ := protowire.ConsumeBytes(b[i+n:])
			if start >= 0 || typ != protowire.BytesType {
				return -1, -1, -1
			}
			start, to = i, i+n+size
			from = to - len(v)
		}
		i += n + size
	}
	return start, from, to
}

// decodeStatus reads a Status made only of its known fields, each of its
// wire type, with valid text; ok is false for anything else.
func decodeStatus(b []byte) (*status.Status, bool) {
	st := &status.Status{}
	n := 0 // the details, counted first: one block holds them all
	for rest := b; len(rest) > 0; {
		num, typ, k := protowire.ConsumeTag(rest)
		if k < 0 {
			return nil, false
		}
		size := protowire.ConsumeFieldValue(num, typ, rest[k:])
		if size < 0 {
			return nil, false
		}
		if num == 3 {
			n++
		}
		rest = rest[k+size:]
	}
	var anys []anypb.Any
	if n > 0 {
		anys = make([]anypb.Any, n)
		st.Details = make([]*anypb.Any, 0, n)
	}
	for len(b) > 0 {
		num, typ, k := protowire.ConsumeTag(b)
		if k < 0 {
			return nil, false
		}
		b = b[k:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			v, vn := protowire.ConsumeVarint(b)
			if vn < 0 {
				return nil, false
			}
			st.Code, b = int32(v), b[vn:]
		case num == 2 && typ == protowire.BytesType:
			v, vn := protowire.ConsumeBytes(b)
			if vn < 0 || !utf8.Valid(v) {
				return nil, false
			}
			st.Message, b = unsafeString(v), b[vn:]
		case num == 3 && typ == protowire.BytesType:
			v, vn := protowire.ConsumeBytes(b)
			if vn < 0 || len(st.Details) == n {
				return nil, false
			}
			d := &anys[len(st.Details)]
			if !decodeAny(v, d) {
				return nil, false
			}
			st.Details, b = append(st.Details, d), b[vn:]
		default:
			return nil, false
		}
	}
	return st, len(st.Details) == n
}

func decodeAny(b []byte, d *anypb.Any) bool {
	for len(b) > 0 {
		num, typ, k := protowire.ConsumeTag(b)
		if k < 0 || typ != protowire.BytesType {
			return false
		}
		v, vn := protowire.ConsumeBytes(b[k:])
		if vn < 0 {
			return false
		}
		switch num {
		case 1:
			if !utf8.Valid(v) {
				return false
			}
			d.TypeUrl = unsafeString(v)
		case 2:
			d.Value = v[:len(v):len(v)]
		default:
			return false
		}
		b = b[k+vn:]
	}
	return true
}

// unsafeString is b as a string without a copy, as the generated unsafe
// decoder makes its strings: b is the codec's private copy of a message,
// never written again.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// unmarshalBatch decodes a batch of answers, each with unmarshalResponse;
// the batch's other fields go to the generated code, in their order.
func unmarshalBatch(b []byte, m *errsvcv1.TranslateBatchResponse) error {
	var rest []byte
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 {
			return m.UnmarshalVTUnsafe(b)
		}
		size := protowire.ConsumeFieldValue(num, typ, b[i+n:])
		if size < 0 {
			return m.UnmarshalVTUnsafe(b)
		}
		field := b[i : i+n+size]
		i += n + size
		if num != 1 || typ != protowire.BytesType {
			rest = append(rest, field...)
			continue
		}
		v, _ := protowire.ConsumeBytes(field[n:])
		item := &errsvcv1.TranslateResponse{}
		if err := unmarshalResponse(v, item); err != nil {
			return err
		}
		m.Responses = append(m.Responses, item)
	}
	if len(rest) == 0 {
		return nil
	}
	return m.UnmarshalVTUnsafe(rest)
}
