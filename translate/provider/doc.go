// Package provider is errsvc's producer-side classifier of raw model-provider
// HTTP answers. It reads one upstream answer (status, headers, body) and
// produces the Error Class Contract's class (Error Class Contract v1): transient,
// permanent, auth_required or context_overflow, with retry_after_secs
// normalised from whatever shape the provider used, plus the Labby kind the
// answer reads as. Producers classify so consumers never parse status codes,
// headers or message text; this package is where that parsing lives.
//
// Classify applies its rules in this order; the first rule that decides wins,
// and later rules may only refine what earlier ones left open:
//
//  1. Find the error object. A JSON body in one of the known shapes (OpenAI
//     {"error":{...}}, Anthropic {"type":"error","error":{...}}, a
//     google.rpc.Status, optionally wrapped in a JSON array, Bedrock
//     {"message"} with x-amzn-ErrorType or __type, any JSON with
//     error/message/code/type), an SSE stream's error event (including
//     OpenRouter's finish_reason "error" and Bedrock's stream exceptions),
//     or plain text. An answer below 400 (a 2xx, or 0 when the status is
//     unknown) is an error only through an event stream's error event
//     (Result.Stream, with Result.AfterOutput when model output came
//     first) or an explicit error object in its JSON body (Result.InBody);
//     otherwise Classify returns the zero Result. Inside such an answer a
//     numeric error.code of 400-599 stands for the status.
//  2. Structured codes, per family, from tables (codes.go), then those of
//     the body's shape, then those of an upstream a gateway relayed
//     (OpenRouter's metadata.raw, read by metadata.provider_name's family).
//     The contract's ordering rule: code/body discrimination runs before
//     status defaults, so a 429 insufficient_quota is permanent and a 401
//     account_deactivated is permanent too, while a 403 authentication code
//     stays auth_required.
//  3. The x-should-retry header, where no code decided (shouldRetry): it
//     moves a status default between transient and permanent, both ways,
//     and never refines 401 or 403 (only a code may) or context_overflow.
//  4. Status defaults (status.go): the provider profile's own statuses
//     (family.go: Groq's 498 is capacity, Cohere's a bad token), then 401
//     auth_required, 403 permanent, 413 context_overflow,
//     408/409/424/425/429/499 and 5xx transient (501 excepted), other 4xx
//     permanent. A 429 that no code explained is a quota the producer
//     cannot tell apart, so it takes the contract's safe default, transient.
//  5. Message phrases, last and only to refine (phrases.go): overflow
//     phrases turn a permanent (or, without rate-limit wording, a
//     transient) status default or a generic invalid-request code into
//     context_overflow; credential phrases turn a cause-less 400, 422 or 500
//     into auth_required; billing phrases turn an unexplained 429 into
//     permanent. A phrase never overrides a specific code, so a 429 whose
//     code is context_length_exceeded stays context_overflow whatever its
//     message says about rate limits. The one refinement of a specific code
//     is the oversize phrase on a window rate-limit code ("Request too
//     large for gpt-4o ... on tokens per min"): a request larger than the
//     window never fits, so it is context_overflow, not a wait.
//  6. The wait (wait.go), only for a transient result: the first source in
//     the profile's list that parses gives RetryAfterSecs, rounded up to
//     whole seconds. There is no policy cap (a longer producer value wins;
//     capping is the consumer's); only the wire's bound MaxRetryAfterSecs
//     applies, and Result.WaitClamped says when it cut. A wait never turns
//     a permanent, auth_required or context_overflow answer into transient.
//
// A body is read as encoding/json would decode it (the first JSON value
// only; the last of duplicate keys; numbers as their literal text; invalid
// UTF-8 and unpaired surrogates as U+FFFD; nesting bounded at 10,000), but
// by internal/jsonread in one pass without building a map tree, so
// classifying a storm of identical answers costs almost no allocation.
//
// Result.Message is the provider's raw text. It may echo the request or a
// credential, so this package never logs it and callers must sanitise it.
package provider
