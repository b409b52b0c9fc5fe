package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	rpccode "google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	errsvcclient "github.com/errsvc/errsvc/clients/go"
	"github.com/errsvc/errsvc/codec"
	"github.com/errsvc/errsvc/codec/errjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/gen/openapi"
	"github.com/errsvc/errsvc/internal/version"
	"github.com/errsvc/errsvc/translate"
)

// errsvc as an MCP server: the same service as REST and gRPC, offered to
// agents where they already are. Three tools (translate, explain, decide)
// and one resource per vocabulary. `errsvc mcp` serves it over stdio and the
// HTTP port at /mcp over MCP's streamable HTTP (stateless: every request
// stands alone, so nothing is kept between calls and any replica answers).
//
// The tools read their input exactly as REST reads a body (errjson: proto
// or JSON names, open on read, a refusal naming the field with its path),
// bounded by Options.MaxRequestBytes, and a refusal is a tool result with
// isError set whose structured content is a TranslateResponse carrying the
// google.rpc.Status (with its BadRequest) in error, as a batch item's own
// failure is. A protocol error (an unknown tool, a resource that does not
// exist) stays a JSON-RPC error, as MCP says.

// MCPPath is where NewHTTPHandler mounts the streamable HTTP transport.
const MCPPath = "/mcp"

// mcpEnvelopeBytes is what a JSON-RPC tools/call envelope may add to the
// arguments it carries; the arguments themselves are held to
// MaxRequestBytes.
const mcpEnvelopeBytes = 64 << 10

// MCP tool names.
const (
	mcpToolTranslate = "translate"
	mcpToolExplain   = "explain"
	mcpToolDecide    = "decide"
)

// mcpVocabularyURI is the URI of a vocabulary's resource.
func mcpVocabularyURI(name string) string { return "errsvc://vocabularies/" + name }

// NewMCPServer returns errsvc's MCP server: the translate, explain and
// decide tools and one resource per vocabulary, over a Service configured
// by opts (MaxRequestBytes bounds a tool's arguments).
func NewMCPServer(opts Options) *mcp.Server {
	opts = opts.withDefaults()
	m := &mcpService{svc: NewService(opts), maxBytes: opts.MaxRequestBytes, limiter: opts.limiter}
	s := mcp.NewServer(&mcp.Implementation{Name: "errsvc", Title: "errsvc error translation", Version: version.Get().Version},
		&mcp.ServerOptions{
			Instructions: "errsvc translates an error between the Labby agent error envelope, the Code Mode tool " +
				"error contract, the Agent Surface AgentCapabilityError, the Error Class Contract, provider HTTP " +
				"answers, MCP and JSON-RPC errors and gRPC statuses. Call decide with a failed call's error to learn " +
				"what to do now; translate for the error in other vocabularies; explain for one term.",
			Capabilities: &mcp.ServerCapabilities{},
		})
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
	s.AddTool(&mcp.Tool{
		Name:  mcpToolTranslate,
		Title: "Translate an error",
		Description: "Translate one error from any source (labby_error, agent_error, classified_error, provider_response, " +
			"mcp_tool_result, grpc_status, jsonrpc_error, http_error: exactly one) into the targets named in targets " +
			"(all that apply when empty). The arguments are a TranslateRequest as POST /v1/translate takes it; the " +
			"structured result is the TranslateResponse REST answers with.",
		InputSchema:  mcpSchemas().translateIn,
		OutputSchema: mcpSchemas().translateOut,
		Annotations:  readOnly,
	}, m.translateTool)
	s.AddTool(&mcp.Tool{
		Name:  mcpToolDecide,
		Title: "Decide what to do about an error",
		Description: "Decide what to do now about a failed call: retry (after retry_after_secs), reduce_concurrency, " +
			"fail_over, reauthenticate, compact_context, revise_and_retry or give_up, with the reason. request is the " +
			"error as a TranslateRequest (set request.context.idempotent when the call is idempotent); max_wait_secs " +
			"caps the wait worth sleeping (default 120; a longer stated wait fails fast).",
		InputSchema:  mcpSchemas().decideIn,
		OutputSchema: mcpSchemas().decideOut,
		Annotations:  readOnly,
	}, m.decideTool)
	mcp.AddTool(s, &mcp.Tool{
		Name:  mcpToolExplain,
		Title: "Explain a term",
		Description: "Explain a term of any vocabulary errsvc reads (a Labby kind, an Agent Surface code, an error class, " +
			"a recovery action, a gRPC or JSON-RPC code, …): its meaning, its class, what to do, and its mapping row. " +
			"vocabulary (e.g. LabbyKind, AgentErrorCode, ErrorClass) narrows the search; without it every " +
			"vocabulary holding the term answers.",
		OutputSchema: mcpSchemas().explainOut,
		Annotations:  readOnly,
	}, m.explainTool)
	for _, v := range translate.Vocabularies().GetVocabularies() {
		uri := mcpVocabularyURI(v.GetName())
		body, err := errjson.Marshal(restAnswer, v)
		if err != nil {
			// The contract's own data: a test renders every vocabulary.
			opts.Logger.Error("MCP resource not rendered", "vocabulary", v.GetName(), "error", err)
			continue
		}
		s.AddResource(&mcp.Resource{
			URI:         uri,
			Name:        v.GetName(),
			Title:       v.GetName() + " (" + v.GetSource() + ")",
			Description: fmt.Sprintf("The %s vocabulary of the %s: %d terms, each with its meaning and its mapping row.", v.GetName(), v.GetSource(), len(v.GetTerms())),
			MIMEType:    "application/json",
			Size:        int64(len(body)),
		}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(body)}}}, nil
		})
	}
	return s
}

