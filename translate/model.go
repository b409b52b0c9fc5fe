package translate

import (
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/types/known/anypb"

	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate/provider"
)

// model is the pivot of a translation: every source decodes into it and
// every target encodes from it, so N sources and M targets need N+M pieces
// of code, not N×M, and every target tells the same story.
type model struct {
	// policy is the operator policy the translation reads (nil: none).
	policy *Policy
	// policyRule is the provider family's rule that read the answer;
	// policyDecided says a policy rule set the class, which then stands
	// over a producer's own hint (only the caller's override beats it);
	// policyKindNoted says the kind's note is written.
	policyRule      *policyProviderRule
	policyDecided   bool
	policyKindNoted bool
	// limit is the limit facet (limit.go); nil when the error is not a
	// limit.
	limit  *limitFacts
	limitV limitFacts
	// limitRoomV is the room withLimit used, for encodeLimit.
	limitRoomV *limitRoom
	// clock says the answer depends on when it was asked (a wait counted
	// from the clock), so it must not be cached.
	clock bool
	// capped says a sanitiser call cut something (or kept a cut's marker),
	// so noteTruncations walks the answer for the capped fields.
	capped bool
	// kind is the Labby kind, verbatim; krow is its row, nil for an unknown kind.
	kind string
	krow *errsvcv1.KindRow
	// kfacts are krow's facts (kindfacts.go), nil with krow.
	kfacts *kindFacts
	// originalTerm is the source's own term (kind, code or producer code).
	originalTerm string

	// message is the sanitised human-readable diagnosis for the Labby envelope.
	message string

	// Labby recovery, all wire strings.
	origin, action, sameArgs, sideEffects, guidance string

	// waitMs is the wait in milliseconds, when the source gave one.
	waitMs *uint32
	// waitSecsV and waitMsV hold the values waitSecs and waitMs point to.
	waitSecsV, waitMsV uint32

	// class is absent when hasClass is false; recognized is false for a
	// class outside the four, which passes through verbatim.
	class      string
	hasClass   bool
	recognized bool
	// waitSecs is the wait in whole seconds (retry_after_secs).
	waitSecs *uint32

	// The Agent Surface projection.
	agentCode, agentRetry string
	agentDetails          *structpb.Struct
	// agentFromSource is true when the source was an agent payload, so the
	// Labby envelope carries it in its additive agent_error field.
	agentFromSource bool
	// classFromSource is true when the class came from a class-vocabulary
	// source, so the Labby envelope carries it in its additive field.
	classFromSource bool

	httpStatus int32
	grpcCode   string

	// envelope holds the optional Labby context fields to copy through.
	envelope *errsvcv1.LabbyError
	// detail is producer detail kept verbatim (sanitised).
	detail *structpb.Struct

	// recoveryExtra and agentExtra are the sanitised additional fields of
	// the source's recovery and agent payload, carried to the same
	// contract's output (see additional.go).
	recoveryExtra, agentExtra *structpb.Struct
	// providerCode and producerStatus are a classified source's producer
	// detail, for diagnostics only (ErrorInfo metadata and the Labby detail).
	providerCode   string
	producerStatus string

	// callerRecovery is true when the caller supplied the recovery, which
	// then wins over anything derived.
	callerRecovery bool
	// callerAction is true when the caller's recovery named its action.
	callerAction bool

	// hints from the request context and the tool annotations.
	idempotent, readOnly bool

	// completedResult is true for a completed MCP isError result: the
	// connection worked, so the failure never counts toward health.
	completedResult bool
	// grpcCodeFromSource is true when grpcCode is a grpc_status source's
	// own code, which survives as itself (grpcCodeFor).
	grpcCodeFromSource bool
	// jsonrpcCode is the source's JSON-RPC code, kept by the jsonrpc_error
	// target; nil when the source was not a JSON-RPC error.
	jsonrpcCode *int32
	// waitWithheldNoted: the retry-hint targets noted the withheld wait.
	waitWithheldNoted bool

	notes []*errsvcv1.Note

	// agentMsg is the agent message built for agentMsgKey (see agentMessage).
	agentMsg    string
	agentMsgKey agentMessageMemo
	agentMsgSet bool
	// providerSecs is a provider answer's wait as the classified reading
	// takes it (decodeProvider), kept here so it costs no allocation.
	providerSecs float64

	// store is where the response's messages are carved from: one
	// allocation per translation instead of one per message.
	store storage
	// memo holds the translation's sanitiser results (sanitize_glue.go).
	memo textMemo

	// leased and gen: the model is TranslateLeased's, lent for the gen'th
	// time (see Lease).
	leased bool
	gen    uint64
	// reuse is what a leased model keeps across its leases; nil for an
	// owned model.
	reuse *reused
}

