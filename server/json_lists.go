package server

import (
	"encoding/json"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// withTopLevelLists writes the empty lists of an answer's top level, which
// protojson omits: a batch of nothing answers {"responses":[]}, not {}, so
// a client can index the list it was promised (the OpenAPI document marks
// them required). Nested lists stay omitted when empty, as protojson does.
func withTopLevelLists(b []byte, m protoreflect.Message) []byte {
	var missing []string
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.IsList() && m.Get(fd).List().Len() == 0 {
			missing = append(missing, string(fd.Name()))
		}
	}
	if len(missing) == 0 {
		return b
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(b, &members) != nil || members == nil {
		return b
	}
	for _, name := range missing {
		if _, ok := members[name]; !ok {
			members[name] = json.RawMessage("[]")
		}
	}
	out, err := json.Marshal(members)
	if err != nil {
		return b
	}
	return out
}
