# The planted bugs of docs/TESTING.md: each is one exact edit of one file
# (the text must occur exactly once). run.sh plants each alone, rewrites
# testdata/golden from the planted engine (so the golden test passes by
# construction) and runs every other test of translate/: a bug is caught
# when some test that does not read testdata/golden fails.
MUTANTS = [
    # google_error and gRPC statuses (issue: every answer agrees with its outside reference)
    ("google-code-own-status", "translate/gateway_answer.go", '"code":    float64(httpStatus),', '"code":    float64(m.httpStatus),'),
    ("google-http-own-status", "translate/gateway_answer.go", "resp.GoogleError = &errsvcv1.HttpAnswer{Status: httpStatus,", "resp.GoogleError = &errsvcv1.HttpAnswer{Status: m.httpStatus,"),
    ("code-table-503-502", "translate/status.go", '"INTERNAL": 500, "UNAVAILABLE": 503,', '"INTERNAL": 500, "UNAVAILABLE": 502,'),
    ("code-table-cancelled-500", "translate/status.go", '"OK": 200, "CANCELLED": 499,', '"OK": 200, "CANCELLED": 500,'),
    ("http-table-502-504-swapped", "translate/status.go", '\t502: "UNAVAILABLE",\n\t503: "UNAVAILABLE",\n\t504: "DEADLINE_EXCEEDED",', '\t502: "DEADLINE_EXCEEDED",\n\t503: "UNAVAILABLE",\n\t504: "UNAVAILABLE",'),
    ("reason-two-letters", "translate/status.go", "case len(reason) < 3:", "case len(reason) < 2:"),
    ("reason-no-cap", "translate/status.go", "if b.Len() == 63 {", "if b.Len() == 99 {"),
    ("unknown-class-unavailable", "translate/derive.go", "if c == codeUnavailable && !retryHelps(m) {", "if false && c == codeUnavailable && !retryHelps(m) {"),
    ("grpc-source-code-lost", "translate/grpc_source.go", "m.grpcCode, m.originalTerm, m.grpcCodeFromSource = name, name, true", "m.grpcCode, m.originalTerm, m.grpcCodeFromSource = \"\", name, true"),
    ("unknown-class-unavailable-fallback", "translate/derive.go", '\t\treturn "UNKNOWN"\n\t}\n\treturn c', '\t\treturn "UNAVAILABLE"\n\t}\n\treturn c'),
    # waits
    ("retryinfo-rounded-down", "translate/grpc_source.go", "ms := math.Ceil(float64(d) / float64(time.Millisecond))", "ms := math.Floor(float64(d) / float64(time.Millisecond))"),
    ("wait-ms-rounded-down", "translate/derive.go", "secs := (uint64(ms) + 999) / 1000", "secs := uint64(ms) / 1000"),
    ("wait-secs-rounded-down", "translate/derive.go", "whole := math.Ceil(secs)", "whole := math.Floor(secs)"),
    ("retry-after-header-ms-as-secs", "translate/httpheaders.go", "h[headerRetryAfter] = strconv.FormatUint(uint64(*m.waitSecs), 10)", "h[headerRetryAfter] = strconv.FormatUint(ms/1000, 10)"),
    ("pushback-secs", "translate/httpheaders.go", "resp.GrpcMetadata = map[string]string{trailerPushback: strconv.FormatUint(ms, 10)}", "resp.GrpcMetadata = map[string]string{trailerPushback: strconv.FormatUint(ms/1000, 10)}"),
    ("retryinfo-secs-only", "translate/status.go", "\t\t\tdelay = time.Duration(*m.waitMs) * time.Millisecond\n", "\t\t\tdelay = time.Duration(*m.waitMs/1000) * time.Second\n"),
    ("backoff-floor-dropped", "translate/handling.go", "\t\t\th.BackoffFloorSecs = &floor\n", "\t\t\t_ = floor\n"),
    ("provider-clamp-lower", "translate/provider/wait.go", "const MaxRetryAfterSecs = math.MaxUint32 / 1000", "const MaxRetryAfterSecs = 3600"),
    # one decision
    ("should-retry-always-true", "translate/httpheaders.go", 'return map[string]string{headerShouldRetry: "false"}', 'return map[string]string{headerShouldRetry: "true"}'),
    ("pushback-zero-for-no", "translate/httpheaders.go", 'resp.GrpcMetadata = map[string]string{trailerPushback: "-1"}', 'resp.GrpcMetadata = map[string]string{trailerPushback: "0"}'),
    ("unknown-class-never", "translate/decision.go", "\treturn m.krow.GetClass() == classTransient\n}", "\treturn false\n}"),
    ("caller-do-not-retry-ignored", "translate/decision.go", 'case m.callerAction && m.action == "do_not_retry" && retryHelps(m):', 'case false && m.callerAction && m.action == "do_not_retry" && retryHelps(m):'),
    ("caller-retry-later-ignored", "translate/decision.go", 'case m.callerAction && m.action == "retry_later" && m.sameArgs != "conditional" && !retryHelps(m):', 'case false && m.callerAction && m.action == "retry_later":'),
    ("producer-no-ignored", "translate/decision.go", 'case m.agentFromSource && m.agentRetry == "no" && retryHelps(m):', 'case false && m.agentFromSource && m.agentRetry == "no" && retryHelps(m):'),
    ("producer-yes-ignored", "translate/decision.go", "case m.agentFromSource && retryHint(m.agentRetry) && !retryHelps(m):", "case false && m.agentFromSource && retryHint(m.agentRetry) && !retryHelps(m):"),
    ("timeout-safety-ignored", "translate/decision.go", 'case !m.agentFromSource && m.agentRetry == "no" && retryHelps(m) && !m.classFromSource &&', 'case false && !m.agentFromSource && m.agentRetry == "no" && retryHelps(m) && !m.classFromSource &&'),
    ("derived-hint-not-followed", "translate/decision.go", "if !m.agentFromSource && retryHint(m.agentRetry) != helps {", "if false && !m.agentFromSource && retryHint(m.agentRetry) != helps {"),
    ("derived-action-not-followed", "translate/decision.go", "\t\t\tm.action, m.sameArgs = ar[0], ar[1]\n", "\t\t\t_ = ar\n"),
    ("follow-class-grpc-dropped", "translate/derive.go", "\t\tm.grpcCode = cr.GetGrpcCode()\n\t\tif !m.callerRecovery {", "\t\t_ = cr.GetGrpcCode()\n\t\tif !m.callerRecovery {"),
    ("handling-route-transient-only", "translate/handling.go", "\t\th.Route = cr.GetRoute()\n", "\t\th.Route = classRow(classTransient).GetRoute()\n"),
    ("health-counts-completed", "translate/handling.go", "\t\tcounts := false\n\t\th.CountsTowardHealth = &counts", "\t\tcounts := true\n\t\th.CountsTowardHealth = &counts"),
    # read back
    ("own-errorinfo-ignored", "translate/provider/classify.go", "\tif v, ok := ownVerdict(obj); ok {", "\tif v, ok := ownVerdict(obj); ok && false {"),
    ("own-domain-wrong", "translate/provider/classify.go", 'const OwnDomain = "errsvc.dev"', 'const OwnDomain = "errsvc.example"'),
    ("own-status-class-ignored", "translate/grpc_source.go", "\t\treadClass(m, term(m, c, prefix+\"class\"), prefix+\"class\")\n\t\tm.classFromSource = true\n\t\tfollowClass(m)", "\t\t_ = c"),
    ("should-retry-header-ignored", "translate/provider/classify.go", "\tif hv, ok := shouldRetry(h, status, v); ok {", "\tif hv, ok := shouldRetry(h, status, v); ok && false {"),
    # RFC 9110
    ("status-600-refused", "translate/http_error.go", "\tif s >= 100 && s <= 599 {\n\t\treturn s\n\t}", "\tif s >= 100 && s <= 599 || s > 0 {\n\t\treturn s\n\t}"),
    ("status-999-as-400", "translate/http_error.go", "\treturn 500\n}", "\treturn 400\n}"),
    # notes
    ("note-implies-empty", "translate/agent.go", 'case !m.hasClass || implied == m.class:\n\tcase implied == "":', 'case !m.hasClass || implied == m.class:\n\tcase implied == "" && false:'),
    ("message-templated-dropped", "translate/agent.go", "\t\tm.noteCached(errsvcv1.NoteCode_NOTE_CODE_MESSAGE_TEMPLATED,", "\t\tif false {\n\t\t}\n\t\t_ = errsvcv1.NoteCode_NOTE_CODE_MESSAGE_TEMPLATED\n\t\tm.noteCached(errsvcv1.NoteCode_NOTE_CODE_DEFAULT_ASSUMED,"),
    ("class-absent-empty-code", "translate/classified.go", '\t\tif code == "" {\n\t\t\tm.note(', '\t\tif code == "-" {\n\t\t\tm.note('),
    ("wait-withheld-note-dropped", "translate/httpheaders.go", "\tm.waitWithheldNoted = true\n\tm.note(", "\tm.waitWithheldNoted = true\n\treturn\n\tm.note("),
    ("target-unknown-silent", "translate/translate.go", '\t\t\tm.note(errsvcv1.NoteCode_NOTE_CODE_TARGET_UNKNOWN, "target %q is not a response field; ignored", clip(name))\n', ""),
    # gateway bodies
    ("openai-param-dropped", "translate/gateway_answer.go", '\t\t\t\t"param":   structpb.NewNullValue(),\n', ""),
    ("anthropic-type-wrong", "translate/gateway_answer.go", '\t\t\t"type": structpb.NewStringValue("error"),', '\t\t\t"type": structpb.NewStringValue("api_error"),'),
    ("openai-upstream-message", "translate/gateway_answer.go", '\t\t\t\t"message": structpb.NewStringValue(agentMessage(m)),\n\t\t\t\t"type":    structpb.NewStringValue(r.GetOpenaiType()),', '\t\t\t\t"message": structpb.NewStringValue(m.message),\n\t\t\t\t"type":    structpb.NewStringValue(r.GetOpenaiType()),'),
    ("gateway-status-ignores-row", "translate/gateway_answer.go", "\t\tStatus:  statusOr(r.GetOpenaiStatus(), m.httpStatus),", "\t\tStatus:  m.httpStatus,"),
    ("google-details-dropped", "translate/gateway_answer.go", '\t\t"details": details,\n', '\t\t"details": []any{},\n'),
    ("jsonrpc-code-default", "translate/jsonrpc.go", "\tcode := int32(-32603)\n\tif m.jsonrpcCode != nil {", "\tcode := int32(-32000)\n\tif m.jsonrpcCode != nil {"),
    # envelopes and agent
    ("agent-cap-3000", "translate/agent.go", "const AgentMessageCap = 300", "const AgentMessageCap = 3000"),
    ("envelope-wait-dropped", "translate/labby.go", "r.Action, r.SameArguments, r.Guidance, r.RetryAfterMs = m.action, m.sameArgs, m.guidance, m.waitMs", "r.Action, r.SameArguments, r.Guidance = m.action, m.sameArgs, m.guidance"),
    ("envelope-side-effects-origin", "translate/labby.go", "\te.SideEffects = m.sideEffects\n", "\te.SideEffects = \"unknown\"\n"),
    ("catch-all-safe", "translate/derive.go", '\tSameArguments:    "discouraged",\n\tHttpStatus:       500,', '\tSameArguments:    "safe",\n\tHttpStatus:       500,'),
    ("hints-relax-everything", "translate/derive.go", 'if m.sameArgs == "discouraged" && row.GetRelaxWithHints() && (m.readOnly || m.idempotent) {', 'if m.sameArgs == "discouraged" && (m.readOnly || m.idempotent) {'),
    ("agent-details-transient-lost", "translate/derive.go", '\t\t\tif m.hasClass && m.class == classTransient {\n\t\t\t\tset(key, valueTrue)', '\t\t\tif false {\n\t\t\t\tset(key, valueTrue)'),
    ("agent-origin-outside-the-contract", "translate/derive.go", '\tvalueServer  = structpb.NewStringValue("server")', '\tvalueServer  = structpb.NewStringValue("upstream")'),
    ("auth-alias-unread", "translate/derive.go", '\tcase class == "auth":', '\tcase class == "authentication":'),
    ("unknown-class-recognized", "translate/derive.go", "\tdefault:\n\t\tm.recognized = false", "\tdefault:\n\t\tm.recognized = true"),
    ("retry-by-reason-ignored", "translate/derive.go", "\tif r, ok := row.GetRetryByReason()[reason]; ok {\n\t\treturn r\n\t}", ""),
    ("idempotent-ignored", "translate/derive.go", "\tif r := row.GetRetryIfIdempotent(); r != \"\" && idempotent {", "\tif r := row.GetRetryIfIdempotent(); r != \"\" && false {"),
    ("readable-identifier-redacted", "translate/sanitize/value.go", "return s == \"\" || enumLike(s) || shortNumber(s) || proseLine(s) || readableIdentifier(s)", "return s == \"\" || enumLike(s) || shortNumber(s) || proseLine(s)"),
    ("metadata-unsanitised", "translate/status.go", '\t\t{"originalTerm", m.metadataValue(m.originalTerm)},', '\t\t{"originalTerm", m.originalTerm},'),
    ("errorinfo-domain-empty", "translate/status.go", "appendErrorInfo(m.store.infoBytes[:0], errorInfoReason(kind), ErrorInfoDomain, md[:])", 'appendErrorInfo(m.store.infoBytes[:0], errorInfoReason(kind), "", md[:])'),
    ("retryinfo-without-class", "translate/status.go", "\tif m.waitSecs != nil {\n\t\tdelay := time.Duration(*m.waitSecs) * time.Second", "\tif m.waitSecs != nil && m.hasClass {\n\t\tdelay := time.Duration(*m.waitSecs) * time.Second"),
]
