package translate

import (
	"strconv"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/ablation"
	"github.com/errsvc/errsvc/translate/provider"
)

// The limit facet (TranslateResponse.limit): which limit the error hit,
// whose, until when, how much is left, and what to do about it. It is read
// from a provider answer's headers and body (translate/provider/limit.go),
// from a Labby envelope's or classified error's detail.limit (errsvc's own
// answers, so a round trip keeps it), from errsvc's own ErrorInfo metadata
// (limitKind, limitScope, limitDimension, limitResetAt), and otherwise from
// the kind (rate_limited, quota_exceeded, queue_saturated). A fact no source
// states stays empty; the scope is "unknown". The decision follows the
// answer's one retry decision (decision.go, provider.Decision).

// limitFacts is the model's limit facet.
type limitFacts struct {
	kind, dimension, scope, quotaID string
	resetAt                         time.Time
	// reference is when the answer was sent (its Date, else received_at):
	// what a relative reset is counted from; zero when the source gives
	// neither (a Labby envelope, a gRPC status).
	reference      time.Time
	remaining, max *uint64
	windows        []provider.LimitWindow
	// ownTerms says kind, dimension and scope are the classifier's
	// constants (provider.Limit's), which need no sanitising.
	ownTerms bool
}

// kindLimit is the limit kind the model's Labby kind means (its row's
// limit_kind, the contract's one statement of it), "" when none.
func kindLimit(m *model) string { return m.krow.GetLimitKind() }

// limitFromProvider takes the classifier's facet, its provider text
// sanitised.
func limitFromProvider(m *model, l *provider.Limit) {
	if l == nil {
		return
	}
	m.limitV = limitFacts{kind: l.Kind, dimension: l.Dimension, scope: l.Scope, quotaID: l.QuotaID,
		resetAt: l.ResetAt, reference: l.Reference, remaining: l.Remaining, max: l.Max, windows: l.Windows, ownTerms: true}
	f := &m.limitV
	if !l.OwnQuotaID() {
		f.quotaID = limitName(m, l.QuotaID)
	}
	for i := range f.windows {
		if w := &f.windows[i]; !w.OwnName() {
			w.QuotaID = limitName(m, w.QuotaID)
		}
	}
	m.limit = f
}

// limitFromQuotaFailure reads a foreign gRPC status's QuotaFailure into
// the facet (the kind's limit, else quota: a QuotaFailure names a quota).
func limitFromQuotaFailure(m *model, q *errdetails.QuotaFailure) {
	if q == nil || len(q.GetViolations()) == 0 {
		return
	}
	kind := kindLimit(m)
	if kind == "" {
		kind = provider.LimitQuota
	}
	var vs []provider.QuotaViolation
	for i, v := range q.GetViolations() {
		if i == 8 {
			break
		}
		qv := provider.QuotaViolation{Subject: v.GetSubject(), Description: v.GetDescription(), Metric: v.GetQuotaMetric(),
			ID: v.GetQuotaId(), Location: v.GetQuotaDimensions()["location"], Model: v.GetQuotaDimensions()["model"]}
		if v.GetQuotaValue() != 0 || v.GetQuotaId() != "" {
			// In the binary form an unset quota_value reads as 0
			// (GrpcCode's note): only a named quota's value is read.
			val := v.GetQuotaValue()
			qv.Value = &val
		}
		vs = append(vs, qv)
	}
	limitFromProvider(m, provider.LimitFromQuota(kind, vs))
}

// limitName is a limit's name: a header family's as it is, provider text
// (a QuotaFailure's quotaId) sanitised.
func limitName(m *model, s string) string {
	if provider.KnownLimitName(s) {
		return s
	}
	return m.sanitizeShort(s)
}

// limitFromDetail reads detail.limit as errsvc writes it.
func limitFromDetail(d *structpb.Struct) *limitFacts {
	lv := d.GetFields()["limit"].GetStructValue()
	if lv == nil || stringField(lv, "kind") == "" {
		return nil
	}
	f := &limitFacts{kind: stringField(lv, "kind"), dimension: stringField(lv, "dimension"),
		scope: stringField(lv, "scope"), quotaID: stringField(lv, "quota_id")}
	if t, err := time.Parse(time.RFC3339Nano, stringField(lv, "reset_at")); err == nil {
		f.resetAt = t.UTC()
	}
	f.remaining = countField(lv, "remaining")
	f.max = countField(lv, "limit")
	return f
}

