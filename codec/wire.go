package codec

import (
	"fmt"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// MaxDepth is how deeply messages may nest, protobuf-go's own limit.
const MaxDepth = 10000

// CheckWire walks the encoding b of a message of type md, without decoding
// it: every string field, at any depth (map keys and values included), must
// be valid UTF-8, and messages may nest at most MaxDepth deep. It reads the
// descriptors, so a field added to the contract is checked with no change
// here; fields it does not know (unknown numbers, a wire type that does not
// match the declaration) are skipped, as protobuf-go keeps them as unknown
// fields, but their encoding must be well formed.
func CheckWire(b []byte, md protoreflect.MessageDescriptor) error {
	return checkWire(b, md, 0)
}

func checkWire(b []byte, md protoreflect.MessageDescriptor, depth int) error {
	if depth > MaxDepth {
		return fmt.Errorf("%s: exceeds the maximum nesting depth of %d", md.FullName(), MaxDepth)
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
		switch fd.Kind() {
		case protoreflect.StringKind:
			if !utf8.Valid(v) {
				return fmt.Errorf("string field %s: %w", fd.FullName(), ErrInvalidUTF8)
			}
		case protoreflect.MessageKind:
			if err := checkWire(v, fd.Message(), depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func malformed(md protoreflect.MessageDescriptor, n int) error {
	return fmt.Errorf("%s: %w", md.FullName(), protowire.ParseError(n))
}
