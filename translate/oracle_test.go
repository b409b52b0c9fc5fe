package translate

// Independent oracles: the facts of the producers and consumers, parsed
// from testdata/reference/README.md (the reference's tables, a byte-for-byte
// copy of ../shared/reference/README.md: internal/schemas'
// TestVendoredReferenceMatchesShared compares them) and the Agent Surface's
// machine-readable matrix (testdata/schemas), never from errsvc's own
// matrix or output. They run in every clone: no data lives outside it.
// Every row of the matrix and every golden vector, both the one on disk and
// the engine's answer to its request, is checked against them, so a vector
// that disagrees with an oracle fails even after `make golden` blesses it.
//
// Where errsvc follows a contract's text over the reference, the row is in
// oracleAllow with the reason; an allowed difference that the matrix no
// longer has fails too, so the list cannot go stale.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/golden"
)

// refKind is one kind of the reference classification table.
type refKind struct {
	origin, action, same string
	rev                  bool // "rev": discouraged, conditional with read-only/idempotent hints
	ra                   bool // retry_after_ms passes through
}

type reference struct {
	kinds       map[string]refKind
	catchAll    refKind
	sideEffects map[string]string // by origin
	overrides   map[string]string // side effects by kind
	http        map[string]int32  // by kind; httpDefault otherwise
	httpDefault int32
	keeps       map[string]bool // Code Mode keep-list
	cmRemap     map[string]string
	agent       map[string]refAgent
}

type refAgent struct {
	Retry     []string `json:"retry"`
	Cacheable bool     `json:"cacheable"`
	Details   []string `json:"details"`
}

var (
	refOnce sync.Once
	refVal  *reference
	refErr  error
)

// loadReference parses the reference once; a table that no longer parses
// is an error, never an empty oracle.
func loadReference(t *testing.T) *reference {
	t.Helper()
	refOnce.Do(func() {
		root, err := golden.ModuleRoot()
		if err != nil {
			refErr = err
			return
		}
		refVal, refErr = parseReference(filepath.Join(root, "testdata"))
	})
	if refErr != nil {
		t.Fatalf("reference: %v", refErr)
	}
	return refVal
}

func refSection(doc, heading string) (string, error) {
	i := strings.Index(doc, "\n## "+heading)
	if i < 0 {
		return "", fmt.Errorf("no section %q", heading)
	}
	rest := doc[i+4+len(heading):]
	if nl := strings.Index(rest, "\n"); nl >= 0 {
		rest = rest[nl+1:] // the rest of the heading line names the source file
	}
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest, nil
}

