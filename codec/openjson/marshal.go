package openjson

import (
	"encoding/json"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// Marshal encodes m with opts (protojson), then lifts the members of every
// additional_fields back into the object it belongs to, so the JSON has the
// shape the producer's contract gives it. A member whose name the message
// declares itself stays inside additional_fields (it cannot have come from
// JSON, only from a gRPC caller, and must not shadow the modelled field).
// With no additional_fields anywhere, this is protojson alone.
func Marshal(opts protojson.MarshalOptions, m proto.Message) ([]byte, error) {
	b, err := opts.Marshal(m)
	if err != nil || !hasAdditional(m.ProtoReflect()) {
		return b, err
	}
	out, ok := lift(b, m.ProtoReflect().Descriptor(), opts.UseProtoNames)
	if !ok {
		return b, nil
	}
	if opts.Multiline {
		var buf []byte
		if buf, err = indent(out, opts.Indent); err == nil {
			return buf, nil
		}
	}
	return out, nil
}

func indent(b []byte, in string) ([]byte, error) {
	if in == "" {
		in = "  "
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return json.MarshalIndent(v, "", in)
}

// hasAdditional reports whether any message in m holds additional fields.
func hasAdditional(m protoreflect.Message) bool {
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Name() == FieldName && fd.Message() != nil:
			found = len(v.Message().Interface().(*structpb.Struct).GetFields()) > 0
		case fd.Message() == nil || fd.IsMap() || isWellKnown(fd.Message()):
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len() && !found; i++ {
				found = hasAdditional(l.Get(i).Message())
			}
		default:
			found = hasAdditional(v.Message())
		}
		return !found
	})
	return found
}

// lift rewrites the JSON object raw of message md, hoisting additional_fields.
func lift(raw []byte, md protoreflect.MessageDescriptor, protoNames bool) ([]byte, bool) {
	if isWellKnown(md) {
		return raw, false
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return raw, false
	}
	changed := false
	name := func(fd protoreflect.FieldDescriptor) string {
		if protoNames {
			return string(fd.Name())
		}
		return fd.JSONName()
	}
	for i, fields := 0, md.Fields(); i < fields.Len(); i++ {
		fd := fields.Get(i)
		val, ok := members[name(fd)]
		if !ok || fd.Message() == nil || fd.IsMap() || fd.Name() == FieldName {
			continue
		}
		var out json.RawMessage
		if fd.IsList() {
			out, ok = liftList(val, fd.Message(), protoNames)
		} else {
			out, ok = lift(val, fd.Message(), protoNames)
		}
		if ok {
			members[name(fd)] = out
			changed = true
		}
	}
	if fd := md.Fields().ByName(FieldName); fd != nil {
		if given, ok := members[name(fd)]; ok {
			var extra map[string]json.RawMessage
			if json.Unmarshal(given, &extra) == nil {
				for k, v := range extra {
					if lookup(md, k) != nil {
						continue
					}
					members[k] = v
					delete(extra, k)
				}
				if len(extra) == 0 {
					delete(members, name(fd))
				} else if b, err := json.Marshal(extra); err == nil {
					members[name(fd)] = b
				}
				changed = true
			}
		}
	}
	if !changed {
		return raw, false
	}
	out, err := json.Marshal(members)
	if err != nil {
		return raw, false
	}
	return out, true
}

func liftList(val json.RawMessage, md protoreflect.MessageDescriptor, protoNames bool) (json.RawMessage, bool) {
	return eachItem(val, func(item json.RawMessage) (json.RawMessage, bool) { return lift(item, md, protoNames) })
}
