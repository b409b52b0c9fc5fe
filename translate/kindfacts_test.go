package translate

import (
	"testing"

	"google.golang.org/protobuf/proto"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// TestKindFactsAreTheLookups: every kind's facts (and the catch-all's) are
// what the lookups they stand for answer.
func TestKindFactsAreTheLookups(t *testing.T) {
	rows := []*errsvcv1.KindRow{catchAll}
	for _, term := range LabbyKinds.Terms {
		rows = append(rows, term.Row.(*errsvcv1.KindRow))
	}
	for _, row := range rows {
		f := catchAllFacts
		if row != catchAll {
			m := newModel()
			setKind(m, LabbyKinds.Terms[indexOfRow(row)].Wire)
			if m.krow != row {
				t.Fatalf("setKind did not set the row of %v", row)
			}
			f = m.facts()
		}
		if f.sideEffects != sideEffectsFor(row, row.GetOrigin()) ||
			!proto.Equal(f.action, actionRow(row.GetAction())) || f.action != actionRow(row.GetAction()) ||
			f.agent != agentCodeRow(row.GetAgentCode()) ||
			f.grpcNumber != grpcCodeNumber(rowGRPCCode(row.GetGrpcCode(), row.GetHttpStatus())) ||
			f.agentRowOf(row.GetAgentCode()) != agentRowOrFallback(row.GetAgentCode()) {
			t.Errorf("facts of %v differ from the lookups", row)
		}
		for _, r := range AgentRetries.Terms {
			got, ok := f.agentMessage(row.GetAgentCode(), r.Wire)
			if want := agentMessages[agentMessageKey{row.GetAgentCode(), r.Wire}]; !ok || got != want {
				t.Errorf("facts of %v: agent message for %s %q, want %q", row, r.Wire, got, want)
			}
		}
		for _, v := range []string{f.wire, row.GetAgentCode(), row.GetClass()} {
			if v != "" && (!f.isTerm(v) || !knownTerms[v]) {
				t.Errorf("facts of %v: %q is a term of the row but isTerm %v, knownTerms %v", row, v, f.isTerm(v), knownTerms[v])
			}
		}
		if f.isTerm("") || f.isTerm("sk-not-a-term") {
			t.Errorf("facts of %v: isTerm answers for a text that is no term of the row", row)
		}
		for _, tr := range []bool{false, true} {
			for _, idem := range []bool{false, true} {
				m := &model{idempotent: idem, hasClass: tr}
				if tr {
					m.class = classTransient
				}
				want := cachedAgentDetails(m, row.GetAgentCode(), agentCodeRow(row.GetAgentCode()), row.GetAgentReason())
				if got := f.details[b2i(tr)][b2i(idem)]; !proto.Equal(got, want) {
					t.Errorf("facts of %v: details (transient %v, idempotent %v) %v, want %v", row, tr, idem, got, want)
				}
			}
		}
	}
	m := newModel()
	setKind(m, "not_a_kind")
	if m.krow != nil || m.facts() != catchAllFacts {
		t.Error("an unknown kind does not take the catch-all's facts")
	}
}

func indexOfRow(row *errsvcv1.KindRow) int {
	for i, t := range LabbyKinds.Terms {
		if t.Row == row {
			return i
		}
	}
	return -1
}