// NewMCPHandler returns the streamable HTTP transport of NewMCPServer.
// It is stateless (no Mcp-Session-Id: any replica answers any request) and
// answers in JSON; a body over MaxRequestBytes plus a JSON-RPC envelope's
// allowance is refused before it is read in full.
func NewMCPHandler(opts Options) http.Handler {
	opts = opts.withDefaults()
	s := NewMCPServer(opts)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		Logger:              opts.Logger,
		MaxRequestBodyBytes: opts.MaxRequestBytes + mcpEnvelopeBytes,
	})
}

// mcpService holds what the tools share.
type mcpService struct {
	svc      *Service
	maxBytes int64
	// limiter is the server's: a translation takes a unary-call slot, as
	// a REST or gRPC Translate does (MaxConcurrentRequests).
	limiter *limiter
}

// translateTool is the translate tool.
func (m *mcpService) translateTool(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
	defer m.recoverTool(ctx, &res, &err)
	_, resp, lease, st := m.translate(ctx, req.Params.Arguments, "")
	defer lease.Release()
	if st != nil {
		return mcpRefusal(st), nil
	}
	out, err := errjson.Marshal(restAnswer, resp)
	if err != nil {
		return mcpRefusal(status.New(codes.Internal, "encode the answer")), nil
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: summary(resp)}},
		StructuredContent: json.RawMessage(out),
	}, nil
}

// translate reads args (at prefix, "" for the arguments themselves) as a
// TranslateRequest and answers it; the lease is the answer's storage.
func (m *mcpService) translate(ctx context.Context, args json.RawMessage, prefix string) (*errsvcv1.TranslateRequest, *errsvcv1.TranslateResponse, translate.Lease, *status.Status) {
	return m.translateFor(ctx, args, prefix, nil)
}

// translateFor is translate answering targets rather than the request's
// own when targets is not empty.
func (m *mcpService) translateFor(ctx context.Context, args json.RawMessage, prefix string, targets []string) (*errsvcv1.TranslateRequest, *errsvcv1.TranslateResponse, translate.Lease, *status.Status) {
	req, st := m.decodeRequest(args, prefix)
	if st != nil {
		return nil, nil, translate.Lease{}, st
	}
	if len(targets) > 0 {
		req.Targets = targets
	}
	if !m.limiter.acquireRequest() {
		return nil, nil, translate.Lease{}, m.limiter.requestsExhausted()
	}
	defer m.limiter.releaseRequest()
	resp, _, lease, st := m.svc.translateOne(ctx, req)
	if st != nil {
		return nil, nil, translate.Lease{}, prefixed(st, prefix)
	}
	return req, resp, lease, nil
}

// decodeRequest reads a TranslateRequest as REST reads a body.
func (m *mcpService) decodeRequest(data json.RawMessage, prefix string) (*errsvcv1.TranslateRequest, *status.Status) {
	if int64(len(data)) > m.maxBytes {
		return nil, tooLarge(m.maxBytes)
	}
	if len(data) == 0 || string(data) == "null" {
		data = []byte("{}")
	}
	if field, desc, _, ok := checkJSONFault(data); !ok {
		return nil, invalidArgument(joinPath(prefix, field), desc)
	}
	req := &errsvcv1.TranslateRequest{}
	if err := errjson.Unmarshal(data, req); err != nil {
		var fe *codec.FieldError
		if errors.As(err, &fe) {
			return nil, invalidArgument(joinPath(prefix, safePath(fe.Field)), fe.Description)
		}
		return nil, prefixed(decodeErrorStatus(err.Error()), prefix)
	}
	return req, nil
}

