package errsvcclient

import (
	"math"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
)

// The decision helpers answer what a caller does next with a translated
// error. They read only structured fields of the answer, never message text
// or http_status, and behave exactly as the Python and TypeScript SDKs' do:
// clients/README.md ("Acting on an answer") is their one definition, and
// every SDK checks it on every golden vector.

// DefaultMaxWait is the longest wait RetryAfter accepts unless told
// otherwise: past it a caller fails fast rather than sleeping (openai-python
// refuses to retry a wait over 120 s for the same reason).
const DefaultMaxWait = 120 * time.Second

// Decision is every helper's answer for one response.
type Decision struct {
	// Retryable: IsRetryable.
	Retryable bool
	// RetryAfter and RetryAfterOK: RetryAfter with the cap Decide was given.
	RetryAfter   time.Duration
	RetryAfterOK bool
	// Reauthenticate: ShouldReauthenticate.
	Reauthenticate bool
	// SameArgumentsSafe: SameArgumentsSafe with the idempotent Decide was given.
	SameArgumentsSafe bool
}

// Decide runs every helper on resp.
func Decide(resp *errsvcv1.TranslateResponse, maxWait time.Duration, idempotent bool) Decision {
	wait, ok := RetryAfter(resp, maxWait)
	return Decision{
		Retryable:         IsRetryable(resp),
		RetryAfter:        wait,
		RetryAfterOK:      ok,
		Reauthenticate:    ShouldReauthenticate(resp),
		SameArgumentsSafe: SameArgumentsSafe(resp, idempotent),
	}
}

// IsRetryable reports whether the same call may succeed if made again,
// possibly after a wait: a known class other than transient says no (the
// Error Class Contract: never backoff-retry those); otherwise the recovery
// advice decides (retry_later), and without advice a transient class does.
func IsRetryable(resp *errsvcv1.TranslateResponse) bool {
	if resp == nil || resp.GetError() != nil {
		return false
	}
	class, known := knownClass(resp)
	if known && class != classTransient {
		return false
	}
	if rec, ok := recoveryOf(resp); ok {
		return rec.action == actionRetryLater
	}
	return class == classTransient
}

// RetryAfter returns how long to wait before making the call again, and
// false when it should not be made again: the answer is not retryable, or
// the wait it states is longer than maxWait (fail fast; a negative maxWait
// means no cap). The wait is the answer's most precise one (see
// clients/README.md); zero when it states none: the caller's own backoff.
func RetryAfter(resp *errsvcv1.TranslateResponse, maxWait time.Duration) (time.Duration, bool) {
	if !IsRetryable(resp) {
		return 0, false
	}
	wait := statedWait(resp)
	if maxWait >= 0 && wait > maxWait {
		return 0, false
	}
	return wait, true
}

// ShouldReauthenticate reports whether a credential must be re-established
// before the call can succeed: a known class decides (auth_required); else
// the Labby recovery action (reauthenticate); else the Agent Surface code
// (NOT_AUTHENTICATED).
func ShouldReauthenticate(resp *errsvcv1.TranslateResponse) bool {
	if resp == nil || resp.GetError() != nil {
		return false
	}
	if class, known := knownClass(resp); known {
		return class == classAuthRequired
	}
	if rec, ok := labbyRecovery(resp); ok {
		return rec.action == actionReauthenticate
	}
	return resp.GetAgentError().GetCode() == agentNotAuthenticated
}

// SameArgumentsSafe reports whether repeating the exact call is safe: the
// recovery's same_arguments is safe, or conditional and either the call is
// idempotent (the caller knows) or the envelope says nothing happened
// (side_effects none_expected). It says nothing about whether a repeat
// helps: ask IsRetryable for that.
func SameArgumentsSafe(resp *errsvcv1.TranslateResponse, idempotent bool) bool {
	if resp == nil || resp.GetError() != nil {
		return false
	}
	rec, ok := recoveryOf(resp)
	if !ok {
		return false
	}
	switch rec.sameArguments {
	case sameSafe:
		return true
	case sameConditional:
		return idempotent || rec.sideEffects == sideNoneExpected
	}
	return false
}

// Status returns the response's grpc_status as a *status.Status with its
// details (ErrorInfo, RetryInfo), or nil when it has none or its code is OK.
// A code outside gRPC's (above 16) becomes UNKNOWN, as in the other SDKs.
func Status(resp *errsvcv1.TranslateResponse) *status.Status {
	gs := resp.GetGrpcStatus()
	if gs == nil || codes.Code(gs.GetCode()) == codes.OK {
		return nil
	}
	if gs.GetCode() < 0 || gs.GetCode() > int32(codes.Unauthenticated) {
		gs = proto.CloneOf(gs)
		gs.Code = int32(codes.Unknown)
	}
	return status.FromProto(gs)
}

// StatusError returns the response's grpc_status as an error a gRPC handler
// can return as is (status.FromError reads it back with its details), or
// nil when the response has none.
func StatusError(resp *errsvcv1.TranslateResponse) error {
	if st := Status(resp); st != nil {
		return st.Err()
	}
	return nil
}

