package translate

import (
	"fmt"
	"sort"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// The matrix is read once, at init, from the enum value options of
// proto/errsvc/v1/vocabulary.proto: the contract is the single source of
// truth, and this file only indexes it by wire string.

// Term is one known term of a vocabulary.
type Term struct {
	Wire      string
	EnumValue string
	Meaning   string
	// The matrix row, when the vocabulary has rows; nil otherwise.
	Row    proto.Message
	number protoreflect.EnumNumber
}

// Vocabulary is a known term set, in declaration order.
type Vocabulary struct {
	Name     string // the proto enum's name, e.g. "LabbyKind"
	Source   string // which contract defines it
	Terms    []Term
	byWire   map[string]*Term
	byNumber map[protoreflect.EnumNumber]*Term
}

// Lookup returns the term with this exact wire spelling.
func (v *Vocabulary) Lookup(wire string) (*Term, bool) {
	t, ok := v.byWire[wire]
	return t, ok
}

// Has reports whether wire is a known term.
func (v *Vocabulary) Has(wire string) bool {
	_, ok := v.byWire[wire]
	return ok
}

// The vocabularies, in the order ListVocabularies serves them.
var (
	Origins         = mustVocabulary(errsvcv1.Origin(0).Descriptor(), "Labby agent error contract v1")
	RecoveryActions = mustVocabulary(errsvcv1.RecoveryAction(0).Descriptor(), "Labby agent error contract v1")
	SameArgs        = mustVocabulary(errsvcv1.SameArguments(0).Descriptor(), "Labby agent error contract v1")
	SideEffects     = mustVocabulary(errsvcv1.SideEffects(0).Descriptor(), "Labby agent error contract v1")
	LabbyKinds      = mustVocabulary(errsvcv1.LabbyKind(0).Descriptor(), "Labby agent error contract v1 and its reference classification table")
	AgentCodes      = mustVocabulary(errsvcv1.AgentErrorCode(0).Descriptor(), "Agent Surface error model")
	AgentRetries    = mustVocabulary(errsvcv1.AgentRetry(0).Descriptor(), "Agent Surface error model")
	Classes         = mustVocabulary(errsvcv1.ErrorClass(0).Descriptor(), "Error Class Contract v1")
	ClassifiedCodes = mustVocabulary(errsvcv1.ClassifiedCode(0).Descriptor(), "Error Class Contract v1: broca refusals and vault read errors")
	RoutingCodes    = mustVocabulary(errsvcv1.RoutingCode(0).Descriptor(), "Error Class Contract v1: routing codes of account_selection_refused")
	NoteCodes       = mustVocabulary(errsvcv1.NoteCode(0).Descriptor(), "errsvc translation notes")
	HandlingRoutes  = mustVocabulary(errsvcv1.HandlingRoute(0).Descriptor(), "Error Class Contract v1: the consumer decision of each class (handling.route)")
	LogLevels       = mustVocabulary(errsvcv1.LogLevel(0).Descriptor(), "Labby agent error contract: logging rule (handling.log_level)")
	GrpcCodes       = mustVocabulary(errsvcv1.GrpcCode(0).Descriptor(), "google.rpc.Code read as a source (AIP-193, AIP-194, Error Class Contract v1)")
	JSONRPCCodes    = mustVocabulary(errsvcv1.JsonRpcCode(0).Descriptor(), "JSON-RPC 2.0 and MCP protocol error codes read as a source (MCP 2026-07-28)")
	GatewayAnswers  = mustVocabulary(errsvcv1.GatewayAnswer(0).Descriptor(), "OpenAI-compatible and Anthropic error answers (openai_error, anthropic_error)")
	LimitKinds      = mustVocabulary(errsvcv1.LimitKind(0).Descriptor(), "errsvc limit facet: which sort of limit (limit.kind)")
	LimitDimensions = mustVocabulary(errsvcv1.LimitDimension(0).Descriptor(), "errsvc limit facet: what the limit counts (limit.dimension)")
	LimitScopes     = mustVocabulary(errsvcv1.LimitScope(0).Descriptor(), "errsvc limit facet: whose limit (limit.scope)")
	LimitDecisions  = mustVocabulary(errsvcv1.LimitDecision(0).Descriptor(), "errsvc limit facet: what to do about it (limit.decision, handling.limit_decision)")

	allVocabularies = []*Vocabulary{
		LabbyKinds, Origins, RecoveryActions, SameArgs, SideEffects,
		AgentCodes, AgentRetries, Classes, ClassifiedCodes, RoutingCodes, NoteCodes,
		HandlingRoutes, LogLevels, GrpcCodes, JSONRPCCodes, GatewayAnswers,
		LimitKinds, LimitDimensions, LimitScopes, LimitDecisions,
	}
)

// Typed row accessors: each panics only if the contract itself is broken,
// which the matrix tests catch.

func kindRow(wire string) *errsvcv1.KindRow {
	if t, ok := LabbyKinds.byWire[wire]; ok {
		return t.Row.(*errsvcv1.KindRow)
	}
	return nil
}

func agentCodeRow(wire string) *errsvcv1.AgentCodeRow {
	if t, ok := AgentCodes.byWire[wire]; ok {
		return t.Row.(*errsvcv1.AgentCodeRow)
	}
	return nil
}

func classRow(wire string) *errsvcv1.ClassRow {
	if t, ok := Classes.byWire[wire]; ok {
		return t.Row.(*errsvcv1.ClassRow)
	}
	return nil
}

func classifiedCodeRow(v *Vocabulary, wire string) *errsvcv1.ClassifiedCodeRow {
	if t, ok := v.byWire[wire]; ok {
		return t.Row.(*errsvcv1.ClassifiedCodeRow)
	}
	return nil
}

func originRow(wire string) *errsvcv1.OriginRow {
	if t, ok := Origins.byWire[wire]; ok {
		return t.Row.(*errsvcv1.OriginRow)
	}
	return nil
}

func actionRow(wire string) *errsvcv1.ActionRow {
	if t, ok := RecoveryActions.byWire[wire]; ok {
		return t.Row.(*errsvcv1.ActionRow)
	}
	return nil
}

func retryRow(wire string) *errsvcv1.RetryRow {
	if t, ok := AgentRetries.byWire[wire]; ok {
		return t.Row.(*errsvcv1.RetryRow)
	}
	return nil
}

// rowExtensions are the option extensions that hold a row; a value carries at most one.
var rowExtensions = []protoreflect.ExtensionType{
	errsvcv1.E_Kind, errsvcv1.E_AgentCode, errsvcv1.E_ClassifiedCode, errsvcv1.E_Class,
	errsvcv1.E_Origin, errsvcv1.E_Action, errsvcv1.E_Retry,
	errsvcv1.E_GrpcCode, errsvcv1.E_JsonrpcCode, errsvcv1.E_GatewayAnswer,
}

func mustVocabulary(ed protoreflect.EnumDescriptor, source string) *Vocabulary {
	v, err := loadVocabulary(ed, source)
	if err != nil {
		panic(err)
	}
	return v
}

func loadVocabulary(ed protoreflect.EnumDescriptor, source string) (*Vocabulary, error) {
	v := &Vocabulary{Name: string(ed.Name()), Source: source,
		byWire: map[string]*Term{}, byNumber: map[protoreflect.EnumNumber]*Term{}}
	values := ed.Values()
	for i := 0; i < values.Len(); i++ {
		vd := values.Get(i)
		if vd.Number() == 0 {
			continue // the UNSPECIFIED value is not a term
		}
		opts, _ := vd.Options().(*descriptorpb.EnumValueOptions)
		wire, _ := proto.GetExtension(opts, errsvcv1.E_Wire).(string)
		if wire == "" {
			return nil, fmt.Errorf("%s has no (errsvc.v1.wire) option", vd.FullName())
		}
		if _, dup := v.byWire[wire]; dup {
			return nil, fmt.Errorf("%s: wire spelling %q declared twice", vd.FullName(), wire)
		}
		t := Term{Wire: wire, EnumValue: string(vd.Name()), number: vd.Number()}
		t.Meaning, _ = proto.GetExtension(opts, errsvcv1.E_Meaning).(string)
		for _, xt := range rowExtensions {
			if proto.HasExtension(opts, xt) {
				t.Row = proto.GetExtension(opts, xt).(proto.Message)
			}
		}
		v.Terms = append(v.Terms, t)
	}
	for i := range v.Terms {
		v.byWire[v.Terms[i].Wire] = &v.Terms[i]
		v.byNumber[v.Terms[i].number] = &v.Terms[i]
	}
	vocabularyByEnum[ed.FullName()] = v
	return v, nil
}

var vocabularyByEnum = map[protoreflect.FullName]*Vocabulary{}

// Wire returns the exact wire spelling of a known term, for example
// Wire(errsvcv1.AgentRetry_AGENT_RETRY_AFTER_REFRESH) == "after-refresh".
// It returns "" for an UNSPECIFIED value.
func Wire(e protoreflect.Enum) string {
	if v, ok := vocabularyByEnum[e.Descriptor().FullName()]; ok {
		if t, ok := v.byNumber[e.Number()]; ok {
			return t.Wire
		}
	}
	return ""
}

// Vocabularies renders every vocabulary with its terms and rows: the
// ListVocabularies answer, built from the same data the translator reads.
func Vocabularies() *errsvcv1.ListVocabulariesResponse {
	return vocabulariesResponse
}

var vocabulariesResponse = buildVocabulariesResponse()

func buildVocabulariesResponse() *errsvcv1.ListVocabulariesResponse {
	resp := &errsvcv1.ListVocabulariesResponse{}
	for _, v := range allVocabularies {
		pv := &errsvcv1.Vocabulary{Name: v.Name, Source: v.Source}
		for _, t := range v.Terms {
			pt := &errsvcv1.Term{Term: t.Wire, EnumValue: t.EnumValue, Meaning: t.Meaning}
			switch row := t.Row.(type) {
			case *errsvcv1.KindRow:
				pt.Row = &errsvcv1.Term_Kind{Kind: row}
			case *errsvcv1.AgentCodeRow:
				pt.Row = &errsvcv1.Term_AgentCode{AgentCode: row}
			case *errsvcv1.ClassifiedCodeRow:
				pt.Row = &errsvcv1.Term_ClassifiedCode{ClassifiedCode: row}
			case *errsvcv1.ClassRow:
				pt.Row = &errsvcv1.Term_Class{Class: row}
			case *errsvcv1.OriginRow:
				pt.Row = &errsvcv1.Term_Origin{Origin: row}
			case *errsvcv1.ActionRow:
				pt.Row = &errsvcv1.Term_Action{Action: row}
			case *errsvcv1.RetryRow:
				pt.Row = &errsvcv1.Term_Retry{Retry: row}
			case *errsvcv1.GrpcCodeRow:
				pt.Row = &errsvcv1.Term_GrpcCode{GrpcCode: row}
			case *errsvcv1.JsonRpcCodeRow:
				pt.Row = &errsvcv1.Term_JsonrpcCode{JsonrpcCode: row}
			case *errsvcv1.GatewayAnswerRow:
				pt.Row = &errsvcv1.Term_GatewayAnswer{GatewayAnswer: row}
			}
			pv.Terms = append(pv.Terms, pt)
		}
		resp.Vocabularies = append(resp.Vocabularies, pv)
	}
	return resp
}

// sortedKeys returns a map's keys in order, for deterministic output.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