func countField(s *structpb.Struct, key string) *uint64 {
	v, ok := s.GetFields()[key]
	if !ok {
		return nil
	}
	switch k := v.GetKind().(type) {
	case *structpb.Value_NumberValue:
		if k.NumberValue >= 0 && k.NumberValue < 1<<63 {
			n := uint64(k.NumberValue)
			return &n
		}
	case *structpb.Value_StringValue:
		if n, err := strconv.ParseUint(k.StringValue, 10, 64); err == nil {
			return &n
		}
	}
	return nil
}

// limitFromMetadata reads errsvc's own ErrorInfo metadata.
func limitFromMetadata(md map[string]string) *limitFacts {
	if md["limitKind"] == "" {
		return nil
	}
	f := &limitFacts{kind: md["limitKind"], dimension: md["limitDimension"], scope: md["limitScope"]}
	if t, err := time.Parse(time.RFC3339Nano, md["limitResetAt"]); err == nil {
		f.resetAt = t.UTC()
	}
	return f
}

// settleLimit completes the facet once the decision is settled: from the
// detail or the kind when no source gave one, with every open term
// sanitised (unknown terms pass through) and the scope "unknown" when
// unsaid; the Labby detail then carries it.
func settleLimit(m *model) {
	if !ablation.Growth { // bench/run.sh's ablation build: no facet at all
		m.limit = nil
		return
	}
	if m.limit == nil {
		m.limit = limitFromDetail(m.detail)
	}
	if m.limit == nil {
		if k := kindLimit(m); k != "" {
			m.limitV = limitFacts{kind: k, ownTerms: true}
			m.limit = &m.limitV
		}
	}
	if m.limit == nil {
		return
	}
	l := m.limit
	if !l.ownTerms {
		l.kind, l.dimension, l.scope = m.limitTerm(l.kind), m.limitTerm(l.dimension), m.limitTerm(l.scope)
	}
	if l.scope == "" {
		l.scope = provider.ScopeUnknown
	}
	if limitSaysMore(m) {
		m.detail = withLimit(m, m.detail, m.limit, limitDecision(m))
	}
}

// limitTerms are the limit facet's wire terms: its kinds, dimensions and
// scopes. The classifier writes only these, and each is its own sanitised
// form (TestLimitTermsAreClean), so they skip the sanitiser: run on them,
// it cost about a fifth of a provider answer's translation, and pushed
// the provider code out of the memo before ErrorInfo needed it.
var limitTerms = map[string]bool{
	provider.LimitRate: true, provider.LimitQuota: true, provider.LimitSpend: true,
	provider.LimitConcurrency: true, provider.LimitCapacity: true,
	provider.DimRequests: true, provider.DimTokens: true, provider.DimInputTokens: true,
	provider.DimOutputTokens: true, provider.DimConcurrent: true, provider.DimCredits: true,
	provider.ScopeKey: true, provider.ScopeProject: true, provider.ScopeOrganization: true,
	provider.ScopeModel: true, provider.ScopeRegion: true, provider.ScopeAccount: true, provider.ScopeUnknown: true,
}

// limitTerm is a limit kind, dimension or scope sanitised for metadata: a
// detail.limit a caller sent may carry any text.
func (m *model) limitTerm(v string) string {
	if limitTerms[v] {
		return v
	}
	return m.metadataValue(v)
}

// limitSaysMore says the facet holds more than the kind derives again (a
// kind of its own, a dimension, a scope, a reset, counts or a name): only
// then does the Labby detail carry it, so an envelope whose kind says it
// all stays as it was.
func limitSaysMore(m *model) bool {
	l := m.limit
	return l.kind != kindLimit(m) || l.dimension != "" || l.scope != provider.ScopeUnknown ||
		!l.resetAt.IsZero() || l.remaining != nil || l.max != nil || l.quotaID != ""
}

// limitDecision is what to do about the limit: the one retry decision
// says whether a retry helps, as every target says it (the class, and the
// recovery the envelope advises: quota_exceeded's reduce_work, same
// arguments never, is no retry of the same call even with its transient
// class); the kind says how.
func limitDecision(m *model) string {
	helps := retryHelps(m) && (m.action == "" || m.action == "retry_later")
	return provider.Decision(m.limit.kind, helps)
}

