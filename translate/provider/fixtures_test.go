package provider

import (
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/errsvc/errsvc/internal/golden"
)

// fixture is one file of testdata/providers (golden.ProviderFixture) and
// the file it came from.
type fixture struct {
	golden.ProviderFixture
	file string
}

// answer builds the Answer the fixture describes.
func (f *fixture) answer(t testing.TB) Answer {
	a := Answer{
		Provider: f.Answer.Provider,
		Status:   f.Answer.Status,
		Headers:  f.Answer.Headers,
		Body:     f.Answer.Body,
	}
	var err error
	if f.Answer.ReceivedAt != "" {
		if a.ReceivedAt, err = time.Parse(time.RFC3339, f.Answer.ReceivedAt); err != nil {
			t.Fatalf("%s: received_at: %v", f.file, err)
		}
	}
	if a.Now, err = time.Parse(time.RFC3339, f.Now); err != nil {
		t.Fatalf("%s: now: %v", f.file, err)
	}
	return a
}

// loadFixtures reads every fixture, in family order then by name.
func loadFixtures(t testing.TB) []fixture {
	t.Helper()
	all, err := golden.LoadProviderFixtures()
	if err != nil {
		t.Fatal(err)
	}
	fs := make([]fixture, len(all))
	for i, f := range all {
		fs[i] = fixture{ProviderFixture: f, file: f.Name + ".json"}
	}
	sort.SliceStable(fs, func(i, j int) bool {
		fi, fj := familyOf(fs[i].Answer.Provider), familyOf(fs[j].Answer.Provider)
		if fi != fj {
			return familyOrder[fi] < familyOrder[fj]
		}
		return fs[i].Name < fs[j].Name
	})
	return fs
}

// familyOrder is the order of the docs.
var familyOrder = map[family]int{familyOpenAI: 0, familyAnthropic: 1, familyGoogle: 2, familyBedrock: 3, familyGeneric: 4}

func TestFixtures(t *testing.T) {
	fs := loadFixtures(t)
	for _, f := range fs {
		t.Run(f.Name, func(t *testing.T) {
			a := f.answer(t)
			a.Limits = true
			got := Classify(a)
			w := f.Want
			lr := got
			if got.Class == "" {
				// Not an error: the facet is what its headers say remains.
				lr.Limit = SuccessLimit(a)
			}
			checkLimit(t, lr, w.Limit)
			if got.Class != w.Class || got.Kind != w.Kind {
				t.Errorf("class/kind = %q/%q, want %q/%q (rule %s)", got.Class, got.Kind, w.Class, w.Kind, got.Rule)
			}
			if g, e := secs(got.RetryAfterSecs), secs(w.RetryAfterSecs); g != e {
				t.Errorf("retry_after_secs = %s, want %s (source %q)", g, e, got.WaitSource)
			}
			if w.Rule != "" && got.Rule != w.Rule {
				t.Errorf("rule = %q, want %q", got.Rule, w.Rule)
			}
			if w.Code != "" && got.Code != w.Code {
				t.Errorf("code = %q, want %q", got.Code, w.Code)
			}
			if w.WaitSource != "" && got.WaitSource != w.WaitSource {
				t.Errorf("wait source = %q, want %q", got.WaitSource, w.WaitSource)
			}
			if w.Stream != nil && got.Stream != *w.Stream {
				t.Errorf("stream = %v, want %v", got.Stream, *w.Stream)
			}
			if w.AfterOutput != nil && got.AfterOutput != *w.AfterOutput {
				t.Errorf("after_output = %v, want %v", got.AfterOutput, *w.AfterOutput)
			}
			// Every 2xx stream error says whether output had begun.
			if got.Stream && w.AfterOutput == nil {
				t.Errorf("a stream error fixture must state after_output (got %v)", got.AfterOutput)
			}
			checkInvariants(t, got)
		})
	}
}

