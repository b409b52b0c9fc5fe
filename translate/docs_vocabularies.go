package translate

import (
	"fmt"
	"strings"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// vocabulariesOfConsumers renders the vocabularies of the targets a request
// names (handling, http_headers, grpc_metadata, openai_error,
// anthropic_error, google_error, jsonrpc_error) and of the sources
// grpc_status, jsonrpc_error and http_error.
func vocabulariesOfConsumers(b *strings.Builder, plain func(Term) []string) {
	b.WriteString(`
## Targets answered on request

` + "`handling`, `http_headers`, `grpc_metadata`, `openai_error`, `anthropic_error`, `google_error`" + `
and ` + "`jsonrpc_error`" + ` are answered only when ` + "`targets`" + ` names them.

### One decision

Every target of one answer says the same retry decision (` + "`translate/decision.go`" + `): the
class and its ` + "`handling.route`" + `, ` + "`agent_error.retry`" + `, the Labby recovery, ` + "`x-should-retry`" + `,
` + "`grpc-retry-pushback-ms`" + ` and the gRPC code (only an answer that means retry says
` + "`UNAVAILABLE`" + `, which AIP-194 clients retry on their own). An answer is worth an automatic
retry exactly when its class is ` + "`transient`" + `; with no class, or one outside the four, its
kind's row decides (the classification target still invents none). Who decides, in order:

1. the caller: a Labby envelope's own ` + "`recovery.action`" + ` (` + "`do_not_retry`" + `, or ` + "`retry_later`" + `
   unless ` + "`same_arguments`" + ` is ` + "`conditional`" + `);
2. the producer's own Agent Surface ` + "`retry`" + ` hint (` + "`no`" + `, ` + "`yes`" + `, ` + "`after-delay`" + `);
3. a class the source produced (a provider's timeout is transient);
4. the Agent Surface matrix's rule for a class derived from a kind: a ` + "`TIMEOUT`" + ` not known to be
   idempotent is not retried (` + "`context.idempotent`" + ` or a read-only/idempotent hint allows it);
5. the class.

The class follows what 1, 2 or 4 decided, with a ` + "`caller_override`" + ` note naming who decided,
and every derived hint follows the class.

- ` + "`handling`" + `: ` + "`route`" + ` and ` + "`same_provider_alternatives_dead`" + ` from the class's row
  (absent for no class or a class outside the four: the consumer's own policy decides);
  ` + "`backoff_floor_secs`" + ` is the transient answer's wait; ` + "`counts_toward_health`" + ` and
  ` + "`log_level`" + ` from the origin's row (a completed MCP ` + "`isError`" + ` result never counts);
  ` + "`cacheable`" + ` from the agent code's row (the Agent Surface matrix).
- ` + "`http_headers`" + `: ` + "`x-should-retry: true`" + ` for a transient answer and ` + "`false`" + ` for every
  other (the OpenAI and Anthropic SDKs read it before their status rule); with a transient
  answer's wait, ` + "`Retry-After`" + ` (whole seconds, rounded up) and ` + "`retry-after-ms`" + `. A wait on
  a non-transient answer is not sent, with a note.
- ` + "`grpc_metadata`" + `: ` + "`grpc-retry-pushback-ms`" + ` with a transient answer's wait, ` + "`-1`" + ` for
  every non-transient answer, nothing for a transient one without a wait (the client's
  retry policy decides).
- ` + "`openai_error`, `anthropic_error`" + `: status, the headers above and the provider's body, from
  the first matching row of GatewayAnswer below; ` + "`param`" + ` is always null.
- ` + "`google_error`" + `: AIP-193's HTTP JSON, ` + "`status`" + ` grpc_status's code name, ` + "`code`" + ` and the
  answer's HTTP status that code's HTTP mapping in google/rpc/code.proto (grpc-gateway's
  ` + "`HTTPStatusFromCode`" + `: CANCELLED 499, FAILED_PRECONDITION 400, UNAVAILABLE 503, ...), not
  ` + "`http_status`" + `; ` + "`details`" + ` grpc_status's ErrorInfo and RetryInfo. Read back through
  ` + "`provider_response`" + ` or ` + "`http_error`" + `, the errsvc.dev ErrorInfo's class decides.
- ` + "`jsonrpc_error`" + `: the source's JSON-RPC code, else the origin's; ` + "`data`" + ` is the complete
  Labby envelope.

Every message in these bodies is the agent-safe message of ` + "`agent_error`" + ` (templated from
the matrix, never upstream text); the Labby envelope in ` + "`jsonrpc_error.data`" + ` carries the
sanitised Labby message.
`)
	section(b, HandlingRoutes, []string{"route", "meaning"}, plain)
	section(b, LogLevels, []string{"log level", "meaning"}, plain)
	section(b, GatewayAnswers, []string{"answer", "class", "agent codes", "kinds", "HTTP at least", "OpenAI status", "OpenAI type", "OpenAI code", "Anthropic status", "Anthropic type", "meaning"},
		func(t Term) []string {
			r := t.Row.(*errsvcv1.GatewayAnswerRow)
			status := func(s int32) string {
				if s == 0 {
					return "the answer's"
				}
				return fmt.Sprint(s)
			}
			min := "—"
			if r.GetMinHttpStatus() != 0 {
				min = fmt.Sprint(r.GetMinHttpStatus())
			}
			class := r.GetClass()
			if class == "" {
				class = "none or unrecognised"
			}
			code := r.GetOpenaiCode()
			if code == "" {
				code = "null"
			}
			return []string{tick(t.Wire), class, orDash(strings.Join(r.GetAgentCodes(), ", ")), orDash(strings.Join(r.GetKinds(), ", ")), min,
				status(r.GetOpenaiStatus()), r.GetOpenaiType(), code, status(r.GetAnthropicStatus()), r.GetAnthropicType(), t.Meaning}
		})
	b.WriteString(`
## The limit facet

` + "`limit`" + ` is answered with the default targets whenever the error is a limit, and is absent
otherwise: ` + "`kind`" + `, ` + "`dimension`" + `, ` + "`scope`" + ` (` + "`unknown`" + ` when the source does not say: none is
invented), ` + "`reset_at`" + ` (absolute, counted from the answer's ` + "`Date`" + ` header, else ` + "`received_at`" + `; never
from errsvc's clock), ` + "`remaining`" + ` and ` + "`limit`" + ` where the provider says them, ` + "`quota_id`" + `, every
window the answer reported, and ` + "`decision`" + ` (also ` + "`handling.limit_decision`" + `). The terms are
open strings: an unknown one passes through. It is read from provider answers
(docs/PROVIDERS.md, "Limits"), a foreign ` + "`grpc_status`" + `'s QuotaFailure, errsvc's own ErrorInfo
metadata (` + "`limitKind`, `limitDimension`, `limitScope`, `limitResetAt`" + `) and a Labby envelope's
` + "`detail.limit`" + `, else from the kind (its row's limit kind:
` + kindLimitList() + `). The decision follows the one decision above: an answer no retry
helps is ` + "`stop_and_tell_a_person`" + ` whatever its kind (a spend cap is never retried); otherwise
capacity fails over, concurrency sends fewer in flight, and any other limit waits until it resets.
` + "`grpc_status`" + ` and ` + "`google_error`" + ` carry a ` + "`google.rpc.QuotaFailure`" + ` and ` + "`http_headers`" + ` the IETF
httpapi draft's ` + "`RateLimit`/`RateLimit-Policy`" + ` and ` + "`x-ratelimit-*`" + ` when the facet says more than the kind.
`)
	section(b, LimitKinds, []string{"limit kind", "meaning"}, plain)
	section(b, LimitDimensions, []string{"dimension", "meaning"}, plain)
	section(b, LimitScopes, []string{"scope", "meaning"}, plain)
	section(b, LimitDecisions, []string{"decision", "meaning"}, plain)
	b.WriteString(`
## Sources grpc_status, jsonrpc_error and http_error

A ` + "`grpc_status`" + ` whose ErrorInfo has errsvc's domain (` + "`" + ErrorInfoDomain + "`" + `) is read back from its
metadata (kind, class, agentCode, retry, originalTerm) and RetryInfo, so it round-trips exactly.
Any other is classed by its code's row below; the message is untrusted. A ` + "`jsonrpc_error`" + `
whose ` + "`data`" + ` is a Labby envelope is read as that envelope; any other by its code's row. An
` + "`http_error`" + ` is read by the provider classifier's generic family (docs/PROVIDERS.md).
`)
	section(b, GrpcCodes, []string{"gRPC code", "number", "Labby kind", "class", "permanent when", "meaning", "note"}, func(t Term) []string {
		r := t.Row.(*errsvcv1.GrpcCodeRow)
		when := "—"
		if len(r.GetPermanentReasons()) > 0 {
			when = "ErrorInfo reason " + strings.Join(r.GetPermanentReasons(), ", ") + " (kind " + r.GetPermanentKind() + ")"
		}
		kind := r.GetLabbyKind()
		if kind == "" {
			kind = "the class's"
		}
		return []string{tick(t.Wire), fmt.Sprint(r.GetCode()), kind, orDash(r.GetClass()), when, t.Meaning, orDash(r.GetNote())}
	})
	section(b, JSONRPCCodes, []string{"code", "name", "Labby kind", "class", "HTTP", "retired", "meaning", "note"}, func(t Term) []string {
		r := t.Row.(*errsvcv1.JsonRpcCodeRow)
		http := "the kind's"
		if r.GetHttpStatus() != 0 {
			http = fmt.Sprint(r.GetHttpStatus())
		}
		return []string{tick(t.Wire), r.GetName(), r.GetLabbyKind(), orDash(r.GetClass()), http, fmt.Sprint(r.GetRetired()), t.Meaning, orDash(r.GetNote())}
	})
	b.WriteString("\nAny other code (application-defined) reads as `server_error` with no class, with a note.\n")
}

// kindLimitList names each Labby kind that means a limit with its limit
// kind, as the rows declare them: "`rate_limited` rate, ...".
func kindLimitList() string {
	var parts []string
	for _, t := range LabbyKinds.Terms {
		if k := t.Row.(*errsvcv1.KindRow).GetLimitKind(); k != "" {
			parts = append(parts, "`"+t.Wire+"` "+k)
		}
	}
	return strings.Join(parts, ", ")
}
