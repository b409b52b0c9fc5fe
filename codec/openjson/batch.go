package openjson

import (
	"encoding/json"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// UnmarshalBatch decodes a TranslateBatchRequest item by item, so one
// malformed item (a wrong type, bad nesting, invalid text) cannot fail the
// others: an item that does not decode is kept in its place, empty, and
// marked with its error (see ItemError), which the service answers as that
// item's own INVALID_ARGUMENT. A body that is not an object with a list of
// requests fails as a whole.
//
// check, when not nil, runs on each item's bytes before it is decoded (the
// REST face bounds nesting and refuses broken text per item with it); a
// failure marks that item with the field and description check gives.
func UnmarshalBatch(data []byte, b *errsvcv1.TranslateBatchRequest, check func([]byte) (field, description string, ok bool)) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil || members == nil {
		// protojson's own error names what is wrong with the body.
		return Unmarshal(data, b)
	}
	var rawItems []json.RawMessage
	var rest = map[string]json.RawMessage{}
	for key, val := range members {
		if fd := lookup(b.ProtoReflect().Descriptor(), key); fd != nil && fd.Name() == "requests" {
			if err := json.Unmarshal(val, &rawItems); err != nil {
				return Unmarshal(data, b) // not a list: protojson says so
			}
			continue
		}
		rest[key] = val
	}
	if len(rest) > 0 {
		top, err := json.Marshal(rest)
		if err != nil {
			return err
		}
		if err := Unmarshal(top, b); err != nil {
			return err
		}
	}
	b.Requests = make([]*errsvcv1.TranslateRequest, len(rawItems))
	for i, raw := range rawItems {
		item := &errsvcv1.TranslateRequest{}
		if check != nil {
			if field, desc, ok := check(raw); !ok {
				MarkInvalid(item, field, desc)
				b.Requests[i] = item
				continue
			}
		}
		if err := Unmarshal(raw, item); err != nil {
			item = &errsvcv1.TranslateRequest{}
			MarkInvalid(item, "", err.Error())
		}
		b.Requests[i] = item
	}
	return nil
}

// itemErrorField is a field number no message of the contract uses (the
// top of the range), where a batch item's decode error travels in the
// item's unknown fields from the JSON decoder to the service. JSON cannot
// set unknown fields; a gRPC caller that sets it only fails its own item.
const itemErrorField protowire.Number = protowire.MaxValidNumber

// MarkInvalid marks an item that could not be decoded with its error:
// the field it names (empty when only the description tells, as in a
// protojson error) and the description. The JSON batch decoder and the gRPC
// codec (batch items, stream messages) use it, so that the service answers
// the item with its own INVALID_ARGUMENT and goes on with the others.
func MarkInvalid(item proto.Message, field, description string) {
	var b []byte
	b = protowire.AppendTag(b, itemErrorField, protowire.BytesType)
	b = protowire.AppendString(b, field+"\x00"+description)
	item.ProtoReflect().SetUnknown(protoreflect.RawFields(b))
}

// InvalidItem is a decode failure MarkInvalid recorded.
type InvalidItem struct{ Field, Description string }

func (e *InvalidItem) Error() string { return e.Description }

// ItemError is the decode error an item was marked with (an
// *InvalidItem), or nil.
func ItemError(item proto.Message) error {
	raw := item.ProtoReflect().GetUnknown()
	for len(raw) > 0 {
		num, typ, n := protowire.ConsumeTag(raw)
		if n < 0 {
			return nil
		}
		raw = raw[n:]
		if num == itemErrorField && typ == protowire.BytesType {
			v, m := protowire.ConsumeString(raw)
			if m < 0 {
				return nil
			}
			field, desc, ok := strings.Cut(v, "\x00")
			if !ok {
				field, desc = "", v
			}
			return &InvalidItem{Field: field, Description: desc}
		}
		m := protowire.ConsumeFieldValue(num, typ, raw)
		if m < 0 {
			return nil
		}
		raw = raw[m:]
	}
	return nil
}
