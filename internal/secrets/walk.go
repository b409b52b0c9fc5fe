package secrets

import (
	"fmt"
	"strconv"
	"strings"

	_ "google.golang.org/genproto/googleapis/rpc/errdetails" // ErrorInfo, RetryInfo, BadRequest: for unpacking Any
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// A Position is one place of a TranslateRequest where caller or upstream
// text can sit. Positions are found by walking the request's descriptor,
// so a field added to the contract is covered without editing a list.
type Position struct {
	Name  string
	Build func(text string) *errsvcv1.TranslateRequest
}

// setter plants text into a message of the type it was made for.
type setter func(m protoreflect.Message, text string)

// baseSources are minimal valid sources; a position overwrites one field.
var baseSources = map[protoreflect.Name]func() proto.Message{
	"labby_error": func() proto.Message {
		return &errsvcv1.LabbyError{Kind: "upstream_error", Message: "m"}
	},
	"agent_error": func() proto.Message {
		return &errsvcv1.AgentError{Code: "EXECUTION_FAILED"}
	},
	"classified_error": func() proto.Message {
		return &errsvcv1.ClassifiedError{Code: "rate_limited"}
	},
	"provider_response": func() proto.Message {
		return &errsvcv1.ProviderResponse{Provider: "openai", Status: 401, Body: `{"error":{"message":"m","type":"invalid_request_error"}}`}
	},
	"grpc_status": func() proto.Message {
		d, _ := structpb.NewStruct(map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "QUOTA", "domain": "example.com", "metadata": map[string]any{"key": "v"}})
		return &errsvcv1.GrpcStatusError{Code: 14, Message: "m", Details: []*structpb.Struct{d}}
	},
	"jsonrpc_error": func() proto.Message {
		return &errsvcv1.JsonRpcError{Code: -32603, Message: "m", Data: structpb.NewStringValue("d")}
	},
	"http_error": func() proto.Message {
		return &errsvcv1.HttpError{Status: 503, Headers: map[string]string{"retry-after": "5"}, Body: `{"error":"m"}`}
	},
	"mcp_tool_result": func() proto.Message {
		b, _ := structpb.NewStruct(map[string]any{"type": "text", "text": "m"})
		return &errsvcv1.McpToolResult{Tool: "ns::tool", IsError: true, Content: []*structpb.Struct{b}}
	},
}

// Positions lists every string position of every source of a
// TranslateRequest (and of its targets and context), including map keys
// and values, the keys and values of every Struct and Value (with the
// shapes the engine reads: kind, message, reason, class, an error member,
// MCP content blocks, secret-named keys), and the text inside a provider's
// JSON body and headers.
func Positions() []Position {
	var out []Position
	rd := (&errsvcv1.TranslateRequest{}).ProtoReflect().Descriptor()
	src := rd.Oneofs().ByName("source")
	if src == nil {
		panic("TranslateRequest has no source oneof")
	}
	for i := 0; i < src.Fields().Len(); i++ {
		fd := src.Fields().Get(i)
		base, ok := baseSources[fd.Name()]
		if !ok {
			panic(fmt.Sprintf("no base source for %s: add one to baseSources", fd.Name()))
		}
		for _, p := range fieldPositions(fd.Message(), string(fd.Name()), 0) {
			out = append(out, Position{Name: p.name, Build: sourceBuilder(fd, base, p.set)})
		}
		for _, p := range semanticPositions[fd.Name()] {
			out = append(out, Position{Name: string(fd.Name()) + "." + p.name, Build: sourceBuilder(fd, base, p.set)})
		}
	}
	// The request's own fields beside the source: targets, context.
	labby := rd.Fields().ByName("labby_error")
	for i := 0; i < rd.Fields().Len(); i++ {
		fd := rd.Fields().Get(i)
		if fd.ContainingOneof() != nil {
			continue
		}
		for _, p := range fieldSetters(fd, string(fd.Name()), 0) {
			set := p.set
			out = append(out, Position{Name: p.name, Build: func(text string) *errsvcv1.TranslateRequest {
				req := &errsvcv1.TranslateRequest{}
				req.ProtoReflect().Set(labby, protoreflect.ValueOfMessage(baseSources["labby_error"]().ProtoReflect()))
				set(req.ProtoReflect(), text)
				return req
			}})
		}
	}
	return out
}