// recoverTool turns a panic into an INTERNAL refusal: a tool never takes
// the session (stdio: the process) down with it.
func (m *mcpService) recoverTool(ctx context.Context, res **mcp.CallToolResult, err *error) {
	if p := recover(); p != nil {
		// Only the type: a panic's value may quote the request.
		m.svc.logger.ErrorContext(ctx, "MCP tool panicked", "panic_type", fmt.Sprintf("%T", p))
		*res, *err = mcpRefusalText(status.New(codes.Internal, "translation failed")), nil
	}
}

// mcpRefusal is translate's result with isError: the status's text
// (naming the field of each BadRequest violation) and, as structured
// content, a TranslateResponse carrying the status in error, as a batch
// item's own failure does: valid against the tool's output schema, which
// clients check even on an error (the inspector's does).
func mcpRefusal(st *status.Status) *mcp.CallToolResult {
	res := mcpRefusalText(st)
	if out, err := errjson.Marshal(restAnswer, &errsvcv1.TranslateResponse{Error: st.Proto()}); err == nil {
		res.StructuredContent = json.RawMessage(out)
	}
	return res
}

// mcpRefusalText is a result with isError and the refusal's text alone,
// for the tools whose output schema has no room for an error.
func mcpRefusalText(st *status.Status) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: refusalText(st)}}}
}

// refusalError is a refusal as the error of a typed tool handler, which the
// SDK turns into a result with isError and this text.
type refusalError struct{ st *status.Status }

func (e refusalError) Error() string { return refusalText(e.st) }

// refusalText is the code, the message and the field of each BadRequest
// violation: "INVALID_ARGUMENT: …: … (field labby_error.kind)".
func refusalText(st *status.Status) string {
	text := rpccode.Code(st.Code()).String() + ": " + st.Message()
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			var fields []string
			for _, v := range br.GetFieldViolations() {
				fields = append(fields, v.GetField())
			}
			text += " (field " + strings.Join(fields, ", ") + ")"
		}
	}
	return text
}

// prefixed is st with its BadRequest fields under prefix (decide reads its
// TranslateRequest at "request").
func prefixed(st *status.Status, prefix string) *status.Status {
	if prefix == "" || st == nil {
		return st
	}
	p := proto.CloneOf(st.Proto())
	for _, d := range p.GetDetails() {
		br := &errdetails.BadRequest{}
		if d.MessageIs(br) && d.UnmarshalTo(br) == nil {
			for _, v := range br.GetFieldViolations() {
				v.Field = joinPath(prefix, v.GetField())
			}
			if err := d.MarshalFrom(br); err != nil {
				return st
			}
		}
	}
	return status.FromProto(p)
}

func joinPath(prefix, field string) string {
	switch {
	case prefix == "":
		return field
	case field == "" || field == "body":
		return prefix
	}
	return prefix + "." + field
}

// summary is the short text of a translation: what a person reads first.
func summary(resp *errsvcv1.TranslateResponse) string {
	var parts []string
	if c := resp.GetClassification().GetClass(); c != "" {
		parts = append(parts, "class "+c)
	}
	if r := resp.GetHandling().GetRoute(); r != "" {
		parts = append(parts, "route "+r)
	}
	if le := resp.GetLabbyError(); le != nil {
		s := "Labby kind " + le.GetKind()
		if a := le.GetRecovery().GetAction(); a != "" {
			s += ", recovery " + a
		}
		parts = append(parts, s)
	}
	if ae := resp.GetAgentError(); ae != nil {
		parts = append(parts, "Agent Surface "+ae.GetCode()+" (retry "+ae.GetRetry()+")")
	}
	if resp.HttpStatus != nil {
		parts = append(parts, fmt.Sprintf("HTTP %d", resp.GetHttpStatus()))
	}
	if n := len(resp.GetNotes()); n > 0 {
		parts = append(parts, fmt.Sprintf("%d notes", n))
	}
	if len(parts) == 0 {
		return "translated; nothing to report in the targets asked for"
	}
	return "translated: " + strings.Join(parts, "; ")
}

// mcpSchemaSet holds the tools' schemas, built once.
type mcpSchemaSet struct {
	translateIn, translateOut, decideIn, decideOut, explainOut map[string]any
}