func words(list string) []string {
	var out []string
	for _, w := range strings.Split(list, ",") {
		w = strings.Trim(strings.TrimSpace(w), "`.")
		w = strings.TrimPrefix(w, "and ")
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

func parseReference(dir string) (*reference, error) {
	b, err := os.ReadFile(filepath.Join(dir, "reference", "README.md"))
	if err != nil {
		return nil, err
	}
	doc := string(b)
	r := &reference{kinds: map[string]refKind{}, sideEffects: map[string]string{}, overrides: map[string]string{},
		http: map[string]int32{}, keeps: map[string]bool{}, cmRemap: map[string]string{}}

	// Classification table and side effects.
	cls, err := refSection(doc, "Labby kind classification")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(cls, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), "|")
		if !strings.HasPrefix(line, "|") || len(cells) != 4 || strings.HasPrefix(strings.TrimSpace(cells[0]), "kinds") || strings.HasPrefix(strings.TrimSpace(cells[0]), "---") {
			continue
		}
		action := strings.TrimSpace(cells[2])
		k := refKind{origin: strings.TrimSpace(cells[1]), action: strings.TrimSuffix(action, " (RA)"), ra: strings.HasSuffix(action, "(RA)")}
		same := strings.TrimSpace(cells[3])
		if strings.HasPrefix(same, "rev") {
			k.rev, k.same = true, "discouraged"
		} else {
			k.same = same
		}
		if strings.TrimSpace(cells[0]) == "any other kind" {
			r.catchAll = k
			continue
		}
		for _, kind := range words(cells[0]) {
			if _, dup := r.kinds[kind]; dup {
				return nil, fmt.Errorf("kind %s in two rows", kind)
			}
			r.kinds[kind] = k
		}
	}
	if len(r.kinds) < 80 || r.catchAll.origin == "" {
		return nil, fmt.Errorf("classification table: %d kinds parsed, catch-all %+v", len(r.kinds), r.catchAll)
	}
	follows := regexp.MustCompile("([a-z_, ]+) give `([a-z_]+)`")
	for _, m := range follows.FindAllStringSubmatch(strings.SplitN(cls, "Override:", 2)[0], -1) {
		for _, o := range words(strings.TrimPrefix(m[1], ": ")) {
			o = strings.TrimSpace(strings.TrimPrefix(o, "origin:"))
			r.sideEffects[o] = m[2]
		}
	}
	ov := regexp.MustCompile(`Override: ([a-z_,\s]+) are ` + "`([a-z_]+)`").FindStringSubmatch(cls)
	if ov == nil || len(r.sideEffects) != 9 {
		return nil, fmt.Errorf("side effects: %v, overrides %v", r.sideEffects, ov)
	}
	for _, k := range words(strings.ReplaceAll(ov[1], "\n", " ")) {
		r.overrides[k] = ov[2]
	}

	// HTTP status per kind: "400 a, b · 401 c · … · 500 everything else."
	hs, err := refSection(doc, "Labby HTTP status per kind")
	if err != nil {
		return nil, err
	}
	hs = strings.SplitN(hs, "Known gaps", 2)[0]
	for _, group := range strings.Split(strings.ReplaceAll(hs, "\n", " "), "·") {
		group = strings.TrimSpace(group)
		status, kinds, ok := strings.Cut(group, " ")
		n, err := strconv.Atoi(status)
		if !ok || err != nil {
			return nil, fmt.Errorf("HTTP group %q", group)
		}
		if strings.HasPrefix(kinds, "everything else") {
			r.httpDefault = int32(n)
			continue
		}
		for _, k := range words(kinds) {
			r.http[k] = int32(n)
		}
	}
	if r.httpDefault != 500 || len(r.http) < 50 {
		return nil, fmt.Errorf("HTTP table: %d kinds, default %d", len(r.http), r.httpDefault)
	}

	// Code Mode keep-list and origin remap.
	cm, err := refSection(doc, "Code Mode: completed MCP `isError` results")
	if err != nil {
		return nil, err
	}
	keep := regexp.MustCompile(`Kinds kept as they are: ([a-z_,\s]+)\.`).FindStringSubmatch(cm)
	remap := regexp.MustCompile("In Code Mode, origins ([a-z_, ]+) are reported as `([a-z_]+)`").FindStringSubmatch(cm)
	if keep == nil || remap == nil {
		return nil, fmt.Errorf("Code Mode section: keep-list %v, remap %v", keep, remap)
	}
	for _, k := range words(strings.ReplaceAll(keep[1], "\n", " ")) {
		r.keeps[k] = true
	}
	for _, o := range words(strings.ReplaceAll(remap[1], " and ", ", ")) {
		r.cmRemap[o] = remap[2]
	}
	if len(r.keeps) != 23 || len(r.cmRemap) != 3 {
		return nil, fmt.Errorf("Code Mode: %d kept kinds, remap %v", len(r.keeps), r.cmRemap)
	}

	// The Agent Surface matrix.
	mb, err := os.ReadFile(filepath.Join(dir, "schemas", "agent-surface-error-matrix.json"))
	if err != nil {
		return nil, err
	}
	var matrix struct {
		Codes map[string]refAgent `json:"codes"`
	}
	if err := json.Unmarshal(mb, &matrix); err != nil {
		return nil, err
	}
	if len(matrix.Codes) != 16 {
		return nil, fmt.Errorf("agent matrix: %d codes", len(matrix.Codes))
	}
	r.agent = matrix.Codes
	return r, nil
}

// kind returns the reference row of a kind, or the catch-all.
func (r *reference) kind(k string) (refKind, bool) {
	if rk, ok := r.kinds[k]; ok {
		return rk, true
	}
	return r.catchAll, false
}

// sideEffectsOf is the reference's side effects for a kind.
func (r *reference) sideEffectsOf(k string) string {
	if s, ok := r.overrides[k]; ok {
		return s
	}
	rk, _ := r.kind(k)
	return r.sideEffects[rk.origin]
}

func (r *reference) httpOf(k string) int32 {
	if s, ok := r.http[k]; ok {
		return s
	}
	return r.httpDefault
}

