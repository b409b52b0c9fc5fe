package translate

import (
	"math/bits"
	"slices"
	"sync"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Target names: the TranslateResponse fields a request may ask for.
const (
	TargetLabbyError     = "labby_error"
	TargetCodeModeError  = "code_mode_error"
	TargetAgentError     = "agent_error"
	TargetClassification = "classification"
	TargetHTTPStatus     = "http_status"
	TargetGRPCStatus     = "grpc_status"
	// The targets below are answered only when a request names them.
	TargetHandling       = "handling"
	TargetHTTPHeaders    = "http_headers"
	TargetGRPCMetadata   = "grpc_metadata"
	TargetOpenAIError    = "openai_error"
	TargetAnthropicError = "anthropic_error"
	TargetGoogleError    = "google_error"
	TargetJSONRPCError   = "jsonrpc_error"
	// The limit facet: in the default targets, absent when the error is
	// not a limit.
	TargetLimit = "limit"
)

// target encodes the model into one response field.
type target struct {
	name string
	// when says whether an empty target list includes it.
	when   targetWhen
	encode func(m *model, resp *errsvcv1.TranslateResponse)
}

// targetWhen is when an empty target list includes a target.
type targetWhen uint8

const (
	always targetWhen = iota
	// onRequest marks a target an empty target list leaves out: it is
	// answered only when named, so every answer of the earlier targets
	// stays the same size and shape for the clients that never asked for it.
	onRequest
	// forToolResult is a target an empty list includes for an MCP tool
	// result only (isToolResult).
	forToolResult
)

var targets = []target{
	{TargetLabbyError, always, encodeLabby},
	{TargetCodeModeError, forToolResult, encodeCodeMode},
	{TargetAgentError, always, encodeAgent},
	{TargetClassification, always, encodeClassification},
	{TargetHTTPStatus, always, encodeHTTPStatus},
	{TargetGRPCStatus, always, encodeGRPCStatus},
	{TargetHandling, onRequest, encodeHandling},
	{TargetHTTPHeaders, onRequest, encodeHTTPHeaders},
	{TargetGRPCMetadata, onRequest, encodeGRPCMetadata},
	{TargetOpenAIError, onRequest, encodeOpenAIError},
	{TargetAnthropicError, onRequest, encodeAnthropicError},
	{TargetGoogleError, onRequest, encodeGoogleError},
	{TargetJSONRPCError, onRequest, encodeJSONRPCError},
	{TargetLimit, always, encodeLimit},
}

// defaultTargets and toolResultTargets are the bits of targets an empty
// target list selects (for a tool result, and for any other source),
// worked out once from the table: a translation reads two words, not the
// table.
var defaultTargets, toolResultTargets = func() (plain, tool uint) {
	for i, t := range targets {
		switch t.when {
		case always:
			plain |= 1 << i
			tool |= 1 << i
		case forToolResult:
			tool |= 1 << i
		}
	}
	return plain, tool
}()

// Translate turns the request's one source into every requested target.
// The response may share immutable parts with other responses (derived
// details) and with the request (google.protobuf.Struct and Value nodes the
// sanitiser left unchanged): proto.Clone it before mutating it, and do not
// mutate the request while the response is in use.
// A malformed request (no source, a missing required field, a value out of
// range) returns a *RequestError naming the field; an unknown term never
// does: it passes through with a note.
func Translate(req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error) {
	resp, _, err := TranslateCacheable(req)
	return resp, err
}

// TranslateCacheable is Translate plus whether the answer is a function of
// the request alone, so a cache may keep it for the same request bytes. It
// is not when a wait was counted from the clock: a provider answer's
// HTTP-date Retry-After or reset time with neither a Date header nor
// received_at gives another wait a second later.
func TranslateCacheable(req *errsvcv1.TranslateRequest) (resp *errsvcv1.TranslateResponse, cacheable bool, err error) {
	return (*Policy)(nil).TranslateCacheable(req)
}

// Translate is the package's Translate under the policy p (nil: the
// built-in matrix alone).
func (p *Policy) Translate(req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error) {
	resp, _, err := p.TranslateCacheable(req)
	return resp, err
}

// TranslateCacheable is the package's TranslateCacheable under the policy p.
func (p *Policy) TranslateCacheable(req *errsvcv1.TranslateRequest) (resp *errsvcv1.TranslateResponse, cacheable bool, err error) {
	m := newModel()
	m.policy = p
	resp, cacheable, err = translateInto(m, req)
	return resp, cacheable, err
}

// TranslateLeased is TranslateCacheable for a caller that is done with the
// answer soon, as a server is once it has encoded it: the answer lives in
// storage the translator reuses, which lease.Release hands back. A fresh
// response's storage is a 3 KiB block the processor has not touched for a
// while; reused, it is still in its cache, which is most of what a
// translation costs (BenchmarkTranslate and BenchmarkTranslateOwned show
// the two). On an error there is nothing to release (the zero Lease).
//
// What it earns a caller (issue 42's rule): with the server translating
// by TranslateCacheable instead, gRPC Translate cold (a) ran 0.9% slower
// at 16 callers and 6.6% at 64, REST (c) 0.9% faster at 16 and 11.1%
// slower at 64 (bench/ab.sh, 3 interleaved rounds, 2026-12-05; at 16 the
// rounds' ranges overlap).
func TranslateLeased(req *errsvcv1.TranslateRequest) (resp *errsvcv1.TranslateResponse, cacheable bool, lease Lease, err error) {
	return (*Policy)(nil).TranslateLeased(req)
}

// TranslateLeased is the package's TranslateLeased under the policy p.
func (p *Policy) TranslateLeased(req *errsvcv1.TranslateRequest) (resp *errsvcv1.TranslateResponse, cacheable bool, lease Lease, err error) {
	m := leaseModel()
	m.policy = p
	resp, cacheable, err = translateInto(m, req)
	if err != nil {
		m.release(m.gen)
		return nil, false, Lease{}, err
	}
	return resp, cacheable, Lease{m: m, gen: m.gen}, nil
}

// A Lease is a translation's storage lent by TranslateLeased, to be given
// back once with Release. The zero Lease holds nothing.
type Lease struct {
	m   *model
	gen uint64
}

// Release hands the storage back: neither the answer nor anything reached
// from it may be read afterwards (its memory is cleared and answers the
// next translation). A second Release of the same Lease does nothing.
func (l Lease) Release() {
	if l.m != nil {
		l.m.release(l.gen)
	}
}

// models are the storage TranslateLeased reuses.
var models = sync.Pool{New: func() any { return new(model) }}

// leaseModel is newModel from the pool, marked with a new generation so
// that a stale Lease cannot release a later translation's storage.
func leaseModel() *model {
	m := models.Get().(*model)
	m.gen++
	m.leased = true
	if m.reuse == nil {
		m.reuse = new(reused)
	}
	m.notes = m.store.notes[:0]
	return m
}

// release clears m (dropping every reference to the request and the
// answer) and puts it back in the pool, if gen is still its lease.
func (m *model) release(gen uint64) {
	if !m.leased || m.gen != gen {
		return
	}
	reuse := m.reuse
	reuse.clear()
	*m = model{gen: gen, reuse: reuse}
	models.Put(m)
}

// translateInto translates req with m as the answer's storage.
func translateInto(m *model, req *errsvcv1.TranslateRequest) (resp *errsvcv1.TranslateResponse, cacheable bool, err error) {
	if m.policy != nil && len(m.policy.redact) > 0 {
		var redacted bool
		if req, redacted = m.policy.redactRequest(req); redacted {
			m.note(errsvcv1.NoteCode_NOTE_CODE_SANITIZED, "a value matching one of the operator policy's secret formats was redacted")
		}
	}
	if err := decode(m, req); err != nil {
		if err == errLimitsOnly { // a 2xx reporting its rate limits (limit_2xx.go)
			return limitsOnly(m), !m.clock, nil
		}
		return nil, false, err
	}
	resp = &m.store.resp
	// Only the wanted entries are read, in the table's order.
	for wanted := selectTargets(req, m); wanted != 0; wanted &= wanted - 1 {
		targets[bits.TrailingZeros(wanted)].encode(m, resp)
	}
	// The walk runs only after a cut (m.capped). What that earns a caller
	// (issue 42's rule): with the walk on every answer, gRPC Translate cold
	// (a) ran 22% and 17% slower at 16 and 64 callers, REST (c) 7% and 19%
	// (bench/ab.sh, 3 interleaved rounds, 2026-12-05).
	if m.capped {
		noteTruncations(m, resp)
	}
	resp.Notes = m.notes
	return resp, !m.clock, nil
}

func isToolResult(req *errsvcv1.TranslateRequest) bool {
	return req.GetMcpToolResult() != nil
}

// selectTargets resolves the request's target list into a bit per entry
// of targets; unknown names are noted and ignored, so a client built
// against a newer contract still works.
func selectTargets(req *errsvcv1.TranslateRequest, m *model) uint {
	var wanted uint
	if len(req.GetTargets()) == 0 {
		if isToolResult(req) {
			return toolResultTargets
		}
		return defaultTargets
	}
	for _, name := range req.GetTargets() {
		i := slices.IndexFunc(targets, func(t target) bool { return t.name == name })
		if i < 0 {
			m.note(errsvcv1.NoteCode_NOTE_CODE_TARGET_UNKNOWN, "target %q is not a response field; ignored", clip(name))
			continue
		}
		wanted |= 1 << i
	}
	return wanted
}

// decode reads the request's one source into the model.
func decode(m *model, req *errsvcv1.TranslateRequest) error {
	if req == nil {
		return &RequestError{Field: "source", Description: "the request is empty: set exactly one source (labby_error, agent_error, classified_error, provider_response, mcp_tool_result, grpc_status, jsonrpc_error or http_error)"}
	}
	if c := req.GetContext(); c != nil {
		m.idempotent = c.GetIdempotent()
		m.readOnly = c.GetReadOnly()
	}
	var err error
	switch src := req.GetSource().(type) {
	case *errsvcv1.TranslateRequest_LabbyError:
		err = decodeLabby(m, src.LabbyError)
	case *errsvcv1.TranslateRequest_AgentError:
		err = decodeAgent(m, src.AgentError)
	case *errsvcv1.TranslateRequest_ClassifiedError:
		err = decodeClassified(m, src.ClassifiedError)
	case *errsvcv1.TranslateRequest_ProviderResponse:
		err = decodeProvider(m, src.ProviderResponse)
	case *errsvcv1.TranslateRequest_McpToolResult:
		m.completedResult = true
		err = decodeToolResult(m, src.McpToolResult)
	case *errsvcv1.TranslateRequest_GrpcStatus:
		err = decodeGRPCStatusSource(m, src.GrpcStatus)
	case *errsvcv1.TranslateRequest_JsonrpcError:
		err = decodeJSONRPCError(m, src.JsonrpcError)
	case *errsvcv1.TranslateRequest_HttpError:
		err = decodeHTTPError(m, src.HttpError)
	default:
		return &RequestError{Field: "source", Description: "set exactly one source (labby_error, agent_error, classified_error, provider_response, mcp_tool_result, grpc_status, jsonrpc_error or http_error)"}
	}
	if err != nil {
		return err
	}
	applyContext(m, req.GetContext())
	applyPolicy(m, req)
	settleDecision(m)
	settleLimit(m)
	noteUnmodelled(m, req)
	return nil
}

// applyContext copies what the caller knows into the envelope's context
// fields where the source left them empty.
func applyContext(m *model, c *errsvcv1.TranslateContext) {
	if c == nil {
		return
	}
	if m.envelope == nil {
		m.envelope = m.newEnvelope()
	}
	e := m.envelope
	fill := func(dst *string, v string) {
		if *dst == "" && v != "" {
			*dst = m.sanitizeShort(v)
		}
	}
	fill(&e.Service, c.GetService())
	fill(&e.Action, c.GetAction())
	fill(&e.Tool, c.GetTool())
	fill(&e.Upstream, c.GetUpstream())
}