func sourceBuilder(fd protoreflect.FieldDescriptor, base func() proto.Message, set setter) func(string) *errsvcv1.TranslateRequest {
	return func(text string) *errsvcv1.TranslateRequest {
		req := &errsvcv1.TranslateRequest{}
		m := base().ProtoReflect()
		set(m, text)
		req.ProtoReflect().Set(fd, protoreflect.ValueOfMessage(m))
		return req
	}
}

type namedSetter struct {
	name string
	set  setter
}

// fieldPositions lists the positions inside messages of type md.
func fieldPositions(md protoreflect.MessageDescriptor, prefix string, depth int) []namedSetter {
	var out []namedSetter
	for i := 0; i < md.Fields().Len(); i++ {
		fd := md.Fields().Get(i)
		out = append(out, fieldSetters(fd, prefix+"."+string(fd.Name()), depth)...)
	}
	return out
}

// fieldSetters lists the positions of one field.
func fieldSetters(fd protoreflect.FieldDescriptor, name string, depth int) []namedSetter {
	var out []namedSetter
	switch {
	case fd.IsMap():
		k, v := fd.MapKey(), fd.MapValue()
		if k.Kind() == protoreflect.StringKind && v.Kind() == protoreflect.StringKind {
			out = append(out,
				namedSetter{name + "[key]", func(m protoreflect.Message, t string) {
					m.Mutable(fd).Map().Set(protoreflect.ValueOfString(t).MapKey(), protoreflect.ValueOfString("v"))
				}},
				namedSetter{name + "[value]", func(m protoreflect.Message, t string) {
					m.Mutable(fd).Map().Set(protoreflect.ValueOfString("k").MapKey(), protoreflect.ValueOfString(t))
				}})
		}
	case fd.Kind() == protoreflect.StringKind:
		out = append(out, namedSetter{name, func(m protoreflect.Message, t string) {
			if fd.IsList() {
				m.Mutable(fd).List().Append(protoreflect.ValueOfString(t))
				return
			}
			m.Set(fd, protoreflect.ValueOfString(t))
		}})
	case fd.Kind() == protoreflect.MessageKind:
		switch fd.Message().FullName() {
		case "google.protobuf.Struct":
			shapes := structShapes
			if fd.FullName() == "errsvc.v1.McpToolResult.content" {
				shapes = append(append([]shape{}, blockShapes...), structShapes...)
			}
			for _, sh := range shapes {
				build := sh.build
				out = append(out, namedSetter{name + "{" + sh.name + "}", func(m protoreflect.Message, t string) {
					v := build(t).ProtoReflect()
					if fd.IsList() {
						m.Mutable(fd).List().Append(protoreflect.ValueOfMessage(v))
						return
					}
					m.Set(fd, protoreflect.ValueOfMessage(v))
				}})
			}
		case "google.protobuf.Value":
			for _, sh := range valueShapes() {
				build := sh.build
				out = append(out, namedSetter{name + "<" + sh.name + ">", func(m protoreflect.Message, t string) {
					m.Set(fd, protoreflect.ValueOfMessage(build(t).ProtoReflect()))
				}})
			}
		case "google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.Any":
		default:
			if depth >= 3 {
				return nil
			}
			for _, p := range fieldPositions(fd.Message(), name, depth+1) {
				inner := p.set
				out = append(out, namedSetter{p.name, func(m protoreflect.Message, t string) {
					if fd.IsList() {
						inner(m.Mutable(fd).List().AppendMutable().Message(), t)
						return
					}
					inner(m.Mutable(fd).Message(), t)
				}})
			}
		}
	}
	return out
}

type shape struct {
	name  string
	build func(text string) *structpb.Struct
}

func mustStruct(v map[string]any) *structpb.Struct {
	s, err := structpb.NewStruct(v)
	if err != nil {
		panic(err)
	}
	return s
}

func jsonQuote(s string) string { return strconv.Quote(s) }

// structShapes put text into a Struct: as a key, as the values the engine
// reads, under an error member, under secret-named keys and in lists.
var structShapes = []shape{
	{"key", func(t string) *structpb.Struct { return mustStruct(map[string]any{t: "x"}) }},
	{"read-keys", func(t string) *structpb.Struct {
		return mustStruct(map[string]any{"kind": t, "message": t, "reason": t, "class": t, "routing_code": t, "code": t})
	}},
	{"error-member", func(t string) *structpb.Struct {
		return mustStruct(map[string]any{"error": map[string]any{"kind": t, "message": t}})
	}},
	{"secret-keys", func(t string) *structpb.Struct {
		return mustStruct(map[string]any{"session": map[string]any{"id": t}, "auth": t, "nextPageToken": t, "items": []any{t, map[string]any{"k": t}}})
	}},
}

