package translate

import (
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// kindFacts are what the translation derives from a kind's row when
// nothing overrides it: its origin's side effects, its action's row and
// guidance, its agent code's row and its gRPC code's number, and the
// wait-free agent details. They are computed once per row at init from the
// same functions the translation calls (derive.go, matrix.go), so a
// translation that follows the row reads them instead of looking up five
// vocabularies by string. Each use checks that the model still holds the
// row's own term (a caller's or a class's override takes the lookup), so
// the answer is the lookup's by construction; TestKindFactsAreTheLookups
// holds every row's facts to the lookups.
type kindFacts struct {
	// wire is the kind's wire spelling ("" for the catch-all).
	wire        string
	row         *errsvcv1.KindRow
	sideEffects string
	action      *errsvcv1.ActionRow
	agent       *errsvcv1.AgentCodeRow
	// grpcCode is the row's gRPC code, else the one its HTTP status means
	// (rowGRPCCode), and grpcNumber its number.
	grpcCode   string
	grpcNumber int32
	// details by [transient][idempotent], for the row's agent code and
	// reason and no wait.
	details [2][2]*structpb.Struct
	// messages are the agent messages of the row's agent code, by retry
	// hint (every hint of the vocabulary).
	messages []retryMessage
}

type retryMessage struct{ retry, msg string }

func newKindFacts(wire string, row *errsvcv1.KindRow) *kindFacts {
	f := &kindFacts{
		wire:        wire,
		row:         row,
		sideEffects: sideEffectsFor(row, row.GetOrigin()),
		action:      actionRow(row.GetAction()),
		agent:       agentCodeRow(row.GetAgentCode()),
	}
	f.grpcCode = rowGRPCCode(row.GetGrpcCode(), row.GetHttpStatus())
	f.grpcNumber = grpcCodeNumber(f.grpcCode)
	for t := range 2 {
		for i := range 2 {
			key := detailsKey{row.GetAgentCode(), row.GetAgentReason(), t == 1, i == 1}
			f.details[t][i] = staticDetails[key]
		}
	}
	for _, r := range AgentRetries.Terms {
		f.messages = append(f.messages, retryMessage{r.Wire, agentMessages[agentMessageKey{row.GetAgentCode(), r.Wire}]})
	}
	return f
}

// kindFactsByWire holds the facts of every kind's row, catchAllFacts the
// unknown kind's.
var (
	kindFactsByWire = func() map[string]*kindFacts {
		out := make(map[string]*kindFacts, len(LabbyKinds.Terms))
		for _, t := range LabbyKinds.Terms {
			out[t.Wire] = newKindFacts(t.Wire, t.Row.(*errsvcv1.KindRow))
		}
		return out
	}()
	catchAllFacts = newKindFacts("", catchAll)
)

// setKind sets the model's kind row (nil for a kind outside the matrix)
// and its facts.
func setKind(m *model, wire string) {
	if f, ok := kindFactsByWire[wire]; ok {
		m.krow, m.kfacts = f.row, f
		return
	}
	if policyKind(m, wire) {
		return
	}
	m.krow, m.kfacts = nil, nil
}

// facts are the facts of the row the model follows: the kind's, or the
// catch-all's.
func (m *model) facts() *kindFacts {
	if m.kfacts != nil {
		return m.kfacts
	}
	return catchAllFacts
}

// isTerm reports, without a lookup, that v is one of the vocabulary terms
// the facts carry (the kind, its agent code, its class): clean by
// construction (TestKnownTermsAreClean).
func (f *kindFacts) isTerm(v string) bool {
	return v != "" && (v == f.wire || v == f.row.GetAgentCode() || v == f.row.GetClass())
}

// agentMessage is the agent message of (code, retry) when code is the
// row's agent code.
func (f *kindFacts) agentMessage(code, retry string) (string, bool) {
	if code != f.row.GetAgentCode() {
		return "", false
	}
	for _, p := range f.messages {
		if p.retry == retry {
			return p.msg, true
		}
	}
	return "", false
}

// agentRowOf is agentRowOrFallback(code), from the facts when code is the
// row's agent code.
func (f *kindFacts) agentRowOf(code string) *errsvcv1.AgentCodeRow {
	if f.agent != nil && code == f.row.GetAgentCode() {
		return f.agent
	}
	return agentRowOrFallback(code)
}

// actionRowOf is actionRow(action), from the facts when action is the row's.
func (f *kindFacts) actionRowOf(action string) *errsvcv1.ActionRow {
	if action == f.row.GetAction() {
		return f.action
	}
	return actionRow(action)
}