// oracleAllow lists where errsvc departs from the reference, by "kind/field"
// (field: origin, action, same, side_effects, http, ra, keeps), with why.
// Every entry follows a contract's text where the reference says otherwise.
var oracleAllow = map[string]string{
	// The catch-all: the Labby error contract says discouraged, with no
	// relaxation by hints; the reference relaxes ("rev") and passes RA.
	"*/same": "the Labby error contract's unknown-kind catch-all says discouraged; the reference relaxes it with hints",

	// The Labby agent error contract's broad HTTP rules over the reference's 500 fall-through
	// (its "known gaps").
	"auth_required/http":           "Labby contract: authentication failure is 401 (the reference's known gap)",
	"permission_denied/http":       "Labby contract: forbidden scope/action is 403 (the reference's known gap)",
	"route_scope_denied/http":      "Labby contract: forbidden scope/action is 403",
	"feature_not_compiled/http":    "a missing feature is Unimplemented 501 (as the reference's not_supported)",
	"budget_exceeded/http":         "Labby contract: payload limits 413 (the reference's known gap: budget kinds fall to 500)",
	"call_budget_exceeded/http":    "Labby contract: payload limits 413 (budget kinds fall to 500 in the reference)",
	"snippet_budget_exceeded/http": "Labby contract: payload limits 413 (budget kinds fall to 500 in the reference)",
	"snippet_resolve_limit/http":   "Labby contract: payload limits 413 (budget kinds fall to 500 in the reference)",
	"artifact_too_large/http":      "Labby contract: payload limits 413 (budget kinds fall to 500 in the reference)",
	"result_too_large/http":        "Labby contract: payload limits 413 (budget kinds fall to 500 in the reference)",
	"access_setup_required/http":   "Labby contract: conflict/restart/stale state 409",
	"authority_changed/http":       "Labby contract: conflict/restart/stale state 409",
	"skill_digest_mismatch/http":   "Labby contract: conflict/restart/stale state 409",
	"skill_manifest_stale/http":    "Labby contract: conflict/restart/stale state 409",
	"invalid_code_mode_id/http":    "Labby contract: invalid input 422",
	"snippet_not_found/http":       "Labby contract: unknown resource 404",
	"invalid_cursor/http":          "Labby contract: invalid input 422",
	"bridge_transport_error/http":  "Labby contract: service unavailable 503",
	"runtime_unavailable/http":     "Labby contract: service unavailable 503",
	"unavailable/http":             "Labby contract: service unavailable 503",
	"provider_error/http":          "Labby contract: upstream gateway failure 502",
	"connection_error/http":        "Labby contract: upstream gateway failure 502",
	"connection_refused/http":      "Labby contract: upstream gateway failure 502",
	"dns_error/http":               "Labby contract: upstream gateway failure 502",
	"protocol_error/http":          "Labby contract: upstream gateway failure 502",
	"unexpected_response/http":     "Labby contract: upstream gateway failure 502 (the reference has no row)",
}

func allowed(kind, field string) bool {
	_, ok := oracleAllow[kind+"/"+field]
	return ok
}