// mcpSchemas are the tool schemas: the TranslateRequest and
// TranslateResponse of the contract, as the generated OpenAPI document
// (gen/openapi, from the proto descriptors) describes them for REST, each
// with the component schemas it refers to as $defs; decide's output from
// its Go type.
var mcpSchemas = sync.OnceValue(func() mcpSchemaSet {
	var set mcpSchemaSet
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapi.JSON, &doc); err != nil {
		panic(fmt.Sprintf("gen/openapi: %v", err)) // generated and tested: never at run time
	}
	schemas := doc.Components.Schemas
	set.translateIn = contractSchema(schemas, "v1TranslateRequest")
	set.translateOut = contractSchema(schemas, "v1TranslateResponse")

	reqSchema := contractSchema(schemas, "v1TranslateRequest")
	defs := reqSchema["$defs"]
	delete(reqSchema, "$defs")
	set.decideIn = map[string]any{
		"type": "object",
		"properties": map[string]any{
			"request": reqSchema,
			"max_wait_secs": map[string]any{
				"type": "number", "minimum": 0,
				"description": "The longest wait worth sleeping, in seconds (default 120): a longer stated wait fails fast.",
			},
		},
		"required": []any{"request"},
		"$defs":    defs,
	}
	out, err := jsonschema.For[MCPDecision](nil)
	if err != nil {
		panic(fmt.Sprintf("MCPDecision schema: %v", err))
	}
	set.decideOut = singleTypes(remarshalMap(out)).(map[string]any)
	explain, err := jsonschema.For[MCPExplanation](nil)
	if err != nil {
		panic(fmt.Sprintf("MCPExplanation schema: %v", err))
	}
	set.explainOut = singleTypes(remarshalMap(explain)).(map[string]any)
	return set
})

// contractSchema is the named component schema with, as $defs, every
// component it refers to (directly or not), its references rewritten.
func contractSchema(schemas map[string]json.RawMessage, name string) map[string]any {
	const from, to = "#/components/schemas/", "#/$defs/"
	defs := map[string]any{}
	todo := []string{name}
	for len(todo) > 0 {
		n := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if _, seen := defs[n]; seen {
			continue
		}
		raw := strings.ReplaceAll(string(schemas[n]), `"`+from, `"`+to)
		var s any
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			panic(fmt.Sprintf("gen/openapi schema %s: %v", n, err))
		}
		defs[n] = singleTypes(s)
		for _, part := range strings.Split(raw, `"`+to)[1:] {
			if i := strings.IndexByte(part, '"'); i > 0 {
				todo = append(todo, part[:i])
			}
		}
	}
	root, _ := defs[name].(map[string]any)
	delete(defs, name)
	out := make(map[string]any, len(root)+1)
	for k, v := range root {
		out[k] = v
	}
	out["type"] = "object"
	if len(defs) > 0 {
		out["$defs"] = defs
	}
	return out
}

// singleTypes rewrites each `"type": [A, B]` of a schema as
// `"anyOf": [{"type": A}, {"type": B}]`: the same schema, in the spelling
// clients that map tool schemas onto a single-type dialect (function
// declarations of some model providers) accept; the inspector's --strict
// check warns about the other.
func singleTypes(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			x[k] = singleTypes(sub)
		}
		types, ok := x["type"].([]any)
		if !ok {
			return x
		}
		branches := make([]any, len(types))
		for i, t := range types {
			branches[i] = map[string]any{"type": t}
		}
		delete(x, "type")
		if prior, ok := x["anyOf"]; ok {
			delete(x, "anyOf")
			x["allOf"] = append(asList(x["allOf"]), map[string]any{"anyOf": prior}, map[string]any{"anyOf": branches})
		} else {
			x["anyOf"] = branches
		}
		return x
	case []any:
		for i, sub := range x {
			x[i] = singleTypes(sub)
		}
	}
	return v
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func remarshalMap(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	return m
}

// MCPDecision is the decide tool's answer: what to do now, and why. The
// booleans are the decision helpers' own answers (clients/go Decide, the
// same in every SDK); action and reason are read from them, the answer's
// handling route and its recovery.
type MCPDecision struct {
	Action         string   `json:"action" jsonschema:"what to do now: retry, reduce_concurrency, fail_over, reauthenticate, compact_context, revise_and_retry or give_up"`
	RetryAfterSecs *float64 `json:"retry_after_secs,omitempty" jsonschema:"for retry and reduce_concurrency: the wait before the next call, in seconds; 0 when none is stated (use your own backoff)"`
	Reason         string   `json:"reason" jsonschema:"why, naming the fields of the translation that decided"`
	Guidance       string   `json:"guidance,omitempty" jsonschema:"the recovery action's guidance from the Labby agent error contract"`
	// The decision helpers' answers.
	Retryable         bool `json:"retryable" jsonschema:"the same call may succeed if made again (IsRetryable)"`
	Reauthenticate    bool `json:"reauthenticate" jsonschema:"a credential must be re-established first (ShouldReauthenticate)"`
	SameArgumentsSafe bool `json:"same_arguments_safe" jsonschema:"repeating the exact call is safe (SameArgumentsSafe, with request.context.idempotent)"`
	// The fields of the translation they read.
	Class          string `json:"class,omitempty" jsonschema:"classification.class (Error Class Contract)"`
	Route          string `json:"route,omitempty" jsonschema:"handling.route: the class's consumer decision"`
	RecoveryAction string `json:"recovery_action,omitempty" jsonschema:"the recovery action: the Labby envelope's, else the Code Mode call error's, else the one the Agent Surface retry hint means"`
	LabbyKind      string `json:"labby_kind,omitempty" jsonschema:"labby_error.kind"`
	AgentCode      string `json:"agent_code,omitempty" jsonschema:"agent_error.code (Agent Surface AgentCapabilityError)"`
}

