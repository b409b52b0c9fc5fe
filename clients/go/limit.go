package errsvcclient

import (
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
)

// Limit is the limit facet of an answer: which limit the error hit, whose,
// until when, how much is left, and what to do about it (the contract's
// Limit; docs/VOCABULARIES.md, "The limit facet"). Terms are open strings.
type Limit struct {
	// Kind: rate, quota, spend, concurrency, capacity, or a newer term.
	Kind string
	// Dimension: requests, tokens, input_tokens, output_tokens, ...; "" when unsaid.
	Dimension string
	// Scope: key, project, organization, account, model, region, or unknown.
	Scope string
	// ResetAt is when the limit resets; zero when unsaid.
	ResetAt time.Time
	// Remaining and Max (the limit's size), where the provider says them.
	Remaining, Max *uint64
	// Decision: wait_until_reset, reduce_concurrency, fail_over or
	// stop_and_tell_a_person.
	Decision string
}

// The limit decisions, read from the contract's (wire) options.
var (
	LimitWaitUntilReset    = translate.Wire(errsvcv1.LimitDecision_LIMIT_DECISION_WAIT_UNTIL_RESET)
	LimitReduceConcurrency = translate.Wire(errsvcv1.LimitDecision_LIMIT_DECISION_REDUCE_CONCURRENCY)
	LimitFailOver          = translate.Wire(errsvcv1.LimitDecision_LIMIT_DECISION_FAIL_OVER)
	LimitStopAndTell       = translate.Wire(errsvcv1.LimitDecision_LIMIT_DECISION_STOP_AND_TELL_A_PERSON)

	limitCapacity    = translate.Wire(errsvcv1.LimitKind_LIMIT_KIND_CAPACITY)
	limitConcurrency = translate.Wire(errsvcv1.LimitKind_LIMIT_KIND_CONCURRENCY)
)

// LimitOf returns the answer's limit facet, and false when the error is not
// a limit: the limit target, else the Labby envelope's detail.limit. A
// missing or unknown decision is derived as the service derives it: no
// retry helps (IsRetryable) → stop_and_tell_a_person (a spend cap is never
// retried); capacity → fail_over; concurrency → reduce_concurrency; else
// wait_until_reset.
func LimitOf(resp *errsvcv1.TranslateResponse) (Limit, bool) {
	if resp == nil || resp.GetError() != nil {
		return Limit{}, false
	}
	var l Limit
	switch pl, d := resp.GetLimit(), resp.GetLabbyError().GetDetail().GetFields()["limit"].GetStructValue(); {
	case pl.GetKind() != "":
		l = Limit{Kind: pl.GetKind(), Dimension: pl.GetDimension(), Scope: pl.GetScope(), Remaining: pl.Remaining, Max: pl.Limit, Decision: pl.GetDecision()}
		if pl.GetResetAt() != nil {
			l.ResetAt = pl.GetResetAt().AsTime()
		}
	case d != nil && str(d, "kind") != "":
		l = Limit{Kind: str(d, "kind"), Dimension: str(d, "dimension"), Scope: str(d, "scope"), Decision: str(d, "decision"),
			Remaining: count(d, "remaining"), Max: count(d, "limit")}
		if t, err := time.Parse(time.RFC3339Nano, str(d, "reset_at")); err == nil {
			l.ResetAt = t
		}
	default:
		return Limit{}, false
	}
	if l.Scope == "" {
		l.Scope = translate.Wire(errsvcv1.LimitScope_LIMIT_SCOPE_UNKNOWN)
	}
	if !translate.LimitDecisions.Has(l.Decision) {
		l.Decision = limitDecision(l.Kind, IsRetryable(resp))
	}
	return l, true
}

func limitDecision(kind string, retryable bool) string {
	switch {
	case !retryable:
		return LimitStopAndTell
	case kind == limitCapacity:
		return LimitFailOver
	case kind == limitConcurrency:
		return LimitReduceConcurrency
	}
	return LimitWaitUntilReset
}

func str(s *structpb.Struct, k string) string { return s.GetFields()[k].GetStringValue() }

func count(s *structpb.Struct, k string) *uint64 {
	v, ok := s.GetFields()[k].GetKind().(*structpb.Value_NumberValue)
	if !ok || v.NumberValue < 0 || v.NumberValue >= 1<<63 {
		return nil
	}
	n := uint64(v.NumberValue)
	return &n
}