// The brief's floor per family, so coverage cannot quietly shrink.
func TestFixtureCounts(t *testing.T) {
	min := map[family]int{familyOpenAI: 35, familyAnthropic: 30, familyGoogle: 25, familyBedrock: 15, familyGeneric: 15}
	got := map[family]int{}
	providerNames := map[string]bool{}
	fs := loadFixtures(t)
	for _, f := range fs {
		got[familyOf(f.Answer.Provider)]++
		providerNames[strings.ToLower(f.Answer.Provider)] = true
		if strings.TrimSpace(f.Why) == "" {
			t.Errorf("%s: no why", f.Name)
		}
	}
	if len(fs) < 320 {
		t.Errorf("%d fixtures, want at least 320", len(fs))
	}
	if len(providerNames) < 20 {
		t.Errorf("%d provider values, want at least 20", len(providerNames))
	}
	for fam, n := range min {
		if got[fam] < n {
			t.Errorf("%s: %d fixtures, want at least %d", fam, got[fam], n)
		}
	}
}

func secs(p *uint32) string {
	if p == nil {
		return "absent"
	}
	return strings.TrimSpace(formatSeconds(float64(*p)))
}

// checkInvariants pins what every Result must satisfy; the fuzz target
// runs it on arbitrary answers.
func checkInvariants(t testing.TB, r Result) {
	t.Helper()
	if r.Class == "" {
		if r.Kind != "" || r.RetryAfterSecs != nil || r.Rule != "" || r.Code != "" || r.Message != "" || r.WaitSource != "" || r.Stream {
			t.Errorf("not an error, yet %+v", r)
		}
		return
	}
	if !contains(classes, r.Class) {
		t.Errorf("class %q is outside the contract's set", r.Class)
	}
	if !contains(kinds, r.Kind) {
		t.Errorf("kind %q is not an allowed Labby kind", r.Kind)
	}
	if r.Rule == "" {
		t.Error("no rule named")
	}
	if r.RetryAfterSecs != nil {
		if r.Class != classTransient {
			t.Errorf("retry_after_secs on a %s result", r.Class)
		}
		if *r.RetryAfterSecs > MaxRetryAfterSecs {
			t.Errorf("retry_after_secs %d above the clamp", *r.RetryAfterSecs)
		}
	}
	if (r.RetryAfterSecs != nil) != (r.WaitSource != "") {
		t.Errorf("wait %v with source %q", r.RetryAfterSecs, r.WaitSource)
	}
	if r.WaitClamped && (r.RetryAfterSecs == nil || *r.RetryAfterSecs != MaxRetryAfterSecs) {
		t.Errorf("wait clamped, yet %v", r.RetryAfterSecs)
	}
	if r.AfterOutput && !r.Stream {
		t.Error("after_output without a stream")
	}
	if r.Stream && r.InBody {
		t.Error("both a stream and a JSON body")
	}
	checkLimitTerms(t, r.Limit)
}

// checkLimitTerms holds a limit facet to what Limit promises its readers
// (translate skips sanitising them): kind, dimension and scope are this
// package's constants, and a name marked as a header family's is one.
func checkLimitTerms(t testing.TB, l *Limit) {
	t.Helper()
	if l == nil {
		return
	}
	dims := []string{"", DimRequests, DimTokens, DimInputTokens, DimOutputTokens, DimConcurrent, DimCredits}
	if !ownLimitKinds[l.Kind] {
		t.Errorf("limit kind %q is not a LimitKind constant", l.Kind)
	}
	if !contains(dims, l.Dimension) {
		t.Errorf("limit dimension %q is not a constant", l.Dimension)
	}
	if l.Scope != ScopeUnknown && !ownScopes[l.Scope] {
		t.Errorf("limit scope %q is not a constant", l.Scope)
	}
	if l.OwnQuotaID() && !KnownLimitName(l.QuotaID) {
		t.Errorf("quota id %q marked as a header family's", l.QuotaID)
	}
	for _, w := range l.Windows {
		if !contains(dims, w.Dimension) {
			t.Errorf("window dimension %q is not a constant", w.Dimension)
		}
		if w.OwnName() && !KnownLimitName(w.QuotaID) {
			t.Errorf("window name %q marked as a header family's", w.QuotaID)
		}
	}
}

