// Package errjson is errsvc's JSON codec for its REST face, Connect's JSON
// and the CLI: the code protoc-gen-errsvc-json generates for every message
// of the contract (MarshalOpenJSON, UnmarshalOpenJSON), which reads and
// writes what protojson does with codec/openjson's open objects, in one
// pass and without reflection. protojson with codec/openjson stays the
// reference: the differential fuzz targets here hold this package to it.
//
// Messages outside the contract (google.rpc.Status as an error answer, for
// instance) go through codec/openjson.
package errjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/errsvc/errsvc/codec"
	"github.com/errsvc/errsvc/codec/jsonwire"
	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Message is a message with generated JSON methods.
type Message interface {
	proto.Message
	MarshalOpenJSON(*jsonwire.Encoder)
	UnmarshalOpenJSON(*jsonwire.Decoder) error
}

// Options are how Marshal writes.
type Options struct {
	// ProtoNames writes proto field names (protojson's UseProtoNames), as
	// the REST API and the CLI do; else lowerCamel JSON names.
	ProtoNames bool
	// TopLevelLists writes the empty lists of the top-level message as [].
	TopLevelLists bool
	// Indent, when not empty, writes one member per line indented with it
	// (the CLI's output); else compact.
	Indent string
}

// Marshal writes m. A message of the contract is written by its generated
// code; any other through openjson (protojson).
func Marshal(opts Options, m proto.Message) ([]byte, error) {
	return AppendMarshal(nil, opts, m)
}

var encoders = sync.Pool{New: func() any { return new(jsonwire.Encoder) }}

// AppendMarshal is Marshal appending to b.
func AppendMarshal(b []byte, opts Options, m proto.Message) ([]byte, error) {
	gm, ok := m.(Message)
	if !ok {
		out, err := openjson.Marshal(protojson.MarshalOptions{UseProtoNames: opts.ProtoNames,
			Multiline: opts.Indent != "", Indent: opts.Indent}, m)
		return append(b, out...), err
	}
	e := encoders.Get().(*jsonwire.Encoder)
	*e = jsonwire.Encoder{Buf: e.Buf[:0], ProtoNames: opts.ProtoNames, TopLevelLists: opts.TopLevelLists}
	gm.MarshalOpenJSON(e)
	err := e.Err()
	var out []byte
	switch {
	case err != nil:
	case opts.Indent != "":
		var ind bytes.Buffer
		ind.Write(b)
		if err = json.Indent(&ind, e.Buf, "", opts.Indent); err == nil {
			out = ind.Bytes()
		}
	default:
		out = append(b, e.Buf...)
	}
	if cap(e.Buf) <= 64<<10 {
		encoders.Put(e)
	}
	return out, err
}

var decoders = sync.Pool{New: func() any { return jsonwire.NewDecoder(nil) }}

// Unmarshal reads data into m (reset first). Its refusal is a
// *codec.FieldError naming the field with its full path in proto names
// ("labby_error.recovery.retry_after_ms"; "body" when the problem is the
// body as a whole). Field quotes caller-written keys: sanitise it before
// echoing.
func Unmarshal(data []byte, m proto.Message) error { return unmarshal(data, m, false) }

// UnmarshalShared is Unmarshal for data that nothing writes to while m is
// in use: m's strings that data holds as they are (no escapes) are views of
// data's bytes, not copies (see jsonwire.Decoder.ResetShared). The REST
// face decodes its own private copy of each body this way. Issue 42's
// figure: c +0.3% / +0.6% alone (3 rounds); the set of five it belongs to
// (docs/TESTING.md) c +4.0% / +4.2%, a +5.2% / +6.7% (5 rounds).
func UnmarshalShared(data []byte, m proto.Message) error { return unmarshal(data, m, true) }

func unmarshal(data []byte, m proto.Message, shared bool) error {
	gm, ok := m.(Message)
	if !ok {
		return openjson.Unmarshal(data, m)
	}
	proto.Reset(m)
	d := decoders.Get().(*jsonwire.Decoder)
	if shared {
		d.ResetShared(data)
	} else {
		d.Reset(data)
	}
	err := gm.UnmarshalOpenJSON(d)
	if err == nil {
		err = d.Finish()
	}
	d.Reset(nil)
	decoders.Put(d)
	return fieldError(err)
}

func fieldError(err error) error {
	if err == nil {
		return nil
	}
	var we *jsonwire.Error
	if !errors.As(err, &we) {
		return err
	}
	field := we.Path()
	if field == "" {
		field = "body"
	}
	return &codec.FieldError{Field: field, Description: we.Description}
}

