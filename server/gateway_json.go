package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/errsvc/errsvc/codec"
	"github.com/errsvc/errsvc/codec/errjson"
	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// restJSON is the REST face's JSON: grpc-gateway's JSONPb for everything it
// does not decode itself, and errsvc's generated codec (codec/errjson) for
// request bodies and answers, so members the contract does not model are
// carried, not refused (an envelope with an additive field translates), a
// batch is decoded item by item (one malformed item gets its own error),
// and a refusal names the field with its full path.
type restJSON struct {
	runtime.JSONPb
	// maxBatchItems stops a batch's decoding past the limit the service
	// refuses it at (MaxBatchItems).
	maxBatchItems int
}

func newRESTJSON(maxBatchItems int) *restJSON {
	return &restJSON{maxBatchItems: maxBatchItems, JSONPb: runtime.JSONPb{
		MarshalOptions:   protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: false},
		UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: false},
	}}
}

// restAnswer is how the REST face writes: proto names, and the top-level
// lists even when empty (a batch of nothing answers {"responses":[]}, not
// {}, so a client can index the list it was promised; the OpenAPI document
// marks them required).
var restAnswer = errjson.Options{ProtoNames: true, TopLevelLists: true}

// encodeIntoAnswer is the gateway's forward-response rewriter: it hands
// restJSON.Marshal the REST handler's answer buffer (call.restAnswer)
// instead of the message alone, so the answer is encoded straight into the
// buffer's spare storage (bytes.Buffer.AvailableBuffer), which the
// gateway's Write of the result then keeps in place: no slice of the
// answer's size is allocated for each call, only to be copied into the
// buffer and dropped. Without a buffer (a gateway outside restHandler) the
// message goes on as it is.
func encodeIntoAnswer(ctx context.Context, resp proto.Message) (any, error) {
	if c := callFrom(ctx); c != nil && c.restAnswer != nil && c.restAnswer.pending == nil {
		c.restAnswer.pending = resp
		return c.restAnswer, nil
	}
	return resp, nil
}

func (j *restJSON) Marshal(v any) ([]byte, error) {
	if b, ok := v.(*bufferedResponse); ok && b.pending != nil {
		m := b.pending
		b.pending = nil
		if gm, ok := m.(errjson.Message); ok {
			return errjson.AppendMarshal(b.body.AvailableBuffer(), restAnswer, gm)
		}
		v = m
	}
	if m, ok := v.(errjson.Message); ok {
		return errjson.Marshal(restAnswer, m)
	}
	if m, ok := v.(proto.Message); ok {
		b, err := openjson.Marshal(j.MarshalOptions, m)
		if err != nil {
			return nil, err
		}
		return withTopLevelLists(b, m.ProtoReflect()), nil
	}
	return j.JSONPb.Marshal(v)
}

func (j *restJSON) Unmarshal(data []byte, v any) error { return j.unmarshal(data, v, false) }

// unmarshal is Unmarshal; shared says data is a private copy nothing
// writes to (readBody's), which the request's strings may view
// (errjson.UnmarshalShared) rather than copy.
func (j *restJSON) unmarshal(data []byte, v any, shared bool) error {
	var err error
	switch m := v.(type) {
	case *errsvcv1.TranslateBatchRequest:
		err = errjson.UnmarshalBatchMax(data, m, j.maxBatchItems, checkItemJSON, safePath)
	case proto.Message:
		if shared {
			err = errjson.UnmarshalShared(data, m)
		} else {
			err = errjson.Unmarshal(data, m)
		}
	default:
		return j.JSONPb.Unmarshal(data, v)
	}
	if err == nil {
		// The common case, without errors.As (whose target escapes).
		return nil
	}
	var fe *codec.FieldError
	if errors.As(err, &fe) {
		return decodeRefusal{fe}
	}
	return err
}

// decodeRefusal carries a decoder's refusal through the gateway, which
// keeps only the text of a decode error (status.Errorf("%v")):
// decodeErrorStatus splits it back into the field and the description.
type decodeRefusal struct{ fe *codec.FieldError }

func (e decodeRefusal) Error() string { return e.fe.Field + fieldSeparator + e.fe.Description }

// fieldSeparator cannot occur in a protojson or gateway error text (JSON
// text cannot hold a raw NUL).
const fieldSeparator = "\x00"

func (j *restJSON) NewDecoder(r io.Reader) runtime.Decoder {
	if rb, ok := r.(*restBody); ok {
		// The handler's own copy decodes itself: no decoder to allocate.
		rb.json = j
		return rb
	}
	return runtime.DecoderFunc(func(v any) error {
		data, err := readBody(r)
		if err != nil {
			return err
		}
		if len(data) == 0 {
			return io.EOF
		}
		return j.unmarshal(data, v, true)
	})
}

// readBody reads the body the gateway hands the decoder: a bytes.Reader
// over its own copy of the request, read into one buffer of its size (as
// io.ReadAll's growing buffer would take three or four), a private copy
// the decoded strings point into (see unmarshal). Whatever it returns is
// the call's alone and never written to: the handler's body is read once
// per call into a buffer of its own (readDeclared), never pooled, and
// only read afterwards (the answer cache copies it).
func readBody(r io.Reader) ([]byte, error) {
	if rb, ok := r.(*restBody); ok && rb.Len() == len(rb.data) {
		// The REST handler's own copy, unread: read it all at once.
		rb.Reset(nil)
		return rb.data, nil
	}
	br, ok := r.(*bytes.Reader)
	if !ok {
		return io.ReadAll(r)
	}
	data := make([]byte, br.Len())
	_, err := io.ReadFull(br, data)
	return data, err
}

// Decode is restJSON's decoder of the handler's body (see NewDecoder).
func (b *restBody) Decode(v any) error {
	data, err := readBody(b)
	if err != nil {
		return err
	}
	if len(data) == 0 {
		return io.EOF
	}
	return b.json.unmarshal(data, v, true)
}

func (j *restJSON) NewEncoder(w io.Writer) runtime.Encoder {
	return runtime.EncoderFunc(func(v any) error {
		b, err := j.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
}

// checkItemJSON bounds one batch item as the REST handler bounds a whole
// body (codec.CheckJSON): an item nested too deep or holding broken text
// fails alone. The handler lets a batch whose only fault is inside its items
// through to here (see batchItemFault).
func checkItemJSON(item []byte) (string, string, bool) {
	field, desc, _, ok := checkJSONFault(item)
	return field, desc, ok
}

// checkJSONFault is checkItemJSON that also says whether the fault is too
// many values (the request's, never one item's).
func checkJSONFault(body []byte) (field, desc string, wide, ok bool) {
	var fe *codec.FieldError
	if errors.As(codec.CheckJSON(body, codec.MaxJSONDepth), &fe) {
		return safePath(fe.Field), fe.Description, errors.Is(fe, codec.ErrTooWide), false
	}
	return "", "", false, true
}

// batchItemFault reports whether a CheckJSON refusal of a batch body lies
// inside one item (requests[i]…), which the decoder answers per item.
//
// Too many values is never one item's fault: the limit is the request's, so
// a batch cannot spread a wide body over its items.
func batchItemFault(r *http.Request, fe *codec.FieldError) bool {
	return r.URL.Path == "/v1/translate:batch" && strings.HasPrefix(fe.Field, "requests[") && !errors.Is(fe, codec.ErrTooWide)
}
