package main

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Version is the document's info.version: the contract's release
// (releases/errsvc-v1.binpb is its baseline for buf breaking). A release
// that adds to the contract moves the minor number.
const Version = "1.0.0"

// schemaPrefix is how protoc-gen-openapiv2 names the schemas of a package.
var schemaPrefix = map[string]protoreflect.FullName{
	"v1":       "errsvc.v1",
	"rpc":      "google.rpc",
	"protobuf": "google.protobuf",
}

// details are the google.rpc detail messages errsvc answers with, in a
// google.rpc.Status (an error answer, TranslateResponse.grpc_status and
// .error), each with what it tells a client.
var details = []struct {
	msg  protoreflect.MessageDescriptor
	desc string
}{
	{(&errdetails.BadRequest{}).ProtoReflect().Descriptor(), "The request field that is wrong (field is its dotted proto name, or body, source, requests) and why."},
	{(&errdetails.ErrorInfo{}).ProtoReflect().Descriptor(), "Why the call failed, as a machine-readable reason in a domain, with metadata."},
	{(&errdetails.RetryInfo{}).ProtoReflect().Descriptor(), "How long to wait before retrying (retry_delay, e.g. \"1s\"); REST also sends Retry-After."},
	{(&errdetails.QuotaFailure{}).ProtoReflect().Descriptor(), "The quota that ran out (subject: concurrent_requests, concurrent_streams, stream_messages, or an upstream's)."},
}

const schemaRef = "#/components/schemas/"

func complete(doc map[string]any) error {
	doc["openapi"] = "3.1.0"
	info := obj(doc, "info")
	info["title"] = "errsvc"
	info["version"] = Version
	info["description"] = "Translates one error between vocabularies: the Labby agent error contract v1 and the " +
		"Code Mode tool error contract, the Agent Surface error model (AgentCapabilityError), the Error Class " +
		"Contract v1, HTTP and gRPC status, raw provider answers and MCP tool results.\n\n" +
		"Pinned on write, open on read: answers carry only the members documented here, while request " +
		"objects accept members the contract does not model (additionalProperties): they are carried to the " +
		"same contract's output with a field_ignored note, never refused. Unknown vocabulary terms pass " +
		"through the same way.\n\nThe same service answers over gRPC, Connect and gRPC-Web " +
		"(/errsvc.v1.TranslationService/<Method>) on this port."
	schemas := obj(obj(doc, "components"), "schemas")
	if len(schemas) == 0 {
		return fmt.Errorf("no component schemas in the converted document")
	}
	for name, s := range schemas {
		if md := messageOf(name); md != nil {
			completeMessage(s.(map[string]any), md)
		}
	}
	for name, rule := range rules {
		s, ok := schemas[name].(map[string]any)
		if !ok {
			return fmt.Errorf("rule for missing schema %s", name)
		}
		if err := rule(s); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	for _, d := range details {
		addDetail(schemas, d.msg, d.desc)
	}
	typeStatus(schemas)
	addErrorSchemas(schemas)
	if err := completeOperations(doc); err != nil {
		return err
	}
	batch, err := prop(schemas["v1TranslateBatchRequest"].(map[string]any), "requests")
	if err != nil {
		return err
	}
	batch["items"] = map[string]any{
		"description": "A TranslateRequest. Items are read one by one: any JSON value is accepted here, and one that is not a valid TranslateRequest gets its own error (responses[i].error) without failing the others.",
		"anyOf":       []any{map[string]any{"$ref": schemaRef + "v1TranslateRequest"}, true},
	}
	// Lists at the top of an answer are always written, empty or not.
	for name, field := range map[string]string{
		"v1TranslateBatchResponse":   "responses",
		"v1ListVocabulariesResponse": "vocabularies",
	} {
		s, ok := schemas[name].(map[string]any)
		if !ok {
			return fmt.Errorf("schema %s missing", name)
		}
		s["required"] = []any{field}
	}
	wrapRefs(doc)
	for name, s := range schemas {
		if messageOf(name) != nil {
			nullableProperties(s.(map[string]any))
		}
	}
	return nil
}

// nullableProperties lets every member of a contract object be null, which
// proto JSON reads as absent (answers never write null).
func nullableProperties(s map[string]any) {
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			required[r.(string)] = true
		}
	}
	for name, p := range props {
		p, ok := p.(map[string]any)
		if !ok || required[name] { // null is absent, which a required member cannot be
			continue
		}
		switch t := p["type"].(type) {
		case string:
			if _, pinned := p["const"]; !pinned { // a required value stays required
				p["type"] = []any{t, "null"}
			}
			continue
		case nil:
		default:
			continue
		}
		if all, ok := p["allOf"]; ok {
			delete(p, "allOf")
			p["anyOf"] = append(all.([]any), map[string]any{"type": "null"})
		} else if len(p) > 0 && p["anyOf"] == nil {
			// An untyped member (google.protobuf.Value) already takes null.
		}
	}
}