// Wire strings the helpers branch on, read from the contract's (wire)
// options (translate.Wire), so a renamed term leaves no stale copy here.
var (
	classTransient        = translate.Wire(errsvcv1.ErrorClass_ERROR_CLASS_TRANSIENT)
	classAuthRequired     = translate.Wire(errsvcv1.ErrorClass_ERROR_CLASS_AUTH_REQUIRED)
	actionRetryLater      = translate.Wire(errsvcv1.RecoveryAction_RECOVERY_ACTION_RETRY_LATER)
	actionReauthenticate  = translate.Wire(errsvcv1.RecoveryAction_RECOVERY_ACTION_REAUTHENTICATE)
	sameSafe              = translate.Wire(errsvcv1.SameArguments_SAME_ARGUMENTS_SAFE)
	sameConditional       = translate.Wire(errsvcv1.SameArguments_SAME_ARGUMENTS_CONDITIONAL)
	sideNoneExpected      = translate.Wire(errsvcv1.SideEffects_SIDE_EFFECTS_NONE_EXPECTED)
	sideUnknown           = translate.Wire(errsvcv1.SideEffects_SIDE_EFFECTS_UNKNOWN)
	agentNotAuthenticated = translate.Wire(errsvcv1.AgentErrorCode_AGENT_ERROR_CODE_NOT_AUTHENTICATED)
)

// agentRetryRecovery is the RetryRow of an Agent Surface retry hint: the
// Labby recovery it means.
func agentRetryRecovery(retry string) (*errsvcv1.RetryRow, bool) {
	t, ok := translate.AgentRetries.Lookup(retry)
	if !ok {
		return nil, false
	}
	row, ok := t.Row.(*errsvcv1.RetryRow)
	return row, ok
}

// classAliases are the spellings the Error Class Contract reads as another
// class (`auth`, from before the rename, is auth_required).
var classAliases = map[string]string{"auth": "auth_required"}

type recovery struct {
	action, sameArguments, sideEffects string
}

// knownClass returns the answer's class when it is one of the contract's
// four; an unknown class counts as absent (open on read).
func knownClass(resp *errsvcv1.TranslateResponse) (string, bool) {
	c := resp.GetClassification().GetClass()
	if alias, ok := classAliases[c]; ok {
		c = alias
	}
	return c, translate.Classes.Has(c)
}

// labbyRecovery is the recovery of the Labby envelope, else of the Code
// Mode call error, when its action is a known term.
func labbyRecovery(resp *errsvcv1.TranslateResponse) (recovery, bool) {
	for _, le := range []*errsvcv1.LabbyError{resp.GetLabbyError(), resp.GetCodeModeError()} {
		r := le.GetRecovery()
		if translate.RecoveryActions.Has(r.GetAction()) {
			return recovery{r.GetAction(), r.GetSameArguments(), le.GetSideEffects()}, true
		}
	}
	return recovery{}, false
}

// recoveryOf is labbyRecovery, else the recovery the Agent Surface retry
// hint means (side effects unknown: the payload does not say).
func recoveryOf(resp *errsvcv1.TranslateResponse) (recovery, bool) {
	if rec, ok := labbyRecovery(resp); ok {
		return rec, true
	}
	if row, ok := agentRetryRecovery(resp.GetAgentError().GetRetry()); ok {
		return recovery{row.GetAction(), row.GetSameArguments(), sideUnknown}, true
	}
	return recovery{}, false
}

// statedWait is the wait the answer states, from its most precise field:
// the Labby envelope's retry_after_ms (then the Code Mode call error's), the
// grpc_status RetryInfo, the Agent Surface details.retryAfterMs, and last
// classification.retry_after_secs (whole seconds, rounded up from the
// others). Zero when none is stated.
func statedWait(resp *errsvcv1.TranslateResponse) time.Duration {
	for _, le := range []*errsvcv1.LabbyError{resp.GetLabbyError(), resp.GetCodeModeError()} {
		if r := le.GetRecovery(); r != nil && r.RetryAfterMs != nil {
			return time.Duration(r.GetRetryAfterMs()) * time.Millisecond
		}
	}
	for _, d := range resp.GetGrpcStatus().GetDetails() {
		ri := &errdetails.RetryInfo{}
		if d.MessageIs(ri) && d.UnmarshalTo(ri) == nil && ri.GetRetryDelay() != nil {
			if delay := ri.GetRetryDelay().AsDuration(); delay > 0 {
				return delay
			}
			return 0
		}
	}
	if v, ok := resp.GetAgentError().GetDetails().GetFields()["retryAfterMs"]; ok {
		// A number of milliseconds; anything else is not a wait.
		if n, isNum := v.GetKind().(*structpb.Value_NumberValue); isNum && n.NumberValue >= 0 && n.NumberValue < maxWaitMs {
			return time.Duration(n.NumberValue * float64(time.Millisecond))
		}
	}
	if c := resp.GetClassification(); c != nil && c.RetryAfterSecs != nil {
		return time.Duration(c.GetRetryAfterSecs()) * time.Second
	}
	return 0
}

// maxWaitMs bounds a wait read from a number so it fits a time.Duration.
const maxWaitMs = float64(math.MaxInt64 / int64(time.Millisecond))
