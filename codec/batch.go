package codec

import (
	"errors"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// unmarshalBatchItems decodes a TranslateBatchRequest whose bytes the
// whole-message check refused, item by item, so that one malformed item
// (invalid UTF-8, nesting past the limit, a broken encoding) cannot fail
// the others, as on REST: an item that does not decode stays in its place,
// empty and marked with its error (openjson.MarkInvalid), which the service
// answers as that item's own INVALID_ARGUMENT. It fails only when the
// batch's own framing is broken.
func unmarshalBatchItems(b []byte, m *errsvcv1.TranslateBatchRequest) error {
	const requestsField = 1
	itemDesc := (&errsvcv1.TranslateRequest{}).ProtoReflect().Descriptor()
	var rest []byte
	var items []*errsvcv1.TranslateRequest
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errors.New("codec: malformed TranslateBatchRequest")
		}
		size := protowire.ConsumeFieldValue(num, typ, b[n:])
		if size < 0 {
			return errors.New("codec: malformed TranslateBatchRequest")
		}
		field := b[:n+size]
		b = b[n+size:]
		if num != requestsField || typ != protowire.BytesType {
			rest = append(rest, field...)
			continue
		}
		raw, _ := protowire.ConsumeBytes(field[n:])
		item := &errsvcv1.TranslateRequest{}
		err := CheckWire(raw, itemDesc)
		if err == nil {
			err = item.UnmarshalVTUnsafe(raw)
		}
		if err != nil {
			item = &errsvcv1.TranslateRequest{}
			var fe *FieldError
			if errors.As(err, &fe) && fe.Field != "" {
				openjson.MarkInvalid(item, fe.Field, fe.Description)
			} else {
				openjson.MarkInvalid(item, "body", "not a valid errsvc.v1.TranslateRequest message")
			}
		}
		items = append(items, item)
	}
	if err := CheckWire(rest, m.ProtoReflect().Descriptor()); err != nil {
		return err
	}
	if err := m.UnmarshalVTUnsafe(rest); err != nil {
		return err
	}
	m.Requests = append(m.Requests, items...)
	return nil
}