// UnmarshalBatch reads a TranslateBatchRequest item by item, as
// openjson.UnmarshalBatch does: an item that does not decode is kept in its
// place, empty, and marked with its error (openjson.MarkInvalid) naming the
// field inside the item, passed through field (the caller's sanitiser of
// caller-written names; nil keeps it). A body that is not an object with
// a list of requests fails as a whole.
//
// check, when not nil, runs on each item's bytes before it is decoded.
func UnmarshalBatch(data []byte, b *errsvcv1.TranslateBatchRequest, check func([]byte) (field, description string, ok bool), field func(string) string) error {
	return UnmarshalBatchMax(data, b, 0, check, field)
}

// errBatchFull stops a batch's decoding once it holds more than its limit.
var errBatchFull = errors.New("errjson: the batch holds more requests than its limit")

// UnmarshalBatchMax is UnmarshalBatch that stops decoding once the batch
// holds maxItems+1 requests (0: no limit): the caller refuses a batch past
// its limit, and a million small items under the byte limit then cost
// maxItems+1 decodes, not a million. The rest of the body is not read.
func UnmarshalBatchMax(data []byte, b *errsvcv1.TranslateBatchRequest, maxItems int, check func([]byte) (field, description string, ok bool), field func(string) string) error {
	proto.Reset(b)
	d := decoders.Get().(*jsonwire.Decoder)
	item := decoders.Get().(*jsonwire.Decoder)
	d.Reset(data)
	err := batch(d, item, b, maxItems, check, field)
	switch {
	case errors.Is(err, errBatchFull):
		err = nil
	case err == nil:
		err = d.Finish()
	}
	// Pooled without the body they read.
	d.Reset(nil)
	item.Reset(nil)
	decoders.Put(d)
	decoders.Put(item)
	return fieldError(err)
}

func batch(d, item *jsonwire.Decoder, b *errsvcv1.TranslateBatchRequest, maxItems int, check func([]byte) (string, string, bool), field func(string) string) error {
	if err := d.BeginObject(); err != nil {
		return err
	}
	var extra jsonwire.Extra
	var seenRequests, seenExtra bool
	for n := 0; ; n++ {
		k, more, err := d.Key(n)
		if err != nil {
			return extra.Err(err)
		}
		if !more {
			break
		}
		switch string(k) {
		case "requests":
			if seenRequests {
				return extra.Err(jsonwire.At(jsonwire.Duplicate(), "requests"))
			}
			seenRequests = true
			if d.Null() {
				continue
			}
			if err := items(d, item, b, maxItems, check, field); err != nil {
				if errors.Is(err, errBatchFull) {
					return err
				}
				return extra.Err(jsonwire.At(err, "requests"))
			}
		case "additional_fields", "additionalFields":
			if seenExtra {
				return extra.Err(jsonwire.At(jsonwire.Duplicate(), "additional_fields"))
			}
			seenExtra = true
			if d.Null() {
				continue
			}
			if err := extra.Explicit(d, &b.AdditionalFields); err != nil {
				return extra.Err(jsonwire.At(err, "additional_fields"))
			}
		default:
			key := string(k)
			if err := extra.Move(d, key); err != nil {
				return extra.Err(jsonwire.At(err, key))
			}
		}
	}
	return extra.Finish(&b.AdditionalFields)
}

func items(d, item *jsonwire.Decoder, b *errsvcv1.TranslateBatchRequest, maxItems int, check func([]byte) (string, string, bool), field func(string) string) error {
	if err := d.BeginArray("errsvc.v1.TranslateRequest"); err != nil {
		return err
	}
	for i := 0; ; i++ {
		if maxItems > 0 && i > maxItems {
			return errBatchFull
		}
		more, err := d.Item(i)
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
		raw, err := d.Skip()
		if err != nil {
			return jsonwire.AtIndex(err, i)
		}
		req := &errsvcv1.TranslateRequest{}
		b.Requests = append(b.Requests, req)
		if check != nil {
			if f, desc, ok := check(raw); !ok {
				openjson.MarkInvalid(req, f, desc)
				continue
			}
		}
		item.Reset(raw)
		err = req.UnmarshalOpenJSON(item)
		if err == nil {
			err = item.Finish()
		}
		if err != nil {
			proto.Reset(req)
			var fe *codec.FieldError
			if errors.As(fieldError(err), &fe) {
				f := fe.Field
				if field != nil {
					f = field(f)
				}
				openjson.MarkInvalid(req, f, fe.Description)
			} else {
				openjson.MarkInvalid(req, "", err.Error())
			}
		}
	}
}