// blockShapes are MCP content blocks carrying text in every member.
var blockShapes = []shape{
	{"text-block", func(t string) *structpb.Struct { return mustStruct(map[string]any{"type": "text", "text": t}) }},
	{"json-text-block", func(t string) *structpb.Struct {
		return mustStruct(map[string]any{"type": "text", "text": `{"kind":` + jsonQuote(t) + `,"message":` + jsonQuote(t) + `}`})
	}},
	{"json-error-block", func(t string) *structpb.Struct {
		return mustStruct(map[string]any{"type": "text", "text": `{"error":{"kind":` + jsonQuote(t) + `,"message":"m"}}`})
	}},
	{"resource-block", func(t string) *structpb.Struct {
		return mustStruct(map[string]any{"type": "resource", "resource": map[string]any{"uri": t, "text": t, "mimeType": t}})
	}},
	{"image-block", func(t string) *structpb.Struct {
		return mustStruct(map[string]any{"type": "image", "mimeType": t, "data": t})
	}},
	{"link-block", func(t string) *structpb.Struct {
		return mustStruct(map[string]any{"type": "resource_link", "uri": t, "mime_type": t})
	}},
	{"type", func(t string) *structpb.Struct { return mustStruct(map[string]any{"type": t, "text": "m"}) }},
}

type valueShape struct {
	name  string
	build func(text string) *structpb.Value
}

func valueShapes() []valueShape {
	out := []valueShape{
		{"string", func(t string) *structpb.Value { return structpb.NewStringValue(t) }},
		{"list", func(t string) *structpb.Value {
			return structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue(t)}})
		}},
	}
	for _, sh := range structShapes {
		build := sh.build
		out = append(out, valueShape{sh.name, func(t string) *structpb.Value { return structpb.NewStructValue(build(t)) }})
	}
	return out
}

// semanticPositions are places a source reads inside one of its strings:
// a provider's JSON body and its well-known headers.
var semanticPositions = map[protoreflect.Name][]namedSetter{
	"provider_response": {
		{"body{openai}", func(m protoreflect.Message, t string) {
			m.Interface().(*errsvcv1.ProviderResponse).Body = `{"error":{"message":` + jsonQuote(t) + `,"type":` + jsonQuote(t) + `,"code":` + jsonQuote(t) + `}}`
		}},
		{"body{anthropic}", func(m protoreflect.Message, t string) {
			r := m.Interface().(*errsvcv1.ProviderResponse)
			r.Provider, r.Status = "anthropic", 529
			r.Body = `{"type":"error","error":{"type":` + jsonQuote(t) + `,"message":` + jsonQuote(t) + `}}`
		}},
		{"body{google}", func(m protoreflect.Message, t string) {
			r := m.Interface().(*errsvcv1.ProviderResponse)
			r.Provider, r.Status = "google", 429
			r.Body = `{"error":{"code":429,"status":` + jsonQuote(t) + `,"message":` + jsonQuote(t) + `,"details":[{"reason":` + jsonQuote(t) + `}]}}`
		}},
		{"headers{well-known}", func(m protoreflect.Message, t string) {
			r := m.Interface().(*errsvcv1.ProviderResponse)
			r.Status = 429
			r.Headers = map[string]string{"retry-after": t, "x-request-id": t, "www-authenticate": t, "x-ratelimit-reset-requests": t}
		}},
	},
}

// Plan pairs positions with corpus entries: round r pairs item i with
// position i mod positions and entry (i + r·stride) mod entries, for i up
// to the larger of the two counts, so one round covers every position and
// every entry at least once and later rounds add other pairings.
func Plan(positions, entries, rounds int) [][2]int {
	n := max(positions, entries)
	var out [][2]int
	for r := 0; r < rounds; r++ {
		for i := 0; i < n; i++ {
			out = append(out, [2]int{i % positions, (i + r*37) % entries})
		}
	}
	return out
}

// A Field is one string of a message found by reflection, with its path.
type Field struct {
	Path  string
	Value string
}