// TestOracleMatrixRows checks every kind row of errsvc's matrix against the
// reference's classification, side effects, HTTP and Code Mode tables.
func TestOracleMatrixRows(t *testing.T) {
	ref := loadReference(t)
	used := map[string]bool{}
	differ := func(kind, field string, got, want any) {
		t.Helper()
		key := kind + "/" + field
		if got == want {
			return
		}
		if allowed(kind, field) {
			used[key] = true
			return
		}
		t.Errorf("kind %s: %s = %v, the reference says %v", kind, field, got, want)
	}
	for k := range ref.kinds {
		if !LabbyKinds.Has(k) {
			t.Errorf("reference kind %s is missing from the matrix", k)
		}
	}
	for _, term := range LabbyKinds.Terms {
		row := term.Row.(*errsvcv1.KindRow)
		k := term.Wire
		rk, known := ref.kind(k)
		name := k
		if !known {
			name = "*" // the catch-all applies to a kind outside the table
		}
		differ(name, "origin", row.GetOrigin(), rk.origin)
		differ(name, "action", row.GetAction(), rk.action)
		differ(name, "same", fmt.Sprint(row.GetSameArguments(), " rev=", row.GetRelaxWithHints()), fmt.Sprint(rk.same, " rev=", rk.rev))
		differ(name, "ra", row.GetPassesRetryAfter(), rk.ra)
		differ(k, "side_effects", sideEffectsFor(row, row.GetOrigin()), ref.sideEffectsOf(k))
		differ(k, "http", row.GetHttpStatus(), ref.httpOf(k))
		differ(k, "keeps", row.GetCodeModeKeeps(), ref.keeps[k])
		if !known && rk.ra != row.GetPassesRetryAfter() {
			// recorded above under "*/ra"
		}
	}
	// The errsvc catch-all itself.
	differ("*", "origin", catchAll.GetOrigin(), ref.catchAll.origin)
	differ("*", "action", catchAll.GetAction(), ref.catchAll.action)
	differ("*", "same", fmt.Sprint(catchAll.GetSameArguments(), " rev=", catchAll.GetRelaxWithHints()), fmt.Sprint(ref.catchAll.same, " rev=", ref.catchAll.rev))
	differ("*", "ra", catchAll.GetPassesRetryAfter(), ref.catchAll.ra)
	differ("*", "http", catchAll.GetHttpStatus(), ref.httpDefault)

	for _, term := range Origins.Terms {
		row := term.Row.(*errsvcv1.OriginRow)
		if want := ref.sideEffects[term.Wire]; row.GetSideEffects() != want {
			t.Errorf("origin %s: side_effects %s, the reference says %s", term.Wire, row.GetSideEffects(), want)
		}
		want := term.Wire
		if o, ok := ref.cmRemap[term.Wire]; ok {
			want = o
		}
		if row.GetCodeModeOrigin() != want {
			t.Errorf("origin %s: Code Mode reports %s, the reference %s", term.Wire, row.GetCodeModeOrigin(), want)
		}
	}
	for key, why := range oracleAllow {
		if why == "" || strings.Count(key, "/") != 1 {
			continue
		}
		if !used[key] {
			t.Errorf("oracleAllow %q (%s): the matrix no longer differs there; remove the entry", key, why)
		}
		// The contract itself says why, in the row's note.
		if kind := strings.Split(key, "/")[0]; kind != "*" && kindRow(kind).GetNote() == "" {
			t.Errorf("kind %s departs from the reference (%s) but its row has no note", kind, why)
		}
	}
}

// TestOracleAgentCodes checks the agent rows against the Agent Surface
// matrix and the per-reason rules of the reference.
func TestOracleAgentCodes(t *testing.T) {
	ref := loadReference(t)
	for codeName, want := range ref.agent {
		row := agentCodeRow(codeName)
		if row == nil {
			t.Errorf("%s is missing from the matrix", codeName)
			continue
		}
		if !sameSet(row.GetRetries(), want.Retry) || !sameSet(row.GetDetails(), want.Details) || row.GetCacheable() != want.Cacheable {
			t.Errorf("%s: retries %v details %v cacheable %v; Agent Surface: %+v", codeName, row.GetRetries(), row.GetDetails(), row.GetCacheable(), want)
		}
	}
	// The reference's rules within a code, run through the engine.
	cases := []struct {
		code    string
		details map[string]any
		want    string
	}{
		{"CONFIRMATION_INVALID", map[string]any{"reason": "expired"}, "with-confirmation"},
		{"CONFIRMATION_INVALID", map[string]any{"reason": "denied"}, "no"},
		{"CONFIRMATION_INVALID", map[string]any{"reason": "consumed"}, "no"},
		{"CONFIRMATION_INVALID", map[string]any{"reason": "mismatch"}, "no"},
		{"TIMEOUT", map[string]any{"idempotent": true}, "yes"},
		{"TIMEOUT", map[string]any{"idempotent": false}, "no"},
		{"PRECONDITION_FAILED", map[string]any{"reason": "binding-failed"}, "after-refresh"},
		{"EXECUTION_FAILED", map[string]any{"transient": true}, "after-delay"},
		{"EXECUTION_FAILED", map[string]any{}, "no"},
	}
	for _, c := range cases {
		for _, given := range append([]string{""}, ref.agent[c.code].Retry...) {
			b, _ := json.Marshal(map[string]any{"agent_error": map[string]any{"code": c.code, "retry": given, "details": c.details}})
			req := &errsvcv1.TranslateRequest{}
			if err := protojson.Unmarshal(b, req); err != nil {
				t.Fatal(err)
			}
			resp := mustTranslate(t, c.code, req)
			got := resp.GetAgentError().GetRetry()
			// Only the reason rules bind whatever the hint; the others pick the default.
			if _, reasonRule := c.details["reason"]; (reasonRule || given == "") && got != c.want {
				t.Errorf("%s %v retry %q: answered %q, the reference says %q", c.code, c.details, given, got, c.want)
			}
		}
	}
	// The same rules from the Labby side: a timeout is yes only when idempotent.
	for _, idem := range []bool{false, true} {
		resp := mustTranslate(t, "timeout", &errsvcv1.TranslateRequest{
			Source:  &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{Kind: "timeout", Message: "m"}},
			Context: &errsvcv1.TranslateContext{Idempotent: &idem}})
		want := map[bool]string{false: "no", true: "yes"}[idem]
		if got := resp.GetAgentError().GetRetry(); resp.GetAgentError().GetCode() == "TIMEOUT" && got != want {
			t.Errorf("labby timeout idempotent=%v: TIMEOUT retry %q, want %q", idem, got, want)
		}
	}
}

