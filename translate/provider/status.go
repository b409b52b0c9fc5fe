package provider

import "strconv"

// statusDefaults decide when no code did. They are the contract's
// refinements (401 auth_required, 403 permanent) plus HTTP's own meaning.
// 409 is transient because the OpenAI and Anthropic SDKs retry it: their
// servers answer 409 for a lock timeout on a concurrent request, which a
// retry clears. 424 and 425 are transient for the same reason: the request
// was not refused on its merits. A 429 no code explained is a quota errsvc
// cannot tell apart: the contract's safe default, transient.
var statusDefaults = map[int]verdict{
	400: {classPermanent, kindInvalidParam, refineOverflow | refineBilling | refineAuth},
	401: {classAuthRequired, kindAuthFailed, 0},
	402: {classPermanent, kindQuotaExceeded, 0},
	403: {classPermanent, kindPermissionDenied, refineBilling},
	404: {classPermanent, kindNotFound, 0},
	408: {classTransient, kindTimeout, 0},
	409: {classTransient, kindConflict, 0},
	410: {classPermanent, kindNotFound, 0},
	413: {classContextOverflow, kindContentTooLarge, 0},
	422: {classPermanent, kindValidationFailed, refineOverflow | refineBilling | refineAuth},
	424: {classTransient, kindUpstreamError, 0},
	425: {classTransient, kindUpstreamError, 0},
	429: {classTransient, kindRateLimited, refineOverflow | refineBilling},
	499: {classTransient, kindUpstreamError, 0},
	500: {classTransient, kindProviderError, refineOverflow | refineAuth},
	// Not Implemented: the target does not have the operation; retrying the
	// same target is futile.
	501: {classPermanent, kindNotFound, 0},
	502: {classTransient, kindBadGateway, refineOverflow},
	503: {classTransient, kindServiceUnavailable, refineOverflow},
	504: {classTransient, kindProviderTimeout, refineOverflow},
	// Anthropic's overloaded.
	529: {classTransient, kindProviderUnavailable, 0},
}

var (
	other4xx = verdict{classPermanent, kindInvalidParam, refineOverflow | refineBilling | refineAuth}
	// Anything from 500 up, 600+ included: the server failed.
	other5xx = verdict{classTransient, kindProviderError, refineOverflow}
	// An error inside a 2xx answer (an event stream's error event, or an
	// error object in a 200 JSON body) with no numeric code has no status
	// of its own. The request was accepted, so it was sound: the safe
	// default is transient, and the phrases may still find an overflow, a
	// billing stop or a credential failure in it.
	inBandDefault = verdict{classTransient, kindUpstreamError, refineOverflow | refineBilling | refineAuth}
)

// statusVerdict returns the default for an error status (>= 400) and its
// rule id: the profile's own meaning of the status first, then HTTP's.
func statusVerdict(prof profile, status int) (verdict, string) {
	if v, ok := prof.statuses[status]; ok {
		return v, statusRule("provider.status.", status)
	}
	if v, ok := statusDefaults[status]; ok {
		return v, statusRule("status.", status)
	}
	if status < 500 {
		return other4xx, "status.4xx"
	}
	return other5xx, "status.5xx"
}

// statusRule is prefix + status, from statusRules when the status has a
// rule of its own, so a classification does not build the name.
func statusRule(prefix string, status int) string {
	if n, ok := statusRules[prefix][status]; ok {
		return n
	}
	return prefix + strconv.Itoa(status)
}

var statusRules = func() map[string]map[int]string {
	m := map[string]map[int]string{"status.": {}, "provider.status.": {}}
	for st := range statusDefaults {
		m["status."][st] = "status." + strconv.Itoa(st)
	}
	for _, p := range providers {
		for st := range p.statuses {
			m["provider.status."][st] = "provider.status." + strconv.Itoa(st)
		}
	}
	return m
}()

// inBandRule is Result.Rule of a status default for an error inside a 2xx
// answer: the default's rule under "body.".
func inBandRule(rule string) string {
	if n, ok := inBandRules[rule]; ok {
		return n
	}
	return "body." + rule
}

var inBandRules = func() map[string]string {
	m := map[string]string{"status.4xx": "body.status.4xx", "status.5xx": "body.status.5xx"}
	for _, byStatus := range statusRules {
		for _, n := range byStatus {
			m[n] = "body." + n
		}
	}
	return m
}()

// statusOnlyRetries is what the OpenAI and Anthropic SDKs decide from the
// status alone: retry 408, 409, 429 and 5xx. The docs compare errsvc to it.
func statusOnlyRetries(status int) bool {
	return status == 408 || status == 409 || status == 429 || status >= 500
}
