package server

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/errsvc/errsvc/codec"
	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// restJSON is the REST face's JSON: grpc-gateway's JSONPb for everything it
// does not decode itself, and codec/openjson for request bodies and answers,
// so members the contract does not model are carried, not refused (an
// envelope with an additive field translates), and a batch is decoded item
// by item (one malformed item gets its own error).
type restJSON struct {
	runtime.JSONPb
}

func newRESTJSON() *restJSON {
	return &restJSON{JSONPb: runtime.JSONPb{
		MarshalOptions:   protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: false},
		UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: false},
	}}
}

func (j *restJSON) Marshal(v any) ([]byte, error) {
	if m, ok := v.(proto.Message); ok {
		b, err := openjson.Marshal(j.MarshalOptions, m)
		if err != nil {
			return nil, err
		}
		return withTopLevelLists(b, m.ProtoReflect()), nil
	}
	return j.JSONPb.Marshal(v)
}

func (j *restJSON) Unmarshal(data []byte, v any) error {
	switch m := v.(type) {
	case *errsvcv1.TranslateBatchRequest:
		return openjson.UnmarshalBatch(data, m, checkItemJSON)
	case proto.Message:
		return openjson.Unmarshal(data, m)
	}
	return j.JSONPb.Unmarshal(data, v)
}

func (j *restJSON) NewDecoder(r io.Reader) runtime.Decoder {
	return runtime.DecoderFunc(func(v any) error {
		data, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		if len(data) == 0 {
			return io.EOF
		}
		return j.Unmarshal(data, v)
	})
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
	var fe *codec.FieldError
	if errors.As(codec.CheckJSON(item, codec.MaxJSONDepth), &fe) {
		return safePath(fe.Field), fe.Description, false
	}
	return "", "", true
}

// batchItemFault reports whether a CheckJSON refusal of a batch body lies
// inside one item (requests[i]…), which the decoder answers per item.
func batchItemFault(r *http.Request, fe *codec.FieldError) bool {
	return r.URL.Path == "/v1/translate:batch" && strings.HasPrefix(fe.Field, "requests[")
}