// meaningful is what a term must hold to survive sanitising: one character
// that is neither a control character (a newline aside) nor an invisible
// format character (translate/sanitize drops those). The format characters
// are literal runes, not \u escapes, which Go's RE2 does not read.
const meaningful = "[^\\x00-\\x09\\x0B-\\x1F\\x7F-\\x9F\\xAD\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF]"

// streamErrorPattern matches a body that opens with an SSE event named
// error (translate/provider/stream.go).
const streamErrorPattern = "^event: ?error(\\r?\\n\\r?\\n|\\r?\\n?$)"

// rules are the request rules of the translator (translate.RequestError)
// that a schema can state, so a generated client and a schema-driven test
// know them: each answers 400 naming its field when broken.
var rules = map[string]func(map[string]any) error{
	"v1LabbyError": func(s map[string]any) error {
		return requireTerm(s, "kind", "The stable kind of the error: required, and something must be left of it once control and invisible characters are removed.")
	},
	"v1AgentError": func(s map[string]any) error {
		if err := requireTerm(s, "code", "One of the 16 AgentCapabilityErrorCode strings (an unknown code passes through with a note): required, and something must be left of it once control and invisible characters are removed."); err != nil {
			return err
		}
		// details is an open object; the one member the translator bounds.
		d, err := prop(s, "details")
		if err != nil {
			return err
		}
		d["properties"] = map[string]any{"retryAfterMs": map[string]any{
			"description": "A wait in milliseconds: a number must be non-negative and below 2^32 (another value passes with a note).",
			"minimum":     0, "maximum": math.MaxUint32,
		}}
		return nil
	},
	"v1ClassifiedError": func(s map[string]any) error {
		p, err := prop(s, "retry_after_secs")
		if err != nil {
			return err
		}
		p["minimum"] = 0
		return nil
	},
	"v1ProviderResponse": func(s map[string]any) error {
		p, err := prop(s, "status")
		if err != nil {
			return err
		}
		// Only errors translate: an error status, or a streamed error (a
		// body with an error event) under any status. A schema cannot
		// parse a stream, so it states the plainest streamed error, a body
		// that opens with an "event: error" event; the other shapes the
		// classifier reads (OpenAI's data: {"error": ...}, response.failed)
		// translate too, as the golden vectors show.
		p["minimum"], p["maximum"] = 0, 599
		p["description"] = "HTTP status of the answer, 0 (unknown) to 599."
		s["anyOf"] = []any{
			map[string]any{"required": []any{"status"}, "properties": map[string]any{"status": map[string]any{"type": "integer", "minimum": 400}}},
			map[string]any{"required": []any{"body"}, "properties": map[string]any{"body": map[string]any{
				"type": "string", "pattern": streamErrorPattern}}},
		}
		appendDescription(s, "Only errors translate: the status is 400 to 599, or the body carries an error event "+
			"(a streamed error under a success status: an SSE event named error, OpenAI's data: {\"error\": ...} "+
			"or response.failed, Anthropic's event: error). The schema states the plainest such body, one that opens "+
			"with an event: error event; an answer that is neither is refused (400).")
		return nil
	},
	"v1HttpError": func(s map[string]any) error {
		p, err := prop(s, "status")
		if err != nil {
			return err
		}
		p["minimum"], p["maximum"] = 400, 599
		p["description"] = "HTTP status of the answer: an error status, 400 to 599 (required)."
		req, _ := s["required"].([]any)
		s["required"] = append(req, "status")
		return nil
	},
	"v1GrpcStatusError": func(s map[string]any) error {
		p, err := prop(s, "code")
		if err != nil {
			return err
		}
		// The schema states the JSON form: a code of a failure. A
		// serialized Status (status_bin) is for gRPC callers; bytes a
		// schema cannot check are refused (400) when they are no Status.
		p["minimum"], p["maximum"] = 1, math.MaxInt32
		p["description"] = "The google.rpc.Code of the failure (1 to 16; another number passes as UNKNOWN); 0 (OK) is not an error."
		req, _ := s["required"].([]any)
		s["required"] = append(req, "code")
		s["not"] = map[string]any{"required": []any{"status_bin"}}
		return nil
	},
	"v1JsonRpcError": func(s map[string]any) error {
		p, err := prop(s, "code")
		if err != nil {
			return err
		}
		p["not"] = map[string]any{"const": 0}
		p["description"] = "The JSON-RPC error code (required, not 0), e.g. -32602."
		req, _ := s["required"].([]any)
		s["required"] = append(req, "code")
		return nil
	},
	"v1McpToolResult": func(s map[string]any) error {
		p, err := prop(s, "is_error")
		if err != nil {
			return err
		}
		// Only isError results translate. MCP spells it isError, which
		// proto JSON reads as well; the document names one spelling, as
		// both at once are a duplicate field (400).
		p["const"] = true
		p["description"] = "Must be true: only isError results translate. MCP's own spelling isError is read too."
		s["required"] = []any{"is_error"}
		return nil
	},
}

