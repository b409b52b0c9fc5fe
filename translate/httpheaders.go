package translate

import (
	"strconv"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Header and trailer names the retry loops people use read.
const (
	headerRetryAfter   = "Retry-After"
	headerRetryAfterMs = "retry-after-ms"
	headerShouldRetry  = "x-should-retry"
	// grpc-go's retry (gRFC A6) reads this trailer and ignores RetryInfo.
	trailerPushback = "grpc-retry-pushback-ms"
)

// encodeHTTPHeaders writes the headers a REST surface sends with
// http_status. The OpenAI and Anthropic SDKs read x-should-retry before
// their status rule (retry 408, 409, 429, >= 500), so it says exactly what
// errsvc decided: true for a transient answer, false for every other, which
// keeps a status-only loop from retrying a 500 nobody called transient. A
// wait travels only with a transient answer, as Retry-After in whole
// seconds (rounded up) and retry-after-ms, which those SDKs read first.
func encodeHTTPHeaders(m *model, resp *errsvcv1.TranslateResponse) {
	resp.HttpHeaders = retryHeaders(m)
}

func retryHeaders(m *model) map[string]string {
	if !retryHelps(m) {
		noteWaitWithheld(m)
		h := map[string]string{headerShouldRetry: "false"}
		limitHeaders(m, h)
		return h
	}
	h := map[string]string{headerShouldRetry: "true"}
	if ms, ok := waitMillis(m); ok {
		h[headerRetryAfter] = strconv.FormatUint(uint64(*m.waitSecs), 10)
		h[headerRetryAfterMs] = strconv.FormatUint(ms, 10)
	}
	limitHeaders(m, h)
	return h
}

// encodeGRPCMetadata writes the trailers a gRPC surface sends with
// grpc_status: grpc-retry-pushback-ms with the wait of a transient answer,
// -1 (do not retry) for every other; a transient answer without a wait
// sends nothing and the client's retry policy decides.
func encodeGRPCMetadata(m *model, resp *errsvcv1.TranslateResponse) {
	if !retryHelps(m) {
		noteWaitWithheld(m)
		resp.GrpcMetadata = map[string]string{trailerPushback: "-1"}
		return
	}
	if ms, ok := waitMillis(m); ok {
		resp.GrpcMetadata = map[string]string{trailerPushback: strconv.FormatUint(ms, 10)}
	}
}

// waitMillis is the wait in milliseconds, when the source gave one.
func waitMillis(m *model) (uint64, bool) {
	switch {
	case m.waitMs != nil:
		return uint64(*m.waitMs), true
	case m.waitSecs != nil:
		return uint64(*m.waitSecs) * 1000, true
	}
	return 0, false
}

// noteWaitWithheld says once why a wait the source carried is not a retry
// hint: a retry of a non-transient answer is not known to help.
func noteWaitWithheld(m *model) {
	if m.waitSecs == nil || m.waitWithheldNoted {
		return
	}
	m.waitWithheldNoted = true
	m.note(errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED, "the wait is not sent as a retry hint: the answer is not transient, so no automatic retry is known to help")
}