// limitRoom is where a leased model writes the facet's detail and answer,
// so a limit costs no allocation per translation.
type limitRoom struct {
	detail, inner structpb.Struct
	values        [8]structpb.Value
	strs          [6]structpb.Value_StringValue
	nums          [2]structpb.Value_NumberValue
	used, strUsed int
	out           errsvcv1.Limit
	resetAt       timestamppb.Timestamp
	resetText     [40]byte
	resetLen      int
	quota         anypb.Any
	quotaBytes    [256]byte
	infoBytes     [512]byte
	details       [3]*anypb.Any
	innerKind     structpb.Value_StructValue
	innerValue    structpb.Value
	windows       [4]errsvcv1.LimitWindow
	windowPtrs    [4]*errsvcv1.LimitWindow
	windowResets  [4]timestamppb.Timestamp
	// unanchoredNoted: a target that writes the headers (http_headers,
	// each gateway answer) said once why a reset has no t.
	unanchoredNoted bool
}

func (r *limitRoom) clear() {
	*r = limitRoom{}
}

// room is the leased model's limit room once per translation, else a new one.
func (m *model) limitRoom() *limitRoom {
	if r := m.reuse; r != nil {
		return handOut(&r.limitUsed, &r.limit)
	}
	return new(limitRoom)
}

func (r *limitRoom) str(s string) *structpb.Value {
	if r.used == len(r.values) || r.strUsed == len(r.strs) {
		return structpb.NewStringValue(s)
	}
	v, k := &r.values[r.used], &r.strs[r.strUsed]
	r.used++
	r.strUsed++
	k.StringValue = s
	v.Kind = k
	return v
}

func (r *limitRoom) num(n uint64, i int) *structpb.Value {
	if r.used == len(r.values) {
		return structpb.NewNumberValue(float64(n))
	}
	v, k := &r.values[r.used], &r.nums[i]
	r.used++
	k.NumberValue = float64(n)
	v.Kind = k
	return v
}

// withLimit is d with its limit member set: a new Struct (d may be the
// request's), in the leased model's room.
func withLimit(m *model, d *structpb.Struct, l *limitFacts, decision string) *structpb.Struct {
	r := m.limitRoom()
	var fields map[string]*structpb.Value
	if d != nil && d == &m.store.provider.detail {
		// The provider answer's detail is the model's own, built for this
		// translation and read by nothing before the encoders: the limit
		// member goes into its map, not into a copy of it.
		fields = d.Fields
	} else {
		fields = m.fieldsMap(limitDetailFields, len(d.GetFields())+1)
		for k, v := range d.GetFields() {
			fields[k] = v
		}
	}
	lf := m.fieldsMap(limitFields, 8)
	lf["kind"] = r.str(l.kind)
	lf["scope"] = r.str(l.scope)
	lf["decision"] = r.str(decision)
	if l.dimension != "" {
		lf["dimension"] = r.str(l.dimension)
	}
	if l.quotaID != "" {
		lf["quota_id"] = r.str(l.quotaID)
	}
	if !l.resetAt.IsZero() {
		m.limitRoomV = r
		lf["reset_at"] = r.str(resetText(m))
	}
	if l.remaining != nil {
		lf["remaining"] = r.num(*l.remaining, 0)
	}
	if l.max != nil {
		lf["limit"] = r.num(*l.max, 1)
	}
	r.inner.Fields = lf
	r.innerKind.StructValue = &r.inner
	r.innerValue.Kind = &r.innerKind
	fields["limit"] = &r.innerValue
	r.detail.Fields = fields
	m.limitRoomV = r
	return &r.detail
}

