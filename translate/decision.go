package translate

import (
	"slices"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// One answer carries one retry decision, in every target: the class and
// its handling route, the Agent Surface retry hint, the Labby recovery
// action, x-should-retry, grpc-retry-pushback-ms and a gRPC code AIP-194
// clients retry on their own (UNAVAILABLE). Consumers act on whichever
// target they read with no person in between, so two targets that
// disagree make two consumers of the same error do opposite things.
//
// Who decides, in order (docs/VOCABULARIES.md, "One decision";
// docs/POLICY.md, "Who decides"):
//  1. the caller: a Labby envelope's own recovery action (the reference:
//     "caller-supplied recovery overrides the derived one");
//  1a. the operator's policy, when a rule of it set the class (applyPolicy,
//     policyDecided): it stands over everything below;
//  2. the producer's own retry hint: an Agent Surface payload's retry;
//  3. the class the source produced (a provider's timeout is transient);
//  4. the Agent Surface matrix's safety rule, for a class derived from a
//     kind's row: a TIMEOUT not known to be idempotent is not retried;
//  5. the class: a recognised class, else (a class outside the four) the
//     kind's row.
//
// What the first two (or the fourth) decide, the class follows, with a
// caller_override note naming who decided; every derived hint then follows
// the class.

// retryHints are the Agent Surface hints that mean "send it again as is".
func retryHint(r string) bool { return r == "yes" || r == "after-delay" }

// retryHelps is the one retry decision every target follows: only what is
// transient is worth an automatic retry. No class, or one outside the four,
// leaves the decision to the kind's row (the Error Class Contract's
// consumers read the class as an open string; none is invented in the
// classification target, but the kind still says what it is).
func retryHelps(m *model) bool {
	if m.hasClass && m.recognized {
		return m.class == classTransient
	}
	return m.krow.GetClass() == classTransient
}

// settleDecision makes every target of the model say the same decision.
func settleDecision(m *model) {
	switch {
	case m.callerAction && m.action == "do_not_retry" && retryHelps(m):
		overrideClass(m, "permanent", "recovery.action do_not_retry supplied by the caller", true)
	case m.callerAction && m.action == "retry_later" && m.sameArgs != "conditional" && !retryHelps(m):
		// (retry_later with same_arguments conditional is a retry only for
		// an idempotent call: no decision of the caller's.)
		overrideClass(m, classTransient, "recovery.action retry_later supplied by the caller", true)
	case m.callerAction && (m.action == "do_not_retry" || m.action == "retry_later" && m.sameArgs != "conditional"):
		// The caller's decision stands (it agrees with the class).
	case m.policyDecided:
		// An operator's rule decided: it stands over the producer's hint
		// and the built-in safety rule (docs/POLICY.md, "Who decides").
	case m.agentFromSource && m.agentRetry == "no" && retryHelps(m):
		overrideClass(m, "permanent", `the producer's agent_error.retry "no"`, true)
	case m.agentFromSource && retryHint(m.agentRetry) && !retryHelps(m):
		overrideClass(m, classTransient, producerHint[m.agentRetry], true)
	case !m.agentFromSource && m.agentRetry == "no" && retryHelps(m) && !m.classFromSource &&
		m.agentRowFor(m.agentCode).GetRetryIfIdempotent() != "" && !m.idempotent:
		// The Agent Surface matrix's safety rule (a TIMEOUT is retried only
		// when idempotent: side effects may have occurred) forbids the
		// retry the class would allow. The kind's recovery (retry_later,
		// same_arguments conditional: only if idempotent) and gRPC code
		// already say so and stay.
		overrideClass(m, "permanent", safetyRule, false)
	}
	helps := retryHelps(m)
	// The derived hints follow the decision.
	// A class the source produced (a provider's timeout is transient)
	// wins over the agent code's default hint.
	if (!m.agentFromSource || m.policyDecided) && retryHint(m.agentRetry) != helps {
		if r := hintFor(m.agentRowFor(m.agentCode), helps); r != "" {
			m.agentRetry = r
		}
	}
	if !m.callerAction {
		switch {
		// retry_later with same_arguments conditional already says "only
		// if idempotent", which a non-idempotent call's "no" keeps.
		case helps && m.action == "do_not_retry", !helps && m.action == "retry_later" && m.sameArgs != "conditional":
			ar := recoveryFor(m)
			m.action, m.sameArgs = ar[0], ar[1]
		}
	}
}

// hintFor is the code's own hint for the decision: after-delay (else yes)
// for a retry, no for none; "" when the code allows no such hint.
func hintFor(row *errsvcv1.AgentCodeRow, retry bool) string {
	want := []string{"no"}
	if retry {
		want = []string{"after-delay", "yes"}
	}
	for _, r := range want {
		if slices.Contains(row.GetRetries(), r) {
			return r
		}
	}
	return ""
}

// recoveryFor is the recovery of the answer's class row, else the
// catch-all's (a class outside the four whose kind is not transient).
func recoveryFor(m *model) [2]string {
	if cr := recognizedClassRow(m); cr != nil {
		return [2]string{cr.GetAction(), cr.GetSameArguments()}
	}
	return [2]string{catchAll.GetAction(), catchAll.GetSameArguments()}
}

// overrideClass sets the class a caller or producer decided, with a note.
// With rowFollows it takes the gRPC code and the derived projection from
// the class's row, as a produced class does (followClass).
func overrideClass(m *model, class, who string, rowFollows bool) {
	was := ""
	if m.hasClass {
		was = m.class
	}
	// The Labby envelope carries a class a caller or producer decided (its
	// additive classification), so reading it back decides the same; the
	// safety rule decides again from the kind itself.
	m.hasClass, m.class, m.recognized = true, class, true
	m.classFromSource = m.classFromSource || rowFollows
	if cr := classRow(class); rowFollows {
		if !m.grpcCodeFromSource {
			m.grpcCode = cr.GetGrpcCode()
		}
		if !m.callerAction {
			m.action, m.sameArgs = cr.GetAction(), cr.GetSameArguments()
		}
		if !m.agentFromSource {
			deriveAgent(m)
		}
	}
	// who is one of a few fixed texts: with a class of the vocabulary the
	// note's text is made once (noteCached), as every translation of a
	// non-idempotent timeout writes it.
	switch {
	case was == "":
		m.noteCached(errsvcv1.NoteCode_NOTE_CODE_CALLER_OVERRIDE, noteKey{format: "%s decides: class %s in every target (there was no class)", a: who, b: class})
	case knownTerms[was]:
		m.noteCached(errsvcv1.NoteCode_NOTE_CODE_CALLER_OVERRIDE, noteKey{format: "%s decides: class %s in every target (was class %s)", a: who, b: class, c: was})
	default:
		m.note(errsvcv1.NoteCode_NOTE_CODE_CALLER_OVERRIDE, "%s decides: class %s in every target (was class %s)", who, class, clip(was))
	}
}

// producerHint and safetyRule name who decided, as fixed texts.
var (
	producerHint = map[string]string{
		"yes":         `the producer's agent_error.retry "yes"`,
		"after-delay": `the producer's agent_error.retry "after-delay"`,
	}
	safetyRule = `the Agent Surface matrix's rule for a call not known to be idempotent (TIMEOUT: retry "no"; context.idempotent allows a retry)`
)