func requireTerm(s map[string]any, field, desc string) error {
	p, err := prop(s, field)
	if err != nil {
		return err
	}
	p["pattern"], p["description"] = meaningful, desc
	req, _ := s["required"].([]any)
	s["required"] = append(req, field)
	return nil
}

func prop(s map[string]any, name string) (map[string]any, error) {
	props, _ := s["properties"].(map[string]any)
	p, ok := props[name].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no property %s", name)
	}
	return p, nil
}

// messageOf finds the descriptor a schema was generated from.
func messageOf(schema string) protoreflect.MessageDescriptor {
	_ = errsvcv1.File_errsvc_v1_translation_service_proto // the errsvc.v1 files are registered
	for prefix, pkg := range schemaPrefix {
		if rest, ok := strings.CutPrefix(schema, prefix); ok && rest != "" {
			d, err := protoregistry.GlobalFiles.FindDescriptorByName(pkg + "." + protoreflect.FullName(rest))
			if err != nil {
				continue
			}
			if md, ok := d.(protoreflect.MessageDescriptor); ok {
				return md
			}
		}
	}
	return nil
}

// completeMessage adds what the descriptor knows and Swagger 2.0 lost.
func completeMessage(s map[string]any, md protoreflect.MessageDescriptor) {
	props, _ := s["properties"].(map[string]any)
	for i := range md.Fields().Len() {
		fd := md.Fields().Get(i)
		p, ok := props[string(fd.Name())].(map[string]any)
		if !ok {
			continue
		}
		target := p
		if fd.IsList() {
			if items, ok := p["items"].(map[string]any); ok {
				target = items
			}
		}
		setBounds(target, fd.Kind())
	}
	// An open message: JSON members it does not model go to
	// additional_fields, which is never a JSON member itself.
	if fd := md.Fields().ByName("additional_fields"); fd != nil && props != nil {
		delete(props, "additional_fields")
		s["additionalProperties"] = true
		appendDescription(s, "Open on read: members this object does not declare are accepted and carried "+
			"(noted as field_ignored), never refused.")
	}
	for i := range md.Oneofs().Len() {
		od := md.Oneofs().Get(i)
		if od.IsSynthetic() {
			continue
		}
		names := make([]string, od.Fields().Len())
		for j := range names {
			names[j] = string(od.Fields().Get(j).Name())
		}
		if md.FullName() == "errsvc.v1.TranslateRequest" && od.Name() == "source" {
			// Exactly one source: none and two are both refused (400). A
			// member set to null is absent (proto JSON), so the chosen one
			// is not null and the others may only be null, which also
			// gives generated types the exclusivity (other?: null).
			var one []any
			for _, n := range names {
				props := map[string]any{n: map[string]any{"not": map[string]any{"type": "null"}}}
				for _, other := range names {
					if other != n {
						props[other] = map[string]any{"type": "null"}
					}
				}
				one = append(one, map[string]any{"required": []any{n}, "properties": props})
			}
			s["oneOf"] = one
			appendDescription(s, "Exactly one of "+strings.Join(names, ", ")+" is set.")
			continue
		}
		appendDescription(s, "At most one of "+strings.Join(names, ", ")+" is set.")
	}
}

