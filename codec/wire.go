package codec

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
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
	return checkWire(b, wireTableOf(md), 0, 0, &values)
}

// checkWire counts in *values the Struct fields and ListValue elements it
// meets (each a google.protobuf.Value), at most MaxJSONValues in all.
func checkWire(b []byte, t *wireTable, depth, jsonDepth int, values *int) error {
	if depth > MaxDepth {
		return fmt.Errorf("%s: exceeds the maximum nesting depth of %d", t.md.FullName(), MaxDepth)
	}
	if t.jsonValue {
		if *values++; *values > MaxJSONValues {
			return &FieldError{Err: ErrTooWide,
				Description: "Struct/Value holds more than " + strconv.Itoa(MaxJSONValues) + " values (fields and list elements)"}
		}
	}
	if t.jsonLevel {
		if jsonDepth++; jsonDepth > MaxJSONDepth {
			return &FieldError{Err: ErrTooDeep,
				Description: "Struct/Value nested deeper than " + strconv.Itoa(MaxJSONDepth) + " levels (JSON depth)"}
		}
	}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return malformed(t.md, n)
		}
		if num > protowire.MaxValidNumber {
			return fmt.Errorf("%s: field number %d out of range", t.md.FullName(), num)
		}
		b = b[n:]
		if typ != protowire.BytesType {
			// Groups included: protowire checks that each ends with its
			// own number, which the generated decoder does not.
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return malformed(t.md, n)
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return malformed(t.md, n)
		}
		b = b[n:]
		f := t.field(num)
		if f == nil {
			continue
		}
		var err error
		switch {
		case f.msg != nil:
			err = checkWire(v, f.msg, depth+1, jsonDepth, values)
		case f.str:
			if !utf8.Valid(v) {
				err = &FieldError{Err: ErrInvalidUTF8, Description: "string is not valid UTF-8"}
			}
		default:
			continue
		}
		if err != nil {
			return underField(err, t.md, f.fd)
		}
	}
	return nil
}

// wireTable is what checkWire reads of a message descriptor, read from it
// once: for each field number the field's descriptor and whether its bytes
// are a string or a message (and that message's table). Walking the
// descriptors instead (Fields().ByNumber, Kind, Message, FullName at every
// field) cost about a third of the server's decoding of a request.
// What it earns a caller (issue 42): turned off alone, a ran 1.3% / 2.0%
// faster (3 rounds, noise); the set of five in docs/TESTING.md turned off
// together, a 5.2% / 6.7% and c 4.0% / 4.2% slower (5 rounds, 2026-12-05).
type wireTable struct {
	md        protoreflect.MessageDescriptor
	jsonLevel bool
	jsonValue bool // a google.protobuf.Value: one counted value
	// dense holds the fields numbered below len(dense); sparse the others.
	dense  []wireField
	sparse map[protowire.Number]*wireField
}

type wireField struct {
	fd  protoreflect.FieldDescriptor // nil: no such field
	str bool
	msg *wireTable
}

// maxDense bounds a table's array: errsvc's messages number their fields
// from 1 up and put additional_fields at 100.
const maxDense = 128

func (t *wireTable) field(num protowire.Number) *wireField {
	if int(num) < len(t.dense) {
		if f := &t.dense[num]; f.fd != nil {
			return f
		}
		return nil
	}
	return t.sparse[num]
}

// wireTables are the tables built, by message, each message's shared by
// every message that holds it (a Struct's by every Struct field, and by
// its own Values).
var wireTables sync.Map // protoreflect.MessageDescriptor → *wireTable

var wireTablesMu sync.Mutex

// wireTableOf is md's table, built with the tables it reaches the first
// time it is asked for.
func wireTableOf(md protoreflect.MessageDescriptor) *wireTable {
	if t, ok := wireTables.Load(md); ok {
		return t.(*wireTable)
	}
	wireTablesMu.Lock()
	defer wireTablesMu.Unlock()
	built := map[protoreflect.MessageDescriptor]*wireTable{}
	t := buildWireTable(md, built)
	for m, bt := range built {
		wireTables.LoadOrStore(m, bt)
	}
	return t
}

// buildWireTable builds md's table, and those of the messages its fields
// hold, into built (a message met again, as Struct within Value within
// Struct, is the table already begun). A table already published is
// reused.
func buildWireTable(md protoreflect.MessageDescriptor, built map[protoreflect.MessageDescriptor]*wireTable) *wireTable {
	if t, ok := wireTables.Load(md); ok {
		return t.(*wireTable)
	}
	if t, ok := built[md]; ok {
		return t
	}
	t := &wireTable{md: md, jsonLevel: jsonLevel(md.FullName()), jsonValue: md.FullName() == "google.protobuf.Value"}
	built[md] = t
	fields := md.Fields()
	top := 0
	for i := range fields.Len() {
		if n := int(fields.Get(i).Number()); n < maxDense {
			top = max(top, n+1)
		}
	}
	t.dense = make([]wireField, top)
	for i := range fields.Len() {
		fd := fields.Get(i)
		f := wireField{fd: fd}
		switch fd.Kind() {
		case protoreflect.StringKind:
			f.str = true
		case protoreflect.MessageKind:
			f.msg = buildWireTable(fd.Message(), built)
		}
		if n := fd.Number(); int(n) < maxDense {
			t.dense[n] = f
		} else {
			if t.sparse == nil {
				t.sparse = map[protowire.Number]*wireField{}
			}
			t.sparse[n] = &f
		}
	}
	return t
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