// reused is the storage a leased model keeps across its leases beyond the
// model itself, which must stay in its allocation size class for owned
// translations (Translate): the Struct field maps (a Struct's fields are a
// map, one allocation or two each), an MCP result's parsed object, its
// context envelope and its Code Mode envelope. release clears it all (the
// maps keep their room) and the next translation fills it again. Each
// part is handed out once per translation, as the model's storage is.
type reused struct {
	maps     [fieldMaps]map[string]*structpb.Value
	arena    structArena
	context  errsvcv1.LabbyError
	codeMode envelopeWithRecovery
	// blocks are an MCP result's first text evidence blocks
	// (newEvidenceBlock); blocksUsed of them are handed out.
	blocks     [2]errsvcv1.EvidenceBlock
	blocksUsed int
	// agent is the Labby envelope's copy of an Agent Surface source's
	// payload (agentPayload).
	agent errsvcv1.AgentError
	// agentWait is the last Agent Surface message with its wait ("… Wait
	// at least 20 s.") this model built. It is an immutable string kept
	// across leases (like the room of the maps), reused only for the same
	// template and wait.
	agentWait agentWaitMemo
	// limit is the room of the limit facet's detail and answer
	// (limitRoom); limitUsed: handed out in this translation.
	limit     limitRoom
	limitUsed bool
	// classifier is the room a provider answer's classification writes
	// its wait and limit facet in (provider.Answer.Room), rather than in
	// allocations of its own, made at the model's first provider answer
	// (a pointer: the other sources' leases stay as they were);
	// classifierUsed: handed out in this translation.
	classifier     *provider.Room
	classifierUsed bool
	// arenaUsed, contextUsed, codeModeUsed and agentUsed: handed out in
	// this translation.
	arenaUsed, contextUsed, codeModeUsed, agentUsed bool
}

// clear empties r for the next lease: the maps, and the parts this
// translation was handed (the others are still clear).
func (r *reused) clear() {
	for _, f := range r.maps {
		clear(f)
	}
	if r.arenaUsed {
		f := r.arena.rootFields
		clear(f)
		r.arena = structArena{rootFields: f}
	}
	if r.contextUsed {
		r.context = errsvcv1.LabbyError{}
	}
	if r.codeModeUsed {
		r.codeMode = envelopeWithRecovery{}
	}
	if r.agentUsed {
		r.agent = errsvcv1.AgentError{}
	}
	if r.limitUsed {
		r.limit.clear()
		r.limitUsed = false
	}
	if r.classifierUsed {
		*r.classifier = provider.Room{}
		r.classifierUsed = false
	}
	for i := range r.blocksUsed {
		r.blocks[i] = errsvcv1.EvidenceBlock{}
	}
	r.blocksUsed = 0
	r.arenaUsed, r.contextUsed, r.codeModeUsed, r.agentUsed = false, false, false, false
}

// The maps of reused.
const (
	agentDetailFields = iota
	providerDetailFields
	limitDetailFields
	limitFields
	fieldMaps
)

// newArena, newEnvelope and newCodeModeEnvelope are the parts of reused
// (an MCP result's parsed object, its context envelope, the Code Mode
// target's envelope and recovery): the leased model's own the first time
// in a translation, else new ones.
func (m *model) newArena() *structArena {
	if r := m.reuse; r != nil {
		return handOut(&r.arenaUsed, &r.arena)
	}
	return new(structArena)
}

func (m *model) newEnvelope() *errsvcv1.LabbyError {
	if r := m.reuse; r != nil {
		return handOut(&r.contextUsed, &r.context)
	}
	return new(errsvcv1.LabbyError)
}

func (m *model) newCodeModeEnvelope() *envelopeWithRecovery {
	if r := m.reuse; r != nil {
		return handOut(&r.codeModeUsed, &r.codeMode)
	}
	return new(envelopeWithRecovery)
}