// encodeLimit writes the limit facet, absent when the error is not a limit.
func encodeLimit(m *model, resp *errsvcv1.TranslateResponse) {
	l := m.limit
	if l == nil {
		return
	}
	r := m.limitRoomV
	if r == nil {
		r = m.limitRoom()
	}
	out := &r.out
	out.Kind, out.Dimension, out.Scope, out.Decision = l.kind, l.dimension, l.scope, limitDecision(m)
	out.QuotaId, out.Remaining, out.Limit = l.quotaID, l.remaining, l.max
	if !l.resetAt.IsZero() {
		r.resetAt.Seconds, r.resetAt.Nanos = l.resetAt.Unix(), int32(l.resetAt.Nanosecond())
		out.ResetAt = &r.resetAt
	}
	out.Windows = r.windowPtrs[:0]
	for i, w := range l.windows {
		var ow *errsvcv1.LimitWindow
		var ts *timestamppb.Timestamp
		if i < len(r.windows) {
			ow, ts = &r.windows[i], &r.windowResets[i]
		} else {
			ow, ts = new(errsvcv1.LimitWindow), new(timestamppb.Timestamp)
		}
		ow.Dimension, ow.Remaining, ow.Limit, ow.QuotaId = w.Dimension, w.Remaining, w.Max, w.QuotaID
		if !w.ResetAt.IsZero() {
			ts.Seconds, ts.Nanos = w.ResetAt.Unix(), int32(w.ResetAt.Nanosecond())
			ow.ResetAt = ts
		}
		out.Windows = append(out.Windows, ow)
	}
	if len(out.Windows) == 0 {
		out.Windows = nil
	}
	resp.Limit = out
}

// limitHeaders are the rate-limit headers of http_headers: the IETF
// httpapi draft's RateLimit-Policy (q, the limit) and RateLimit (r, what
// remains; t, seconds to the reset), and the x-ratelimit-* headers the
// OpenAI-compatible clients read (reset as a Go duration, as OpenAI sends
// it). Only what the facet states: a reset is the limit's own, counted
// from the answer's Date (else received_at), never the retry wait (a
// retry may pass long before a window resets, or not before a later one
// does) and never errsvc's clock.
func limitHeaders(m *model, h map[string]string) {
	l := m.limit
	if l == nil {
		return
	}
	name := policyName(l)
	var t, reset string
	if !l.resetAt.IsZero() {
		if l.reference.IsZero() {
			r := m.limitRoomV
			if r == nil {
				r = m.limitRoom()
				m.limitRoomV = r
			}
			if !r.unanchoredNoted {
				r.unanchoredNoted = true
				m.noteCached(errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED, noteKey{format: "the limit's reset_at is not written as RateLimit's t or x-ratelimit-reset: the source gives no time to count it from (no Date header, no received_at), and errsvc's clock would make it up"})
			}
		} else {
			until := max(l.resetAt.Sub(l.reference), 0)
			// t is whole seconds (the draft's Integer), rounded up: a
			// client that waits t never comes back before the reset.
			t = strconv.FormatInt(int64((until+time.Second-1)/time.Second), 10)
			reset = until.String()
		}
	}
	if l.max != nil {
		v := name + ";q=" + strconv.FormatUint(*l.max, 10)
		if u := quotaUnit(l.dimension); u != "" {
			v += ";qu=" + u
		}
		h["RateLimit-Policy"] = v
	}
	if l.remaining != nil {
		v := name + ";r=" + strconv.FormatUint(*l.remaining, 10)
		if t != "" {
			v += ";t=" + t
		}
		h["RateLimit"] = v
	}
	suffix := ""
	if l.dimension == provider.DimRequests || l.dimension == provider.DimTokens {
		suffix = "-" + l.dimension
	}
	if l.max != nil {
		h["x-ratelimit-limit"+suffix] = strconv.FormatUint(*l.max, 10)
	}
	if l.remaining != nil {
		h["x-ratelimit-remaining"+suffix] = strconv.FormatUint(*l.remaining, 10)
	}
	if reset != "" {
		h["x-ratelimit-reset"+suffix] = reset
	}
	h[headerLimit] = errsvcLimitValue(m, l)
}

// headerLimit is errsvc's one header of its own for the facet, an RFC 9651
// Dictionary of Strings: kind, dimension, scope, quota_id and reset_at (RFC
// 3339, absolute). The draft's fields cannot carry them: RateLimit-Policy
// needs a quota size (q) and RateLimit a remaining count (r), which a spend
// cap or a provider out of capacity does not state; the draft has no kind
// or scope (pk is the partition's key, such as a hash of the caller's API
// key, which errsvc never knows, not whose limit it is); and t is relative
// to a moment the headers do not carry. Written whenever there is a facet,
// even one its kind derives: the status alone does not say it (Labby's
// quota_exceeded is a 413); http_error reads it back (readErrsvcLimit).
const headerLimit = "Errsvc-Limit"

// headerLimitFolded is headerLimit folded to lower case.
const headerLimitFolded = "errsvc-limit"

