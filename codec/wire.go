package codec

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// MaxDepth is how deeply messages may nest, protobuf-go's own limit.
const MaxDepth = 10000

// The well-known types that carry free-form JSON: their nesting counts
// against MaxJSONDepth, and a path names the field that holds the tree, not
// the tree's internals.
var jsonTypes = map[protoreflect.FullName]bool{
	"google.protobuf.Struct":             true,
	"google.protobuf.Struct.FieldsEntry": true,
	"google.protobuf.Value":              true,
	"google.protobuf.ListValue":          true,
}

// jsonLevel reports whether a message of this type opens one JSON level (an
// object or an array).
func jsonLevel(name protoreflect.FullName) bool {
	return name == "google.protobuf.Struct" || name == "google.protobuf.ListValue"
}

// CheckWire walks the encoding b of a message of type md, without decoding
// it: every string field, at any depth (map keys and values included), must
// be valid UTF-8, messages may nest at most MaxDepth deep, and Struct/Value
// trees at most MaxJSONDepth objects and arrays deep. It reads the
// descriptors, so a field added to the contract is checked with no change
// here; fields it does not know (unknown numbers, a wire type that does not
// match the declaration) are skipped, as protobuf-go keeps them as unknown
// fields, but their encoding must be well formed. A refusal about a known
// field is a *FieldError whose Field is the proto path, e.g.
// "labby_error.message" or "agent_error.details".
func CheckWire(b []byte, md protoreflect.MessageDescriptor) error {
	values := 0
	return checkWire(b, md, 0, 0, &values)
}

// checkWire counts in *values the Struct fields and ListValue elements it
// meets (each a google.protobuf.Value), at most MaxJSONValues in all. It
// reads the descriptors at every field: tables of them read once per
// message type made a request's decoding faster in the core, but earned
// nothing a caller sees (gRPC Translate cold (a) 1.3% and 2.0% slower at
// 16 and 64 callers without them, within the noise; see CHANGELOG).
func checkWire(b []byte, md protoreflect.MessageDescriptor, depth, jsonDepth int, values *int) error {
	if depth > MaxDepth {
		return fmt.Errorf("%s: exceeds the maximum nesting depth of %d", md.FullName(), MaxDepth)
	}
	name := md.FullName()
	if name == "google.protobuf.Value" {
		if *values++; *values > MaxJSONValues {
			return &FieldError{Err: ErrTooWide,
				Description: "Struct/Value holds more than " + strconv.Itoa(MaxJSONValues) + " values (fields and list elements)"}
		}
	}
	if jsonLevel(name) {
		if jsonDepth++; jsonDepth > MaxJSONDepth {
			return &FieldError{Err: ErrTooDeep,
				Description: "Struct/Value nested deeper than " + strconv.Itoa(MaxJSONDepth) + " levels (JSON depth)"}
		}
	}
	fields := md.Fields()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return malformed(md, n)
		}
		if num > protowire.MaxValidNumber {
			return fmt.Errorf("%s: field number %d out of range", md.FullName(), num)
		}
		b = b[n:]
		if typ != protowire.BytesType {
			// Groups included: protowire checks that each ends with its
			// own number, which the generated decoder does not.
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return malformed(md, n)
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return malformed(md, n)
		}
		b = b[n:]
		fd := fields.ByNumber(num)
		if fd == nil {
			continue
		}
		var err error
		switch fd.Kind() {
		case protoreflect.MessageKind:
			err = checkWire(v, fd.Message(), depth+1, jsonDepth, values)
		case protoreflect.StringKind:
			if !utf8.Valid(v) {
				err = &FieldError{Err: ErrInvalidUTF8, Description: "string is not valid UTF-8"}
			}
		default:
			continue
		}
		if err != nil {
			return underField(err, md, fd)
		}
	}
	return nil
}

// underField prefixes a FieldError's path with fd on the way up. Inside a
// Struct/Value tree the path stops at the field that holds the tree.
func underField(err error, md protoreflect.MessageDescriptor, fd protoreflect.FieldDescriptor) error {
	var fe *FieldError
	if !errors.As(err, &fe) || jsonTypes[md.FullName()] {
		return err
	}
	// Map entries are named by the map field that holds them.
	if md.IsMapEntry() {
		return err
	}
	name := string(fd.Name())
	if fe.Field == "" {
		fe.Field = name
	} else {
		fe.Field = name + "." + fe.Field
	}
	return fe
}

func malformed(md protoreflect.MessageDescriptor, n int) error {
	return fmt.Errorf("%s: %w", md.FullName(), protowire.ParseError(n))
}
