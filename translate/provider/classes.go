package provider

// The closed class set of the Error Class Contract v1. A producer
// asserts it; the fuzz target and the table tests pin every result to it.
const (
	classTransient       = "transient"
	classPermanent       = "permanent"
	classAuthRequired    = "auth_required"
	classContextOverflow = "context_overflow"
)

// classes is the contract's ERROR_CLASS_WIRE_SET.
var classes = []string{classTransient, classPermanent, classAuthRequired, classContextOverflow}

// The Labby kinds (Labby agent error contract v1) a provider answer can read as. Result.Kind is
// always one of these wire strings when Class is set.
const (
	kindRateLimited         = "rate_limited"
	kindQuotaExceeded       = "quota_exceeded"
	kindContentTooLarge     = "content_too_large"
	kindAuthFailed          = "auth_failed"
	kindPermissionDenied    = "permission_denied"
	kindNotFound            = "not_found"
	kindInvalidParam        = "invalid_param"
	kindValidationFailed    = "validation_failed"
	kindTimeout             = "timeout"
	kindProviderTimeout     = "provider_timeout"
	kindProviderUnavailable = "provider_unavailable"
	kindProviderError       = "provider_error"
	kindServiceUnavailable  = "service_unavailable"
	kindBadGateway          = "bad_gateway"
	kindConflict            = "conflict"
	kindUpstreamError       = "upstream_error"
)

var kinds = []string{
	kindRateLimited, kindQuotaExceeded, kindContentTooLarge, kindAuthFailed,
	kindPermissionDenied, kindNotFound, kindInvalidParam, kindValidationFailed,
	kindTimeout, kindProviderTimeout, kindProviderUnavailable, kindProviderError,
	kindServiceUnavailable, kindBadGateway, kindConflict, kindUpstreamError,
}

// verdict is what a rule decides: the class, the kind, and which phrase
// refinements (phrases.go) may still change it.
type verdict struct {
	class  string
	kind   string
	refine refinement
}

// refinement is the set of phrase tables allowed to refine a verdict.
type refinement uint8

const (
	// refineOversize: a request larger than the rate-limit window itself
	// ("Request too large for gpt-4o ... on tokens per min") can never
	// succeed by waiting; it becomes context_overflow.
	refineOversize refinement = 1 << iota
	// refineOverflow: the oversize and the context-overflow phrases.
	refineOverflow
	// refineBilling: billing phrases give permanent quota_exceeded.
	refineBilling
	// refineAuth: credential phrases give auth_required, where a status
	// that names no cause (400, 422, 500) carries a credential failure in
	// words (xAI's 400 "Incorrect API key provided", a gateway's 500
	// "Unable to locate credentials").
	refineAuth
)