// errsvcLimitValue is headerLimit's value.
func errsvcLimitValue(m *model, l *limitFacts) string {
	b := make([]byte, 0, 96)
	b = append(b, "kind="...)
	b = appendSFString(b, l.kind)
	if l.dimension != "" {
		b = append(b, ", dimension="...)
		b = appendSFString(b, l.dimension)
	}
	b = append(b, ", scope="...)
	b = appendSFString(b, l.scope)
	if l.quotaID != "" {
		b = append(b, ", quota_id="...)
		b = appendSFString(b, l.quotaID)
	}
	if !l.resetAt.IsZero() {
		b = append(b, ", reset_at="...)
		b = appendSFString(b, resetText(m))
	}
	return string(b)
}

// appendSFString appends s as an RFC 9651 String, or as a Display String
// when it holds a byte a String cannot (a sanitised provider term may be
// any Unicode): a term passes through whole either way. Hand-written, not
// a library: the engine writes it on every http_headers answer of a limit.
func appendSFString(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, '"')
		for i := 0; i < len(s); i++ {
			if s[i] == '"' || s[i] == '\\' {
				b = append(b, '\\')
			}
			b = append(b, s[i])
		}
		return append(b, '"')
	}
	// A Display String is UTF-8 (RFC 9651 refuses one that is not); a
	// term is valid UTF-8 already when it came through protobuf, so this
	// only guards the rule.
	s = strings.ToValidUTF8(s, "\uFFFD")
	const hex = "0123456789abcdef"
	b = append(b, '%', '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '%' || c == '"' {
			b = append(b, '%', hex[c>>4], hex[c&0xf])
			continue
		}
		b = append(b, c)
	}
	return append(b, '"')
}

// policyName is the RateLimit and RateLimit-Policy item's name (the draft
// leaves it free): kind and dimension, as an RFC 9651 String of the
// characters a token would take, so every parser reads it.
func policyName(l *limitFacts) string {
	b := make([]byte, 0, 32)
	b = append(b, '"')
	add := func(s string) {
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '.':
				b = append(b, c)
			case c >= 'A' && c <= 'Z':
				b = append(b, c+'a'-'A')
			case c == '_':
				b = append(b, '-')
			}
		}
	}
	add(l.kind)
	if l.dimension != "" {
		b = append(b, '-')
		add(l.dimension)
	}
	return string(append(b, '"'))
}

// quotaUnits are RateLimit-Policy's qu per dimension. The draft registers
// "requests" (its default), "content-bytes" and "concurrent-requests";
// tokens and credits have no registered unit, and leaving qu out would say
// "requests", so they are written as the dimension's own name (a unit the
// registry may add; a client that knows none of them can still read q).
var quotaUnits = map[string]string{
	provider.DimRequests:     `"requests"`,
	provider.DimConcurrent:   `"concurrent-requests"`,
	provider.DimTokens:       `"tokens"`,
	provider.DimInputTokens:  `"input-tokens"`,
	provider.DimOutputTokens: `"output-tokens"`,
	provider.DimCredits:      `"credits"`,
}

// quotaUnit is the dimension's qu, "" when the dimension is unsaid or not
// one errsvc names (an unknown term stays in Errsvc-Limit).
func quotaUnit(dim string) string { return quotaUnits[dim] }

// quotaFailureDetail is the QuotaFailure grpc_status (and google_error)
// carries for a limit whose facet says more than its kind: one violation,
// the limit hit (subject its scope when known, description its kind and
// dimension, quota_metric its dimension, quota_id its name, quota_value
// its size), encoded with protowire into the limit room.
func quotaFailureDetail(m *model) *anypb.Any {
	l := m.limit
	if l == nil || !limitSaysMore(m) {
		return nil
	}
	r := m.limitRoomV
	if r == nil {
		r = m.limitRoom()
		m.limitRoomV = r
	}
	var v []byte = r.quotaBytes[:0]
	str := func(b []byte, n protowire.Number, s string) []byte {
		if s == "" {
			return b
		}
		b = protowire.AppendTag(b, n, protowire.BytesType)
		return protowire.AppendString(b, s)
	}
	if l.scope != provider.ScopeUnknown {
		v = str(v, 1, l.scope)
	}
	descLen := len(l.kind) + len(" limit")
	if l.dimension != "" {
		descLen += len(" on ") + len(l.dimension)
	}
	v = protowire.AppendTag(v, 2, protowire.BytesType)
	v = protowire.AppendVarint(v, uint64(descLen))
	v = append(append(v, l.kind...), " limit"...)
	if l.dimension != "" {
		v = append(append(v, " on "...), l.dimension...)
	}
	v = str(v, 4, l.dimension)
	v = str(v, 5, l.quotaID)
	if l.max != nil && *l.max > 0 && *l.max < 1<<63 {
		v = protowire.AppendTag(v, 7, protowire.VarintType)
		v = protowire.AppendVarint(v, *l.max)
	}
	n := len(v)
	b := protowire.AppendTag(v, 1, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(n))
	b = append(b, v...)
	r.quota.TypeUrl, r.quota.Value = "type.googleapis.com/google.rpc.QuotaFailure", b[n:]
	return &r.quota
}