// The decide tool's actions.
const (
	decideRetry             = "retry"
	decideReduceConcurrency = "reduce_concurrency"
	decideFailOver          = "fail_over"
	decideReauthenticate    = "reauthenticate"
	decideCompactContext    = "compact_context"
	decideRevise            = "revise_and_retry"
	decideGiveUp            = "give_up"
)

// mcpDecideIn is the decide tool's arguments; request is read as a
// TranslateRequest by decodeRequest.
type mcpDecideIn struct {
	Request     json.RawMessage `json:"request"`
	MaxWaitSecs *float64        `json:"max_wait_secs"`
}

// decideTool is the decide tool.
func (m *mcpService) decideTool(ctx context.Context, call *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
	defer m.recoverTool(ctx, &res, &err)
	args := call.Params.Arguments
	if int64(len(args)) > m.maxBytes+mcpEnvelopeBytes {
		return mcpRefusalText(tooLarge(m.maxBytes)), nil
	}
	if field, desc, _, ok := checkJSONFault(args); len(args) > 0 && !ok {
		return mcpRefusalText(invalidArgument(field, desc)), nil
	}
	var in mcpDecideIn
	if len(args) > 0 {
		if err := json.Unmarshal(args, &in); err != nil {
			field := "arguments"
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				field = te.Field
			}
			return mcpRefusalText(invalidArgument(field, "not the type the input schema gives")), nil
		}
	}
	if len(in.Request) == 0 || string(in.Request) == "null" {
		return mcpRefusalText(invalidArgument("request", "the error to decide about, as a TranslateRequest, is required")), nil
	}
	maxWait := errsvcclient.DefaultMaxWait
	if in.MaxWaitSecs != nil {
		if *in.MaxWaitSecs < 0 || *in.MaxWaitSecs > maxWaitSecs {
			return mcpRefusalText(invalidArgument("max_wait_secs", fmt.Sprintf("a number of seconds from 0 to %d", maxWaitSecs))), nil
		}
		maxWait = time.Duration(*in.MaxWaitSecs * float64(time.Second))
	}
	req, resp, lease, st := m.translateFor(ctx, in.Request, "request", decideTargets)
	defer lease.Release()
	if st != nil {
		return mcpRefusalText(st), nil
	}
	d := mcpDecide(resp, maxWait, req.GetContext().GetIdempotent())
	out, err := json.Marshal(d)
	if err != nil {
		return mcpRefusalText(status.New(codes.Internal, "encode the answer")), nil
	}
	text := d.Action
	if d.RetryAfterSecs != nil {
		text += fmt.Sprintf(" after %g s", *d.RetryAfterSecs)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text + ": " + d.Reason}},
		StructuredContent: json.RawMessage(out),
	}, nil
}

// decideTargets are the targets the decision reads, whatever the request
// names: the helpers' (the Labby and Code Mode envelopes, the Agent Surface
// payload, the class, the grpc_status RetryInfo) and the handling route.
var decideTargets = []string{"labby_error", "code_mode_error", "agent_error", "classification", "grpc_status", "handling"}

// maxWaitSecs bounds max_wait_secs so it fits a time.Duration (a year).
const maxWaitSecs = 365 * 24 * 3600