// oracleVector is one answer to check: a vector on disk, or the engine's
// answer to its request.
type oracleVector struct {
	name string
	req  *errsvcv1.TranslateRequest
	resp *errsvcv1.TranslateResponse
}

// goldenAnswers returns, for every well-formed vector on disk, its stored
// response and the engine's answer to its request.
func goldenAnswers(t *testing.T) []oracleVector {
	t.Helper()
	dir, err := golden.Dir()
	if err != nil {
		t.Fatal(err)
	}
	vs, err := golden.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []oracleVector
	for _, v := range vs {
		if v.Error != nil {
			continue
		}
		req := &errsvcv1.TranslateRequest{}
		stored := &errsvcv1.TranslateResponse{}
		if err := protojson.Unmarshal(v.Request, req); err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if err := protojson.Unmarshal(v.Response, stored); err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		out = append(out, oracleVector{v.Name + " (on disk)", req, stored})
		if live, err := Translate(req); err == nil {
			out = append(out, oracleVector{v.Name + " (engine)", req, live})
		} else {
			t.Errorf("%s: %v", v.Name, err)
		}
	}
	if len(out) < 400 {
		t.Fatalf("only %d answers to check", len(out))
	}
	return out
}

// vectorAllow lists golden answers that depart from an oracle, by vector
// name prefix and check, with why.
var vectorAllow = map[string]string{
	"classified.class.permanent/http":       "a bare class has no producer kind: the class row picks 422 so a status-only client never retries a permanent (Error Class Contract's quota rule)",
	"classified.class_wait.permanent/http":  "as classified.class.permanent",
	"classified.class.transient/http":       "a bare transient answers 503 (the class row), not upstream_error's 502",
	"classified.class_wait.transient/http":  "as classified.class.transient",
	"hostile.class.permanent/http":          "as classified.class.permanent",
	"hostile.class.transient/http":          "as classified.class.transient",
	"rule.retry_after_clamped/http":         "a bare transient answers 503 (the class row), not upstream_error's 502",
	"targets.class.permanent/http":          "as classified.class.permanent",
	"targets.class_wait.permanent/http":     "as classified.class.permanent",
	"targets.class.transient/http":          "as classified.class.transient",
	"targets.class_wait.transient/http":     "as classified.class.transient",
	"grpc.code.ABORTED/http":                "a gRPC status with no kind of its own is a bare class: ABORTED is transient and answers the class row's 503",
	"grpc.code.FAILED_PRECONDITION/http":    "a gRPC status with no kind of its own is a bare class: FAILED_PRECONDITION is permanent and answers the class row's 422",
	"grpc.details.failed_precondition/http": "as grpc.code.FAILED_PRECONDITION",
}

var vectorAllowUsed sync.Map

func vectorAllowed(name, check string) bool {
	base := strings.TrimSuffix(strings.TrimSuffix(name, " (on disk)"), " (engine)")
	_, ok := vectorAllow[base+"/"+check]
	if ok {
		vectorAllowUsed.Store(base+"/"+check, true)
	}
	return ok
}