// newEvidenceBlock is an empty evidence block: one of the leased model's
// own while they last, else a new one.
func (m *model) newEvidenceBlock() *errsvcv1.EvidenceBlock {
	if r := m.reuse; r != nil && r.blocksUsed < len(r.blocks) {
		r.blocksUsed++
		return &r.blocks[r.blocksUsed-1]
	}
	return new(errsvcv1.EvidenceBlock)
}

// handOut is part, once per translation (used records it), else a new T.
func handOut[T any](used *bool, part *T) *T {
	if *used {
		return new(T)
	}
	*used = true
	return part
}

// fieldsMap is an empty map for the fields of the Struct slot names, with
// room for n: the leased model's own, else a new one.
func (m *model) fieldsMap(slot, n int) map[string]*structpb.Value {
	if m.reuse == nil {
		return make(map[string]*structpb.Value, n)
	}
	f := m.reuse.maps[slot]
	if f == nil {
		f = make(map[string]*structpb.Value, max(n, 8))
		m.reuse.maps[slot] = f
	}
	return f
}

// storage holds the messages of one response. A response points into it,
// so it lives as long as the response does.
type storage struct {
	resp errsvcv1.TranslateResponse
	// labby and recovery: the Labby target's envelope. The Code Mode
	// error's (an MCP result's second envelope) is allocated apart: a
	// second one here would put every translation's storage in the next
	// allocation size class (3456 bytes instead of 3072).
	labby      errsvcv1.LabbyError
	labbyUsed  bool
	recovery   errsvcv1.Recovery
	agent      errsvcv1.AgentError
	class      errsvcv1.Classification
	recognized bool
	http       int32
	status     status.Status
	info       anypb.Any
	details    [2]*anypb.Any
	notes      [4]*errsvcv1.Note
	noteMsgs   [4]errsvcv1.Note
	// retryInfo and retryBytes: the RetryInfo detail (a Duration is at most
	// 2 tags and 2 varints inside a length-prefixed field: 24 bytes).
	retryInfo  anypb.Any
	retryBytes [24]byte
	// infoBytes holds the ErrorInfo detail's bytes (a longer one grows
	// past it).
	infoBytes [256]byte
	provider  providerDetail
	// evidence and evidenceBlocks: an MCP result's evidence (more blocks
	// grow past the array).
	evidence       errsvcv1.Evidence
	evidenceBlocks [2]*errsvcv1.EvidenceBlock
	// agentDetails, waitValue and waitNumber: derived agent details with a wait.
	agentDetails structpb.Struct
	waitValue    structpb.Value
	waitNumber   structpb.Value_NumberValue
	noteUsed     int
}

// setWait sets the wait in both units; the values live in the model, as
// the response does (no allocation per wait).
func (m *model) setWait(secs, ms uint32) {
	m.waitSecsV, m.waitMsV = secs, ms
	m.waitSecs, m.waitMs = &m.waitSecsV, &m.waitMsV
}

// newModel allocates a model with its response storage.
func newModel() *model {
	m := &model{}
	m.notes = m.store.notes[:0]
	return m
}

// note records a step that lost information, assumed a default or
// recognised an alias. code is a NoteCode wire string.
func (m *model) note(code errsvcv1.NoteCode, format string, args ...any) {
	msg := format
	if len(args) > 0 {
		msg = formatNote(format, args)
	}
	var n *errsvcv1.Note
	if m.store.noteUsed < len(m.store.noteMsgs) {
		n = &m.store.noteMsgs[m.store.noteUsed]
		m.store.noteUsed++
	} else {
		n = &errsvcv1.Note{}
	}
	n.Code, n.Message = noteWire(code), msg
	m.notes = append(m.notes, n)
}

// noteWires are the notes' wire strings by NoteCode number, read once from
// the vocabulary (Wire), since every translation makes a note or more.
var noteWires = func() []string {
	values := errsvcv1.NoteCode(0).Descriptor().Values()
	top := 0
	for i := 0; i < values.Len(); i++ {
		top = max(top, int(values.Get(i).Number()))
	}
	out := make([]string, top+1)
	for i := 0; i < values.Len(); i++ {
		n := values.Get(i).Number()
		out[n] = Wire(errsvcv1.NoteCode(n))
	}
	return out
}()

func noteWire(code errsvcv1.NoteCode) string {
	if n := int(code); n >= 0 && n < len(noteWires) {
		return noteWires[n]
	}
	return Wire(code)
}