// setBounds bounds a 32-bit integer field; 64-bit ones are JSON strings.
func setBounds(s map[string]any, k protoreflect.Kind) {
	switch k {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		s["type"], s["format"] = "integer", "int32"
		s["minimum"], s["maximum"] = math.MinInt32, math.MaxInt32
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		s["type"], s["format"] = "integer", "int64"
		s["minimum"], s["maximum"] = 0, math.MaxUint32
	}
}

// addDetail writes the schema of a google.rpc detail as it appears packed
// in a google.protobuf.Any: its fields beside an "@type".
func addDetail(schemas map[string]any, md protoreflect.MessageDescriptor, desc string) {
	s := messageSchema(schemas, md)
	props := s["properties"].(map[string]any)
	props["@type"] = map[string]any{"const": "type.googleapis.com/" + string(md.FullName())}
	s["required"] = []any{"@type"}
	s["description"] = desc
	schemas[schemaName(md)] = s
}

func schemaName(md protoreflect.MessageDescriptor) string {
	name := strings.TrimPrefix(string(md.FullName()), "google.")
	return strings.ReplaceAll(name, ".", "")
}

// messageSchema is the proto JSON shape (proto field names) of md, with its
// nested messages added to schemas.
func messageSchema(schemas map[string]any, md protoreflect.MessageDescriptor) map[string]any {
	props := map[string]any{}
	for i := range md.Fields().Len() {
		fd := md.Fields().Get(i)
		var p map[string]any
		switch {
		case fd.IsMap():
			p = map[string]any{"type": "object", "additionalProperties": scalarSchema(schemas, fd.MapValue())}
		case fd.IsList():
			p = map[string]any{"type": "array", "items": scalarSchema(schemas, fd)}
		default:
			p = scalarSchema(schemas, fd)
		}
		props[string(fd.Name())] = p // REST writes proto names
	}
	return map[string]any{"type": "object", "properties": props}
}

func scalarSchema(schemas map[string]any, fd protoreflect.FieldDescriptor) map[string]any {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return map[string]any{"type": "string"}
	case protoreflect.BoolKind:
		return map[string]any{"type": "boolean"}
	case protoreflect.Int64Kind, protoreflect.Uint64Kind, protoreflect.Sint64Kind,
		protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
		return map[string]any{"type": "string", "format": "int64", "pattern": "^-?[0-9]+$"}
	case protoreflect.MessageKind:
		if fd.Message().FullName() == "google.protobuf.Duration" {
			return map[string]any{"type": "string", "pattern": `^-?[0-9]+(\.[0-9]{1,9})?s$`,
				"description": "A duration: seconds with up to nine decimals, then s (\"1s\", \"0.250s\")."}
		}
		name := schemaName(fd.Message())
		if _, ok := schemas[name]; !ok {
			schemas[name] = map[string]any{} // breaks cycles
			schemas[name] = messageSchema(schemas, fd.Message())
		}
		return map[string]any{"$ref": schemaRef + name}
	}
	s := map[string]any{}
	setBounds(s, fd.Kind())
	if len(s) == 0 {
		s["type"] = "number"
	}
	return s
}

// typeStatus types google.rpc.Status.details: each is one of the detail
// messages above, or another packed message (open on read).
func typeStatus(schemas map[string]any) {
	st := schemas["rpcStatus"].(map[string]any)
	props := st["properties"].(map[string]any)
	var anyOf []any
	for _, d := range details {
		anyOf = append(anyOf, map[string]any{"$ref": schemaRef + schemaName(d.msg)})
	}
	anyOf = append(anyOf, map[string]any{"$ref": schemaRef + "protobufAny"})
	props["details"] = map[string]any{
		"type":        "array",
		"items":       map[string]any{"anyOf": anyOf},
		"description": "Detail messages, each with its @type: the google.rpc ones below, or another message.",
	}
	setBounds(props["code"].(map[string]any), protoreflect.Int32Kind)
	props["code"].(map[string]any)["minimum"] = 0
	props["code"].(map[string]any)["maximum"] = 16
}