// Strings lists every string a message holds: string fields, repeated
// strings, map keys and values, the keys and strings of Struct and Value
// (they are messages like any other), and the contents of every
// google.protobuf.Any, unpacked through the global registry. An Any of an
// unknown type is listed as its raw bytes, so nothing goes unchecked.
func Strings(m proto.Message) []Field {
	var out []Field
	walkMessage(m.ProtoReflect(), "", &out)
	return out
}

func walkMessage(m protoreflect.Message, path string, out *[]Field) {
	if a, ok := m.Interface().(*anypb.Any); ok {
		*out = append(*out, Field{path + ".type_url", a.GetTypeUrl()})
		mt, err := protoregistry.GlobalTypes.FindMessageByURL(a.GetTypeUrl())
		if err != nil {
			*out = append(*out, Field{path + ".value(raw)", string(a.GetValue())})
			return
		}
		inner := mt.New().Interface()
		if err := proto.Unmarshal(a.GetValue(), inner); err != nil {
			*out = append(*out, Field{path + ".value(raw)", string(a.GetValue())})
			return
		}
		walkMessage(inner.ProtoReflect(), path+"("+string(mt.Descriptor().FullName())+")", out)
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		p := path + "." + string(fd.Name())
		switch {
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				ks := k.String()
				*out = append(*out, Field{p + "[key]", ks})
				walkValue(fd.MapValue(), mv, p+"["+clip(ks)+"]", out)
				return true
			})
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				walkValue(fd, l.Get(i), p+"["+strconv.Itoa(i)+"]", out)
			}
		default:
			walkValue(fd, v, p, out)
		}
		return true
	})
}

func walkValue(fd protoreflect.FieldDescriptor, v protoreflect.Value, path string, out *[]Field) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		*out = append(*out, Field{path, v.String()})
	case protoreflect.BytesKind:
		*out = append(*out, Field{path, string(v.Bytes())})
	case protoreflect.MessageKind, protoreflect.GroupKind:
		walkMessage(v.Message(), path, out)
	}
}

func clip(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}

// LeakIn reports the first string of m holding a piece of secret (see
// Leaks), with its path.
func LeakIn(m proto.Message, secret string) (path, piece string, leaked bool) {
	for _, f := range Strings(m) {
		if w, ok := Leaks(f.Value, secret); ok {
			return f.Path, w, true
		}
	}
	return "", "", false
}

// LeakInAnswer is LeakIn less what the service writes whatever it is
// asked: a piece that base, the answer to the same request with the
// secret taken out of its text (asked for only once a piece is found),
// holds too is the service's own text, not the secret's. A mnemonic's
// words are ordinary ones, and two of them stand together in a fixed
// guidance now and then ("when present", seed 20091).
func LeakInAnswer(m proto.Message, secret string, base func() proto.Message) (path, piece string, leaked bool) {
	var own []Field
	asked := false
	owns := func(w string) bool {
		if !asked {
			asked = true
			if b := base(); b != nil {
				own = Strings(b)
			}
		}
		return holds(own, w)
	}
	for _, f := range Strings(m) {
		if w, ok := LeakPast(f.Value, secret, owns); ok {
			return f.Path, w, true
		}
	}
	return "", "", false
}

// LeakPast is Leaks less the pieces own says are the text's own (the
// service's guidance, a template's label: "seed phrase: …" around a
// mnemonic that holds "seed phrase", fresh corpus seed 9511): past each,
// it looks for another; where one stands only in a decoded view, out is
// done.
func LeakPast(out, secret string, own func(piece string) bool) (string, bool) {
	for {
		w, ok := Leaks(out, secret)
		if !ok {
			return "", false
		}
		if !own(w) {
			return w, true
		}
		next := strings.ReplaceAll(out, w, "\x00")
		if next == out {
			return "", false
		}
		out = next
	}
}

func holds(fields []Field, piece string) bool {
	for _, f := range fields {
		if _, ok := Leaks(f.Value, piece); ok {
			return true
		}
	}
	return false
}

// Without is the entry's text with its secret taken out: the request the
// same position builds from it is the baseline of LeakInAnswer.
func (e Entry) Without() string { return strings.ReplaceAll(e.Text, e.Secret, "") }

// Describe names a planted case for a failure message.
func Describe(e Entry, p Position) string {
	d := strings.TrimPrefix(e.Name, "generated:") + " @ " + p.Name
	if strings.HasPrefix(e.Name, "fresh:") {
		d += fmt.Sprintf(" (ERRSVC_PROPERTY_SEED=%d)", Seed())
	}
	return d
}