// mcpDecide reads what to do now from a translation: the decision helpers
// (clients/go: IsRetryable, RetryAfter with the cap, ShouldReauthenticate,
// SameArgumentsSafe) first, then the class's handling route and the
// recovery action. In order: a credential to re-establish; an input too
// large for the context; a retry (with fewer calls in flight when the
// refusal was a full queue), unless the stated wait is past the cap (fail
// fast: an alternative); a change to the call the recovery asks for; an
// alternative where the route says so; else give up.
func mcpDecide(resp *errsvcv1.TranslateResponse, maxWait time.Duration, idempotent bool) MCPDecision {
	h := errsvcclient.Decide(resp, maxWait, idempotent)
	d := MCPDecision{
		Retryable: h.Retryable, Reauthenticate: h.Reauthenticate, SameArgumentsSafe: h.SameArgumentsSafe,
		Class: resp.GetClassification().GetClass(), Route: resp.GetHandling().GetRoute(),
		LabbyKind: resp.GetLabbyError().GetKind(), AgentCode: resp.GetAgentError().GetCode(),
	}
	d.RecoveryAction = recoveryActionOf(resp)
	if t, ok := translate.RecoveryActions.Lookup(d.RecoveryAction); ok {
		if row, ok := t.Row.(*errsvcv1.ActionRow); ok {
			d.Guidance = row.GetGuidance()
		}
	}
	why := decidedBy(d)
	switch {
	case h.Reauthenticate:
		d.Action = decideReauthenticate
		d.Reason = "a credential must be re-established before the call can succeed (" + why + ")"
		if resp.GetHandling().GetSameProviderAlternativesDead() {
			d.Reason += "; the same provider's alternatives fail too"
		}
	case d.Route == routeReduceOrLarger:
		d.Action = decideCompactContext
		d.Reason = "the input does not fit the model's context (" + why + "): reduce or compact it, or choose a larger-context alternative; the same input again is futile"
	case h.Retryable && !h.RetryAfterOK:
		wait, _ := errsvcclient.RetryAfter(resp, -1)
		d.Action = decideFailOver
		d.Reason = fmt.Sprintf("retryable (%s), but the stated wait of %s is longer than max_wait %s: fail fast to an alternative (another model, region or provider), else give up", why, wait, maxWait)
	case h.Retryable:
		secs := h.RetryAfter.Seconds()
		d.RetryAfterSecs = &secs
		d.Action = decideRetry
		if queueFull(resp) {
			d.Action = decideReduceConcurrency
			d.Reason = "the queue is full (" + why + "): fewer calls in flight, then retry"
		} else {
			d.Reason = "transient (" + why + ")"
		}
		if secs > 0 {
			d.Reason += fmt.Sprintf("; wait %s as the answer states", h.RetryAfter)
		} else {
			d.Reason += "; no wait stated: use your own backoff"
		}
		if !h.SameArgumentsSafe {
			d.Reason += "; repeat the exact call only if it is idempotent"
		}
	case reviseActions[d.RecoveryAction]:
		d.Action = decideRevise
		d.Reason = "the call must change before it can succeed (" + why + ")"
		if d.Guidance != "" {
			d.Reason += ": " + d.Guidance
		}
	case d.Route == routeFailOver:
		d.Action = decideFailOver
		d.Reason = "this target fails the same way for this input (" + why + "): advance to an alternative at once; surface the error when every alternative has failed"
	default:
		d.Action = decideGiveUp
		d.Reason = "no retry helps (" + why + ")"
		if d.Guidance != "" {
			d.Reason += ": " + d.Guidance
		}
	}
	return d
}

// Wire strings the decision reads, from the contract's options.
var (
	routeFailOver       = translate.Wire(errsvcv1.HandlingRoute_HANDLING_ROUTE_FAIL_OVER)
	routeReduceOrLarger = translate.Wire(errsvcv1.HandlingRoute_HANDLING_ROUTE_REDUCE_OR_LARGER_CONTEXT)
	kindQueueSaturated  = translate.Wire(errsvcv1.LabbyKind_LABBY_KIND_QUEUE_SATURATED)
	// The recovery actions that ask for a changed call, then a retry.
	reviseActions = map[string]bool{
		translate.Wire(errsvcv1.RecoveryAction_RECOVERY_ACTION_REVISE_AND_RETRY): true,
		translate.Wire(errsvcv1.RecoveryAction_RECOVERY_ACTION_REDUCE_WORK):      true,
		translate.Wire(errsvcv1.RecoveryAction_RECOVERY_ACTION_CONFIRM):          true,
		translate.Wire(errsvcv1.RecoveryAction_RECOVERY_ACTION_REDISCOVER):       true,
		translate.Wire(errsvcv1.RecoveryAction_RECOVERY_ACTION_START_DEPENDENCY): true,
	}
)

// queueFull reports a refusal for a full queue: the Labby kind
// queue_saturated, or the Agent Surface reason queue-full.
func queueFull(resp *errsvcv1.TranslateResponse) bool {
	if resp.GetLabbyError().GetKind() == kindQueueSaturated {
		return true
	}
	return resp.GetAgentError().GetDetails().GetFields()["reason"].GetStringValue() == "queue-full"
}

// recoveryActionOf is the recovery action the helpers read: the Labby
// envelope's, else the Code Mode call error's, else the one the Agent
// Surface retry hint means (its matrix row).
func recoveryActionOf(resp *errsvcv1.TranslateResponse) string {
	for _, le := range []*errsvcv1.LabbyError{resp.GetLabbyError(), resp.GetCodeModeError()} {
		if a := le.GetRecovery().GetAction(); translate.RecoveryActions.Has(a) {
			return a
		}
	}
	if t, ok := translate.AgentRetries.Lookup(resp.GetAgentError().GetRetry()); ok {
		if row, ok := t.Row.(*errsvcv1.RetryRow); ok {
			return row.GetAction()
		}
	}
	return ""
}