// TestOracleGoldenVectors checks every golden answer against the reference.
func TestOracleGoldenVectors(t *testing.T) {
	ref := loadReference(t)
	for _, v := range goldenAnswers(t) {
		checkOracle(t, ref, v)
	}
	// The hostile set of the properties, too: hints and every kind in a
	// completed result, with answers no vector file holds.
	for _, pr := range hostileRequests() {
		checkOracle(t, ref, oracleVector{pr.name, pr.req, mustTranslate(t, pr.name, pr.req)})
	}
	for key, why := range vectorAllow {
		if _, ok := vectorAllowUsed.Load(key); !ok {
			t.Errorf("vectorAllow %q (%s): no answer differs there any more; remove the entry", key, why)
		}
	}
}

func checkOracle(t *testing.T, ref *reference, v oracleVector) {
	t.Helper()
	fail := func(check, format string, args ...any) {
		t.Helper()
		if !vectorAllowed(v.name, check) {
			t.Errorf("%s: %s: %s", v.name, check, fmt.Sprintf(format, args...))
		}
	}
	resp := v.resp
	le := resp.GetLabbyError()
	hinted := v.req.GetContext().GetIdempotent() || v.req.GetContext().GetReadOnly()

	// A Labby envelope whose recovery nobody supplied and no class overrides
	// follows the reference row of its kind.
	if src := v.req.GetLabbyError(); src != nil && le != nil && src.GetOrigin() == "" && src.GetRecovery() == nil &&
		src.GetSideEffects() == "" && src.GetClassification() == nil && src.GetAgentError() == nil {
		hinted = hinted || src.GetSafety().GetReadOnlyHint() || src.GetSafety().GetIdempotentHint()
		checkRecovery(fail, ref, le, hinted, false)
		if resp.HttpStatus != nil {
			if want := ref.httpOf(le.GetKind()); resp.GetHttpStatus() != want && !allowed(le.GetKind(), "http") && !(want == 500 && !LabbyKinds.Has(le.GetKind())) {
				fail("http", "kind %s answers HTTP %d, the reference %d", le.GetKind(), resp.GetHttpStatus(), want)
			}
		}
	}
	// Every answer whose envelope names a known kind answers that kind's
	// HTTP status (the Labby contract assigns HTTP per kind), unless an
	// agent payload is the source (its code decides).
	if le != nil && resp.HttpStatus != nil && v.req.GetAgentError() == nil && le.GetAgentError() == nil {
		_, inTable := ref.kinds[le.GetKind()]
		_, inHTTP := ref.http[le.GetKind()]
		if (inTable || inHTTP) && !allowed(le.GetKind(), "http") {
			if want := ref.httpOf(le.GetKind()); resp.GetHttpStatus() != want {
				fail("http", "kind %s answers HTTP %d, the reference %d", le.GetKind(), resp.GetHttpStatus(), want)
			}
		}
	}

	// A completed MCP result: the keep-list, original_kind, the origin and
	// the side effects of Code Mode.
	if mr := v.req.GetMcpToolResult(); mr != nil {
		cm := resp.GetCodeModeError()
		if cm == nil {
			fail("code_mode", "no code_mode_error for a tool result")
			return
		}
		raw := rawToolKind(mr)
		want := "tool_error"
		if ref.keeps[raw] {
			want = raw
		}
		if cm.GetKind() != want {
			fail("keeps", "raw kind %q became %q, the reference keeps %q", raw, cm.GetKind(), want)
		}
		if raw != "" && raw != want && cm.GetOriginalKind() == "" {
			fail("original_kind", "raw kind %q is not kept in original_kind", raw)
		}
		if cm.GetOrigin() != "tool_execution" {
			fail("origin", "a completed result reports origin %s, the reference tool_execution", cm.GetOrigin())
		}
		readOnly := mr.GetAnnotations().GetReadOnlyHint() || v.req.GetContext().GetReadOnly()
		if got := cm.GetSideEffects(); (got == "none_expected") != readOnly {
			fail("side_effects", "side_effects %s with read_only %v; the reference: none_expected only for a read-only tool", got, readOnly)
		}
		rk, _ := ref.kind(cm.GetKind())
		hinted = hinted || mr.GetAnnotations().GetReadOnlyHint() || mr.GetAnnotations().GetIdempotentHint()
		if cm.GetRecovery().GetAction() != rk.action {
			fail("action", "kind %s: action %s, the reference %s", cm.GetKind(), cm.GetRecovery().GetAction(), rk.action)
		}
		checkSame(fail, rk, cm.GetKind(), cm.GetRecovery().GetSameArguments(), hinted)
	}
	// A Code Mode error reports only the Code Mode origins, remapped.
	if cm := resp.GetCodeModeError(); cm != nil && le != nil {
		want := le.GetOrigin()
		if o, ok := ref.cmRemap[want]; ok {
			want = o
		}
		if cm.GetOrigin() != want {
			fail("code_mode_origin", "labby origin %s is reported as %s in Code Mode, the reference %s", le.GetOrigin(), cm.GetOrigin(), want)
		}
	}

	// The agent projection stays inside the Agent Surface matrix.
	if a := resp.GetAgentError(); a != nil {
		if row, ok := ref.agent[a.GetCode()]; ok {
			if AgentRetries.Has(a.GetRetry()) && !slices.Contains(row.Retry, a.GetRetry()) {
				fail("agent_retry", "%s retry %q outside %v", a.GetCode(), a.GetRetry(), row.Retry)
			}
			// Details a source supplied pass through losslessly; derived ones stay in the matrix.
			if v.req.GetAgentError() == nil && v.req.GetLabbyError().GetAgentError() == nil {
				for k := range a.GetDetails().GetFields() {
					if !slices.Contains(row.Details, k) {
						fail("agent_details", "%s details key %q outside %v", a.GetCode(), k, row.Details)
					}
				}
			}
		}
	}
}