// errorAnswers are the typed error answers of the REST routes: the code on
// the wire (google.rpc.Code), the detail every such answer carries, and the
// operations that can give it.
var errorAnswers = []struct {
	status, schema, desc string
	code                 int
	detail               string
	ops                  []string // operationIds; nil means every one
	retryAfter           bool
}{
	{"400", "InvalidArgumentStatus", "INVALID_ARGUMENT: the body does not decode, or breaks a rule of the contract; " +
		"the google.rpc.BadRequest names the field (source when no single member is to blame).",
		3, "rpcBadRequest", []string{"TranslationService_Translate", "TranslationService_TranslateBatch"}, false},
	{"413", "RequestTooLargeStatus", "RESOURCE_EXHAUSTED: the body is over the server's byte limit (field body) or the " +
		"batch over its item limit (field requests), named by a google.rpc.BadRequest. Split it; retrying unchanged fails again.",
		8, "rpcBadRequest", []string{"TranslationService_Translate", "TranslationService_TranslateBatch"}, false},
	{"429", "QuotaExceededStatus", "RESOURCE_EXHAUSTED: the server is at its limit of concurrent requests; the " +
		"google.rpc.QuotaFailure names it, google.rpc.RetryInfo and Retry-After say when to retry.",
		8, "rpcQuotaFailure", nil, true},
}

func addErrorSchemas(schemas map[string]any) {
	for _, e := range errorAnswers {
		schemas[e.schema] = map[string]any{
			"description": e.desc,
			"allOf":       []any{map[string]any{"$ref": schemaRef + "rpcStatus"}},
			"properties": map[string]any{
				"code":    map[string]any{"const": e.code},
				"details": map[string]any{"contains": map[string]any{"$ref": schemaRef + e.detail}},
			},
			"required": []any{"code", "message", "details"},
		}
	}
}

func completeOperations(doc map[string]any) error {
	paths := obj(doc, "paths")
	keys := make([]string, 0, len(paths))
	for k := range paths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	seen := 0
	for _, path := range keys {
		for method, op := range paths[path].(map[string]any) {
			op, ok := op.(map[string]any)
			if !ok {
				continue
			}
			seen++
			id, _ := op["operationId"].(string)
			// The plugin copies proto lint directives into summaries.
			if s, ok := op["summary"].(string); ok {
				op["summary"] = cleanComment(s)
			}
			if id == "TranslationService_TranslateBatch" {
				openBatch(op)
			}
			responses := obj(op, "responses")
			for _, e := range errorAnswers {
				if e.ops != nil && !contains(e.ops, id) {
					continue
				}
				r := map[string]any{
					"description": e.desc,
					"content": map[string]any{"application/json": map[string]any{
						"schema": map[string]any{"$ref": schemaRef + e.schema}}},
				}
				if e.retryAfter {
					r["headers"] = map[string]any{"Retry-After": map[string]any{
						"description": "Seconds to wait before retrying (RFC 9110, 10.2.3).",
						"schema":      map[string]any{"type": "integer", "minimum": 0},
					}}
				}
				responses[e.status] = r
			}
			if d, ok := responses["default"].(map[string]any); ok {
				d["description"] = "Any other failure: a google.rpc.Status with its code and details."
			}
			_ = method
		}
	}
	if seen == 0 {
		return fmt.Errorf("no operations in the converted document")
	}
	return nil
}

// openBatch states how a batch is read: no body is an empty batch, and an
// item is decoded on its own, so any JSON value is accepted as an item and
// one that is not a valid TranslateRequest gets its own error in the
// answer instead of failing the batch.
func openBatch(op map[string]any) {
	body := obj(op, "requestBody")
	body["required"] = false
	body["description"] = "The requests. No body is an empty batch."
}

// cleanComment drops the buf lint directives the plugin copies from proto
// comments into summaries.
func cleanComment(s string) string {
	var keep []string
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "buf:lint:") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// wrapRefs moves every $ref that has siblings (a description, a type) into
// an allOf, so tools that ignore a $ref's siblings keep the description.
func wrapRefs(v any) {
	switch v := v.(type) {
	case map[string]any:
		if ref, ok := v["$ref"]; ok && len(v) > 1 {
			delete(v, "$ref")
			delete(v, "type") // the referenced schema has it
			v["allOf"] = []any{map[string]any{"$ref": ref}}
		}
		for _, c := range v {
			wrapRefs(c)
		}
	case []any:
		for _, c := range v {
			wrapRefs(c)
		}
	}
}

func appendDescription(s map[string]any, text string) {
	if d, _ := s["description"].(string); d != "" {
		s["description"] = d + "\n\n" + text
		return
	}
	s["description"] = text
}

func obj(m map[string]any, key string) map[string]any {
	if v, ok := m[key].(map[string]any); ok {
		return v
	}
	v := map[string]any{}
	m[key] = v
	return v
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