// decidedBy names the fields a decision read.
func decidedBy(d MCPDecision) string {
	var parts []string
	if d.Class != "" {
		parts = append(parts, "class "+d.Class)
	}
	if d.Route != "" {
		parts = append(parts, "route "+d.Route)
	}
	if d.RecoveryAction != "" {
		parts = append(parts, "recovery "+d.RecoveryAction)
	}
	if d.LabbyKind != "" {
		parts = append(parts, "Labby kind "+d.LabbyKind)
	}
	if d.AgentCode != "" {
		parts = append(parts, "Agent Surface "+d.AgentCode)
	}
	if len(parts) == 0 {
		return "the translation states no class and no recovery"
	}
	return strings.Join(parts, ", ")
}

// mcpExplainIn is the explain tool's arguments.
type mcpExplainIn struct {
	Term       string `json:"term" jsonschema:"the term as spelled on the wire (rate_limited, RATE_LIMITED, transient, retry_later, UNAVAILABLE, -32602, …) or its proto enum value name"`
	Vocabulary string `json:"vocabulary,omitempty" jsonschema:"the vocabulary to look in (LabbyKind, AgentErrorCode, ErrorClass, RecoveryAction, GrpcCode, JsonRpcCode, …); empty: every vocabulary"`
}

// MCPExplanation is the explain tool's answer: every vocabulary's reading
// of the term.
type MCPExplanation struct {
	Terms []MCPTerm `json:"terms" jsonschema:"the term in each vocabulary that holds it"`
}

// MCPTerm is one term explained, from the vocabulary data ListVocabularies
// serves.
type MCPTerm struct {
	Vocabulary string `json:"vocabulary" jsonschema:"the vocabulary (the proto enum's name)"`
	Source     string `json:"source" jsonschema:"the contract that defines it"`
	Term       string `json:"term" jsonschema:"the exact wire spelling"`
	EnumValue  string `json:"enum_value" jsonschema:"the proto enum value name"`
	Meaning    string `json:"meaning"`
	Class      string `json:"class,omitempty" jsonschema:"its class in the Error Class Contract, when its row or its Labby kind gives one"`
	Action     string `json:"recovery_action,omitempty" jsonschema:"its recovery action in the Labby agent error contract, when its row or its Labby kind gives one"`
	WhatToDo   string `json:"what_to_do,omitempty" jsonschema:"what a consumer does: the recovery action's guidance and the class's handling route"`
	// The mapping row, as GET /v1/vocabularies serves it.
	Row map[string]any `json:"row,omitempty" jsonschema:"the term's mapping row (the matrix the translator reads), when its vocabulary has rows"`
}

// explainTool is the explain tool.
func (m *mcpService) explainTool(ctx context.Context, _ *mcp.CallToolRequest, in mcpExplainIn) (res *mcp.CallToolResult, out MCPExplanation, err error) {
	defer func() {
		if p := recover(); p != nil {
			m.svc.logger.ErrorContext(ctx, "MCP tool panicked", "panic_type", fmt.Sprintf("%T", p))
			res, out, err = nil, MCPExplanation{}, refusalError{status.New(codes.Internal, "explain failed")}
		}
	}()
	if int64(len(in.Term)+len(in.Vocabulary)) > m.maxBytes {
		return nil, MCPExplanation{}, refusalError{tooLarge(m.maxBytes)}
	}
	vocabs := translate.Vocabularies().GetVocabularies()
	if in.Vocabulary != "" {
		var names []string
		var found []*errsvcv1.Vocabulary
		for _, v := range vocabs {
			names = append(names, v.GetName())
			if strings.EqualFold(v.GetName(), in.Vocabulary) {
				found = append(found, v)
			}
		}
		if len(found) == 0 {
			desc := "no such vocabulary; one of " + strings.Join(names, ", ")
			if near := translate.NearestName(in.Vocabulary, names); near != "" {
				desc = "no such vocabulary (did you mean " + near + "?); one of " + strings.Join(names, ", ")
			}
			return nil, MCPExplanation{}, refusalError{invalidArgument("vocabulary", desc)}
		}
		vocabs = found
	}
	term := strings.TrimSpace(in.Term)
	if term == "" {
		return nil, MCPExplanation{}, refusalError{invalidArgument("term", "the term to explain is required")}
	}
	out.Terms = []MCPTerm{}
	// The wire spelling in any case (UNAVAILABLE is a gRPC code and
	// unavailable a Labby kind: both answer), or the enum value name; an
	// exact spelling first.
	var folded []MCPTerm
	for _, v := range vocabs {
		for _, t := range v.GetTerms() {
			switch {
			case t.GetTerm() == term:
				out.Terms = append(out.Terms, explainTerm(v, t))
			case strings.EqualFold(t.GetTerm(), term) || strings.EqualFold(t.GetEnumValue(), term):
				folded = append(folded, explainTerm(v, t))
			}
		}
	}
	out.Terms = append(out.Terms, folded...)
	if len(out.Terms) == 0 {
		var all []string
		for _, v := range vocabs {
			for _, t := range v.GetTerms() {
				all = append(all, t.GetTerm())
			}
		}
		desc := "no vocabulary holds this term"
		if near := translate.NearestName(term, all); near != "" {
			desc += " (did you mean " + near + "?)"
		}
		return nil, MCPExplanation{}, refusalError{invalidArgument("term", desc)}
	}
	var lines []string
	for _, t := range out.Terms {
		line := t.Vocabulary + " " + t.Term + ": " + t.Meaning
		if t.WhatToDo != "" {
			line += " What to do: " + t.WhatToDo
		}
		lines = append(lines, line)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(lines, "\n")}}}, out, nil
}