// resetText is the facet's reset time in RFC 3339, written once into the
// limit room.
func resetText(m *model) string {
	l := m.limit
	if l.resetAt.IsZero() {
		return ""
	}
	r := m.limitRoomV
	if r == nil {
		r = m.limitRoom()
		m.limitRoomV = r
	}
	if r.resetLen == 0 {
		r.resetLen = len(l.resetAt.UTC().AppendFormat(r.resetText[:0], time.RFC3339Nano))
	}
	return string(r.resetText[:r.resetLen])
}

// readErrsvcLimit reads errsvc's own Errsvc-Limit header back (an
// http_error made of http_status and http_headers): its kind, dimension,
// scope, name and absolute reset replace what the classifier guessed from
// a bare status (a 429 reads as a rate limit; a spend cap's 402 or a
// capacity 503 says less); the counts stay the ones RateLimit and the
// x-ratelimit-* headers gave. A value that is not the Dictionary errsvc
// writes is ignored, with a note.
func readErrsvcLimit(m *model, headers map[string]string, folded bool) {
	var v string
	if folded {
		// Every name is lower case ASCII: the only one that folds to
		// Errsvc-Limit is its lower case spelling, so one lookup finds
		// what the walk below would.
		v = headers[headerLimitFolded]
	} else {
		for k, hv := range headers {
			if len(k) == len(headerLimit) && strings.EqualFold(k, headerLimit) {
				v = hv
				break
			}
		}
	}
	if v == "" {
		return
	}
	d, ok := sfDictionary(v)
	str := func(key string) string { return d[key] }
	kind := str("kind")
	if !ok || kind == "" {
		m.noteCached(errsvcv1.NoteCode_NOTE_CODE_FIELD_IGNORED, noteKey{format: "the Errsvc-Limit header is not the RFC 9651 Dictionary errsvc writes (a kind, at least); the limit is read from the other headers"})
		return
	}
	if m.limit == nil {
		m.limitV = limitFacts{}
		m.limit = &m.limitV
	}
	l := m.limit
	l.kind, l.dimension, l.scope, l.ownTerms = kind, str("dimension"), str("scope"), false
	l.quotaID = limitName(m, str("quota_id"))
	// A reset the header does not state stays the one the classifier
	// counted (RateLimit's t from the request's received_at), if any.
	if t, err := time.Parse(time.RFC3339Nano, str("reset_at")); err == nil {
		l.resetAt = t.UTC()
	}
	// The counts of the limit hit are the draft's q and r, which errsvc
	// writes for that limit only: the classifier picks a window by what is
	// left (none left), and a limit whose remaining is unsaid would lose
	// its size.
	if l.max == nil {
		l.max = sfCount(headers, "RateLimit-Policy", "q")
	}
	if l.remaining == nil {
		l.remaining = sfCount(headers, "RateLimit", "r")
	}
}

// sfCount is the parameter key of the first member of a Structured Field
// List header, when it is a non-negative Integer.
func sfCount(headers map[string]string, name, key string) *uint64 {
	var v string
	for k, hv := range headers {
		if strings.EqualFold(k, name) {
			v = hv
			break
		}
	}
	if v == "" {
		return nil
	}
	p, ok := sfFirstParams(v)
	if !ok {
		return nil
	}
	if n, err := strconv.ParseUint(p[key], 10, 64); err == nil && n < 1e15 {
		// RFC 9651 Integers have at most 15 digits.
		return &n
	}
	return nil
}