// TestLimitHeaderNamesSayRatelimit: readWindows skips, without a lookup,
// every header whose name lacks "ratelimit".
func TestLimitHeaderNamesSayRatelimit(t *testing.T) {
	for _, n := range LimitHeaderNames() {
		if !strings.Contains(n, "ratelimit") {
			t.Errorf("readWindows would skip %q", n)
		}
	}
}

func contains(set []string, s string) bool {
	for _, e := range set {
		if e == s {
			return true
		}
	}
	return false
}

// checkLimit compares the limit facet with the fixture's, member by member
// (an empty expected member is not checked; scope defaults to unknown; a
// dimension "none" must be empty: the answer does not say).
func checkLimit(t *testing.T, got Result, want *golden.FixtureLimit) {
	t.Helper()
	if want == nil {
		return
	}
	l := got.Limit
	if want.Kind == "none" {
		if l != nil {
			t.Errorf("limit = %+v, want none", *l)
		}
		return
	}
	if l == nil {
		t.Fatalf("no limit facet, want kind %q", want.Kind)
	}
	if l.Kind != want.Kind {
		t.Errorf("limit.kind = %q, want %q", l.Kind, want.Kind)
	}
	switch {
	case want.Dimension == "none" && l.Dimension != "":
		t.Errorf("limit.dimension = %q, want none (the answer does not say)", l.Dimension)
	case want.Dimension != "" && want.Dimension != "none" && l.Dimension != want.Dimension:
		t.Errorf("limit.dimension = %q, want %q", l.Dimension, want.Dimension)
	}
	scope := want.Scope
	if scope == "" {
		scope = ScopeUnknown
	}
	if l.Scope != scope {
		t.Errorf("limit.scope = %q, want %q", l.Scope, scope)
	}
	if want.ResetAt != "" {
		wt, err := time.Parse(time.RFC3339Nano, want.ResetAt)
		if err != nil {
			t.Fatal(err)
		}
		if !l.ResetAt.Equal(wt) {
			t.Errorf("limit.reset_at = %s, want %s", l.ResetAt.Format(time.RFC3339Nano), want.ResetAt)
		}
	}
	if want.Remaining != nil && (l.Remaining == nil || *l.Remaining != *want.Remaining) {
		t.Errorf("limit.remaining = %v, want %d", u64(l.Remaining), *want.Remaining)
	}
	if want.Limit != nil && (l.Max == nil || *l.Max != *want.Limit) {
		t.Errorf("limit.limit = %v, want %d", u64(l.Max), *want.Limit)
	}
	if want.Decision != "" {
		if d := Decision(l.Kind, retryAdvised(got)); d != want.Decision {
			t.Errorf("limit decision = %q, want %q", d, want.Decision)
		}
	}
}

func u64(p *uint64) string {
	if p == nil {
		return "absent"
	}
	return strconv.FormatUint(*p, 10)
}

// retryAdvised is whether every target advises sending the same call again,
// as the engine decides it: a transient class, except the kind
// quota_exceeded, whose Labby row advises reduce_work with same arguments
// never (translate/limit.go, limitDecision).
func retryAdvised(r Result) bool {
	return r.Class == classTransient && r.Kind != kindQuotaExceeded
}

// TestFixtureWhyAgreesOnScope holds a fixture's why, which its golden and
// the playground's vectors carry to readers, to its hand-written want: a
// why that says the scope is left unknown must want no scope. Two whys had
// gone on saying so after their wants named the scope the words state (a
// Cohere trial key's, an xAI team's).
func TestFixtureWhyAgreesOnScope(t *testing.T) {
	for _, f := range loadFixtures(t) {
		why := strings.ToLower(f.Why)
		saysUnknown := strings.Contains(why, "scope stays unknown") || strings.Contains(why, "scope is unknown") ||
			strings.Contains(why, "scope unknown")
		if l := f.Want.Limit; saysUnknown && l != nil && l.Scope != "" && l.Scope != ScopeUnknown {
			t.Errorf("%s: why says the scope is unknown, want.limit.scope is %q: %s", f.file, l.Scope, f.Why)
		}
	}
}
