// Package openjson reads errsvc's messages from JSON the way the contracts
// ask consumers to, and writes them back: "pinned on write, open on read"
// for whole objects, not only for terms.
//
// The Labby agent error contract and the Code Mode tool error contract say
// consumers ignore unknown additive fields within a contract version, and
// their published schemas allow additional properties; MCP results carry
// `_meta` and tool annotations carry `title`. protojson refuses every member
// a message does not declare, so a real envelope would answer 400. Unmarshal
// instead moves such members into the message's `additional_fields`
// (google.protobuf.Struct), where the translator notes them once
// (field_ignored) and carries them to the same contract's output. Marshal
// does the reverse: the members of `additional_fields` become members of
// their object again, so a Labby consumer downstream still sees
// `required_scopes` where its producer put it.
//
// Everything else is protojson's: proto and lowerCamel names, int64 as
// strings, well-known types, the oneof, and its error texts (which the REST
// gateway and the CLI turn into field violations).
package openjson

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// FieldName is the field, in every open message of the contract, that holds
// the members the message does not model.
const FieldName = "additional_fields"

var unmarshalOptions = protojson.UnmarshalOptions{}

// Unmarshal decodes data into m like protojson.Unmarshal, except that an
// object member that m's message (or a nested message) does not declare goes
// into that message's additional_fields, and a wait field (see waitFields)
// whose value is not a whole number, such as 2.5 or "30s", goes there too
// under its own name, for the translator to read or refuse with a note.
// The fast path is protojson alone; only a body it refuses is rewritten.
func Unmarshal(data []byte, m proto.Message) error {
	err := unmarshalOptions.Unmarshal(data, m)
	if err == nil {
		return nil
	}
	rewritten, changed := rewrite(data, m.ProtoReflect().Descriptor())
	if !changed {
		return err
	}
	proto.Reset(m)
	return unmarshalOptions.Unmarshal(rewritten, m)
}

// waitFields are the fields a producer fills with a wait: a fraction or a
// numeric string there is a unit question, not a malformed request.
var waitFields = map[protoreflect.Name]bool{
	"retry_after_secs": true,
	"retry_after_ms":   true,
}

// rewrite moves the members of the JSON object raw that md does not declare
// into its additional_fields, recursively through message fields (not into
// well-known types, whose JSON forms protojson owns). It reports whether it
// changed anything; raw that is not an object is left to protojson.
func rewrite(raw []byte, md protoreflect.MessageDescriptor) ([]byte, bool) {
	if isWellKnown(md) {
		return raw, false
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return raw, false
	}
	extraFD := md.Fields().ByName(FieldName)
	var extra map[string]json.RawMessage
	changed := false
	for key, val := range members {
		fd := lookup(md, key)
		switch {
		case fd == nil:
			if extraFD == nil {
				continue // protojson names it in its error
			}
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			extra[key] = val
			delete(members, key)
			changed = true
		case fd.Name() == FieldName:
			// Given explicitly: merged with the members moved there.
		case waitFields[fd.Name()] && !fitsWait(val, fd.Kind()):
			if extraFD == nil {
				continue
			}
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			extra[string(fd.Name())] = val
			delete(members, key)
			changed = true
		case fd.Message() != nil && !fd.IsMap():
			if out, ok := rewriteField(val, fd); ok {
				members[key] = out
				changed = true
			}
		}
	}
	if !changed {
		return raw, false
	}
	if extra != nil {
		key := string(extraFD.Name())
		if given, ok := members[key]; ok {
			var explicit map[string]json.RawMessage
			if json.Unmarshal(given, &explicit) == nil {
				for k, v := range explicit {
					if _, taken := extra[k]; !taken {
						extra[k] = v
					}
				}
			}
		}
		b, err := json.Marshal(extra)
		if err != nil {
			return raw, false
		}
		members[key] = b
	}
	out, err := json.Marshal(members)
	if err != nil {
		return raw, false
	}
	return out, true
}

// rewriteField rewrites a message-typed member: one object or a list of them.
func rewriteField(val json.RawMessage, fd protoreflect.FieldDescriptor) (json.RawMessage, bool) {
	if !fd.IsList() {
		out, ok := rewrite(val, fd.Message())
		return out, ok
	}
	return eachItem(val, func(item json.RawMessage) (json.RawMessage, bool) { return rewrite(item, fd.Message()) })
}

// eachItem applies f to every item of the JSON list val; it reports whether
// f changed any (val that is not a list is left alone).
func eachItem(val json.RawMessage, f func(json.RawMessage) (json.RawMessage, bool)) (json.RawMessage, bool) {
	var items []json.RawMessage
	if json.Unmarshal(val, &items) != nil {
		return val, false
	}
	changed := false
	for i, item := range items {
		if out, ok := f(item); ok {
			items[i] = out
			changed = true
		}
	}
	if !changed {
		return val, false
	}
	out, err := json.Marshal(items)
	if err != nil {
		return val, false
	}
	return out, true
}

// lookup finds the field a JSON member names, by proto or JSON name, as
// protojson does.
func lookup(md protoreflect.MessageDescriptor, key string) protoreflect.FieldDescriptor {
	fields := md.Fields()
	if fd := fields.ByJSONName(key); fd != nil {
		return fd
	}
	if fd := fields.ByTextName(key); fd != nil {
		return fd
	}
	return nil
}

// fitsWait reports whether protojson reads val as the wait field's type: a
// whole number in range, or a string of one; null too (unset).
func fitsWait(val json.RawMessage, kind protoreflect.Kind) bool {
	v := bytes.TrimSpace(val)
	if bytes.Equal(v, []byte("null")) {
		return true
	}
	if kind == protoreflect.DoubleKind || kind == protoreflect.FloatKind {
		var f float64
		return json.Unmarshal(v, &f) == nil
	}
	s := string(v)
	if len(v) > 0 && v[0] == '"' {
		if json.Unmarshal(v, &s) != nil {
			return false
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n != math.Trunc(n) || n < 0 {
		return false
	}
	switch kind {
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return n <= math.MaxUint32
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return n <= math.MaxInt32
	}
	return true
}

func isWellKnown(md protoreflect.MessageDescriptor) bool {
	return md.ParentFile().Package() == "google.protobuf"
}