// checkRecovery compares an envelope's origin, recovery and side effects
// with the reference row of its kind.
func checkRecovery(fail func(check, format string, args ...any), ref *reference, le *errsvcv1.LabbyError, hinted, _ bool) {
	k := le.GetKind()
	rk, known := ref.kind(k)
	name := k
	if !known {
		name = "*"
	}
	if le.GetOrigin() != rk.origin && !allowed(name, "origin") {
		fail("origin", "kind %s: origin %s, the reference %s", k, le.GetOrigin(), rk.origin)
	}
	if le.GetRecovery().GetAction() != rk.action && !allowed(name, "action") {
		fail("action", "kind %s: action %s, the reference %s", k, le.GetRecovery().GetAction(), rk.action)
	}
	if known || !allowed("*", "same") {
		checkSame(fail, rk, k, le.GetRecovery().GetSameArguments(), hinted)
	} else if le.GetRecovery().GetSameArguments() != "discouraged" {
		fail("same", "unknown kind %s: same_arguments %s, the Labby catch-all discouraged", k, le.GetRecovery().GetSameArguments())
	}
	if want := ref.sideEffectsOf(k); le.GetSideEffects() != want && !allowed(name, "side_effects") {
		fail("side_effects", "kind %s: side_effects %s, the reference %s", k, le.GetSideEffects(), want)
	}
}

func checkSame(fail func(check, format string, args ...any), rk refKind, kind, got string, hinted bool) {
	want := rk.same
	if rk.rev && hinted {
		want = "conditional"
	}
	if got != want {
		fail("same", "kind %s: same_arguments %s (hinted %v), the reference %s", kind, got, hinted, want)
	}
}

// rawToolKind reads the kind of a tool result's structured error the way
// the reference describes it, independently of the engine: structured
// content (or its error), else the first text block that parses as JSON
// with a kind or message.
func rawToolKind(r *errsvcv1.McpToolResult) string {
	pick := func(m map[string]any) (string, bool) {
		if inner, ok := m["error"].(map[string]any); ok {
			if _, k := inner["kind"]; k {
				return fmt.Sprint(inner["kind"]), true
			}
			if _, msg := inner["message"]; msg {
				return "", true
			}
		}
		k, hasK := m["kind"].(string)
		_, hasM := m["message"].(string)
		return k, hasK || hasM
	}
	if sc := r.GetStructuredContent().GetStructValue(); sc != nil {
		if k, ok := pick(sc.AsMap()); ok {
			return k
		}
	}
	for _, b := range r.GetContent() {
		f := b.AsMap()
		text, _ := f["text"].(string)
		if f["type"] != "text" || len(text) > 64<<10 {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(text), &m) != nil {
			continue
		}
		if k, ok := pick(m); ok {
			return k
		}
	}
	return ""
}