// explainTerm reads a term's class, recovery action and what to do from
// its row: its own fields, else its Labby kind's row; the class's row
// gives the handling route.
func explainTerm(v *errsvcv1.Vocabulary, t *errsvcv1.Term) MCPTerm {
	e := MCPTerm{Vocabulary: v.GetName(), Source: v.GetSource(), Term: t.GetTerm(), EnumValue: t.GetEnumValue(), Meaning: t.GetMeaning()}
	var row proto.Message
	if f := t.ProtoReflect().WhichOneof(t.ProtoReflect().Descriptor().Oneofs().ByName("row")); f != nil {
		row = t.ProtoReflect().Get(f).Message().Interface()
		if b, err := errjson.Marshal(restAnswer, row); err == nil {
			_ = json.Unmarshal(b, &e.Row)
		}
	}
	field := func(m proto.Message, name string) string {
		if m == nil {
			return ""
		}
		fd := m.ProtoReflect().Descriptor().Fields().ByName(protoName(name))
		if fd == nil || fd.Kind().String() != "string" || fd.IsList() || fd.IsMap() {
			return ""
		}
		return m.ProtoReflect().Get(fd).String()
	}
	e.Class, e.Action = field(row, "class"), field(row, "action")
	var kind proto.Message
	if k, ok := translate.LabbyKinds.Lookup(field(row, "labby_kind")); ok {
		kind = k.Row
	}
	switch v.GetName() {
	case "ErrorClass":
		e.Class = e.Term
	case "RecoveryAction":
		e.Action = e.Term
	case "LabbyKind":
		kind = row
	}
	if e.Class == "" {
		e.Class = field(kind, "class")
	}
	if e.Action == "" {
		e.Action = field(kind, "action")
	}
	var todo []string
	switch v.GetName() {
	case "HandlingRoute":
		todo = append(todo, e.Meaning)
	case "AgentRetry":
		if a := field(row, "advice"); a != "" {
			todo = append(todo, a)
		}
	}
	if a, ok := translate.RecoveryActions.Lookup(e.Action); ok {
		todo = append(todo, field(a.Row, "guidance"))
	}
	if c, ok := translate.Classes.Lookup(e.Class); ok {
		if r, ok := translate.HandlingRoutes.Lookup(field(c.Row, "route")); ok {
			todo = append(todo, "As class "+e.Class+" ("+r.Wire+"): "+r.Meaning)
		}
	}
	e.WhatToDo = strings.Join(todo, " ")
	return e
}

func protoName(s string) protoreflect.Name { return protoreflect.Name(s) }

// ServeMCP serves NewMCPServer(opts) over newline-delimited JSON-RPC on r
// and w (`errsvc mcp`: stdin and stdout) until ctx ends or r does. A line
// longer than MaxRequestBytes plus a JSON-RPC envelope's allowance ends the
// session (stdio has no way to refuse one message and read on).
func ServeMCP(ctx context.Context, opts Options, r io.ReadCloser, w io.WriteCloser) error {
	opts = opts.withDefaults()
	t := &mcp.IOTransport{Reader: r, Writer: w, MaxLineLength: int(min(opts.MaxRequestBytes+mcpEnvelopeBytes, math.MaxInt32))}
	err := NewMCPServer(opts).Run(ctx, t)
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		// The client closed its end, or the process was told to stop.
		return nil
	}
	return err
}
