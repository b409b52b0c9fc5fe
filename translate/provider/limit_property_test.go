package provider

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/errsvc/errsvc/internal/secrets"
)

// The window a limit facet names, by the rules its documentation states
// (SuccessLimit, readLimit), over header sets drawn afresh on every run
// (ERRSVC_PROPERTY_SEED replays one), each rule computed here on its own
// terms instead of by tighter and the hit loop:
//
//   - a 2xx answer names the tightest window: one with nothing left (the
//     latest to reset), else the smallest share left (remaining / limit,
//     compared as exact fractions), else the fewest left;
//   - a 429 names the window that was hit: of those with nothing left,
//     the latest to reset (every one must reset before a retry passes).
//
// Draws with a tie under the rule are skipped: the documentation does not
// order them.
func TestLimitFacetNamesTheWindowItsRuleSays(t *testing.T) {
	seed := secrets.Seed()
	rng := rand.New(rand.NewPCG(seed, 42))
	date := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	checked := map[string]int{}
	for n := 0; n < 4000; n++ {
		ws, withMax := drawWindows(rng, date)
		if len(ws) == 0 {
			continue
		}
		h := map[string]string{"date": date.Format(http.TimeFormat)}
		for _, w := range ws {
			w.write(h, date, withMax)
		}
		for _, status := range []int{200, 429} {
			want, ok := ruleWindow(ws, status, withMax)
			if !ok {
				continue
			}
			a := Answer{Provider: "anthropic", Status: status, Headers: h, Limits: true, Now: date}
			var l *Limit
			if status == 200 {
				a.Body = `{"id":"msg_1","type":"message","content":[]}`
				l = SuccessLimit(a)
			} else {
				a.Body = `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`
				l = Classify(a).Limit
			}
			what := fmt.Sprintf("status %d, %v (ERRSVC_PROPERTY_SEED=%d)", status, ws, seed)
			if l == nil {
				t.Fatalf("%s: no limit facet", what)
			}
			if l.Remaining == nil || *l.Remaining != want.remaining || !l.ResetAt.Equal(want.reset) {
				t.Fatalf("%s: named remaining %s reset %s, want %s's (%d, %s)", what, u64(l.Remaining), l.ResetAt.Format(time.RFC3339), want.family.dim, want.remaining, want.reset.Format(time.RFC3339))
			}
			if status == 200 && l.Dimension != want.family.dim {
				t.Fatalf("%s: dimension %q, want %q", what, l.Dimension, want.family.dim)
			}
			checked[fmt.Sprintf("%d %v", status, withMax)]++
		}
	}
	// Every rule met often enough to fail: both statuses, with limits and
	// without.
	for _, k := range []string{"200 true", "200 false", "429 true", "429 false"} {
		if checked[k] < 200 {
			t.Errorf("only %d draws checked %q: %v", checked[k], k, checked)
		}
	}
}

// propWindow is one drawn window: a family of anthropic-ratelimit-*
// headers (an absolute reset) or of x-ratelimit-* (a reset after a
// duration counted from Date).
type propWindow struct {
	family         headerFamily
	remaining, max uint64
	reset          time.Time
}

func (w propWindow) String() string {
	return fmt.Sprintf("%s %d/%d reset %s", w.family.remaining, w.remaining, w.max, w.reset.Format("15:04:05"))
}

func (w propWindow) write(h map[string]string, date time.Time, withMax bool) {
	h[w.family.remaining] = strconv.FormatUint(w.remaining, 10)
	if withMax {
		h[w.family.limit] = strconv.FormatUint(w.max, 10)
	}
	if w.family.absolute {
		h[w.family.reset] = w.reset.Format(time.RFC3339)
	} else {
		h[w.family.reset] = strconv.Itoa(int(w.reset.Sub(date)/time.Second)) + "s"
	}
}

// propFamilies are the families drawn from, each with its own dimension.
var propFamilies = []headerFamily{
	{DimRequests, "anthropic-ratelimit-requests-limit", "anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset", true},
	{DimInputTokens, "anthropic-ratelimit-input-tokens-limit", "anthropic-ratelimit-input-tokens-remaining", "anthropic-ratelimit-input-tokens-reset", true},
	{DimOutputTokens, "anthropic-ratelimit-output-tokens-limit", "anthropic-ratelimit-output-tokens-remaining", "anthropic-ratelimit-output-tokens-reset", true},
	{DimTokens, "x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens", false},
}

// drawWindows draws two to four windows, each with a limit (withMax) or
// none, often with nothing left, with resets a second to a day away.
func drawWindows(rng *rand.Rand, date time.Time) ([]propWindow, bool) {
	withMax := rng.IntN(2) == 0
	var ws []propWindow
	for _, f := range propFamilies {
		if rng.IntN(4) == 0 {
			continue
		}
		max := uint64(1 + rng.IntN(1_000_000))
		if rng.IntN(3) == 0 {
			max = uint64(1 + rng.IntN(20))
		}
		rem := uint64(rng.Int64N(int64(max) + 1))
		if rng.IntN(3) == 0 {
			rem = 0
		}
		reset := date.Add(time.Duration(1+rng.IntN(86_400)) * time.Second)
		ws = append(ws, propWindow{family: f, remaining: rem, max: max, reset: reset})
	}
	if len(ws) < 2 {
		return nil, false
	}
	return ws, withMax
}

// ruleWindow is the window the documented rule names, and false when the
// rule leaves a tie (or, for a 429, no window has nothing left).
func ruleWindow(ws []propWindow, status int, withMax bool) (propWindow, bool) {
	var spent []propWindow
	for _, w := range ws {
		if w.remaining == 0 {
			spent = append(spent, w)
		}
	}
	if len(spent) > 0 {
		return uniqueBest(spent, func(a, b propWindow) int { return a.reset.Compare(b.reset) })
	}
	if status != 200 {
		return propWindow{}, false
	}
	if withMax {
		// The smallest share left is the largest max/remaining.
		return uniqueBest(ws, func(a, b propWindow) int {
			return new(big.Rat).SetFrac(bigU(b.remaining), bigU(b.max)).Cmp(new(big.Rat).SetFrac(bigU(a.remaining), bigU(a.max)))
		})
	}
	return uniqueBest(ws, func(a, b propWindow) int {
		switch {
		case a.remaining < b.remaining:
			return 1
		case a.remaining > b.remaining:
			return -1
		}
		return 0
	})
}

// uniqueBest is the element cmp ranks above all others, and false when
// another ranks the same.
func uniqueBest(ws []propWindow, cmp func(a, b propWindow) int) (propWindow, bool) {
	best := 0
	for i := 1; i < len(ws); i++ {
		if cmp(ws[i], ws[best]) > 0 {
			best = i
		}
	}
	for i := range ws {
		if i != best && cmp(ws[i], ws[best]) == 0 {
			return propWindow{}, false
		}
	}
	return ws[best], true
}

func bigU(v uint64) *big.Int { return new(big.Int).SetUint64(v) }

// RFC 9110, 10.2.3: Retry-After is an HTTP-date or delay-seconds, and both
// say how long to wait before the follow-up request. The limit facet's
// reset_at is that moment, so the two forms of one moment name one reset:
// the date as written, or the seconds counted from the answer's Date (or,
// without one, from when it was received). Drawn afresh on every run
// (ERRSVC_PROPERTY_SEED replays one), for each family that reads both
// forms.
func TestRetryAfterFormsNameOneReset(t *testing.T) {
	seed := secrets.Seed()
	rng := rand.New(rand.NewPCG(seed, 9110))
	bodies := map[string]string{
		"anthropic": `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50 requests per minute."}}`,
		"openai":    `{"error":{"message":"Rate limit reached for gpt-4o in organization org-1 on requests per min (RPM): Limit 500, Used 500, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
		"custom":    `{"error":{"message":"Too many requests"}}`,
	}
	checked := 0
	for n := 0; n < 300; n++ {
		date := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(365*86400)) * time.Second)
		secs := rng.IntN(200000)
		moment := date.Add(time.Duration(secs) * time.Second)
		for provider, body := range bodies {
			for _, viaDate := range []bool{true, false} {
				for _, form := range []string{strconv.Itoa(secs), moment.Format(http.TimeFormat)} {
					a := Answer{Provider: provider, Status: 429, Body: body, Headers: map[string]string{"retry-after": form}, Limits: true,
						Now: date.Add(3 * time.Second)}
					if viaDate {
						a.Headers["date"] = date.Format(http.TimeFormat)
					} else {
						a.ReceivedAt = date
					}
					what := fmt.Sprintf("%s, Retry-After %q, Date header %v (ERRSVC_PROPERTY_SEED=%d)", provider, form, viaDate, seed)
					r := Classify(a)
					if r.Limit == nil {
						t.Fatalf("%s: no limit facet", what)
					}
					if !r.Limit.ResetAt.Equal(moment) {
						t.Fatalf("%s: reset_at %s, want %s", what, r.Limit.ResetAt.Format(time.RFC3339), moment.Format(time.RFC3339))
					}
					if r.RetryAfterSecs == nil || int(*r.RetryAfterSecs) != secs {
						t.Fatalf("%s: wait %v, want %d s", what, r.RetryAfterSecs, secs)
					}
					checked++
				}
			}
		}
	}
	if checked < 3000 {
		t.Errorf("only %d answers checked", checked)
	}
}

// A wait longer than the wire carries is cut (WaitClamped): the cut wait is
// not the moment the provider named, so the facet names no reset rather
// than a wrong one.
func TestClampedWaitNamesNoReset(t *testing.T) {
	date := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, v := range []string{"9999999999", strconv.FormatUint(MaxRetryAfterSecs+1, 10)} {
		r := Classify(Answer{Provider: "custom", Status: 429, Body: `{"error":{"message":"Too many requests"}}`, Limits: true, Now: date,
			Headers: map[string]string{"retry-after": v, "date": date.Format(http.TimeFormat)}})
		if !r.WaitClamped || r.Limit == nil {
			t.Fatalf("Retry-After %s: clamped %v, limit %v", v, r.WaitClamped, r.Limit)
		}
		if !r.Limit.ResetAt.IsZero() {
			t.Errorf("Retry-After %s: reset_at %s from a cut wait", v, r.Limit.ResetAt.Format(time.RFC3339))
		}
	}
	// At the bound itself nothing is cut, and the reset is the wait's.
	r := Classify(Answer{Provider: "custom", Status: 429, Body: `{"error":{"message":"Too many requests"}}`, Limits: true, Now: date,
		Headers: map[string]string{"retry-after": strconv.FormatUint(MaxRetryAfterSecs, 10), "date": date.Format(http.TimeFormat)}})
	if want := date.Add(MaxRetryAfterSecs * time.Second); r.WaitClamped || !r.Limit.ResetAt.Equal(want) {
		t.Errorf("Retry-After at the bound: clamped %v, reset_at %s, want %s", r.WaitClamped, r.Limit.ResetAt, want)
	}
}

// A reset stated as a Unix timestamp in milliseconds (OpenRouter's
// X-RateLimit-Reset, on the answer or in error.metadata.headers) is that
// moment, not a date in the year 33658 read as seconds.
func TestResetInUnixMilliseconds(t *testing.T) {
	date := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	reset := date.Add(90 * time.Second)
	ms := strconv.FormatInt(reset.UnixMilli(), 10)
	r := Classify(Answer{Provider: "custom", Status: 429, Body: `{"error":{"message":"Too many requests"}}`, Limits: true, Now: date,
		Headers: map[string]string{"date": date.Format(http.TimeFormat), "x-ratelimit-remaining": "0", "x-ratelimit-reset": ms}})
	if r.RetryAfterSecs == nil || *r.RetryAfterSecs != 90 || r.Limit == nil || !r.Limit.ResetAt.Equal(reset) {
		t.Errorf("on the answer: wait %v, limit %s; want 90 s and reset %s", r.RetryAfterSecs, limitText(r.Limit), reset)
	}
	body := `{"error":{"message":"Rate limit exceeded: free-models-per-min.","code":429,"metadata":{"headers":{"X-RateLimit-Limit":"20","X-RateLimit-Remaining":"0","X-RateLimit-Reset":"` + ms + `"}}}}`
	r = Classify(Answer{Provider: "openrouter", Status: 429, Body: body, Limits: true, Now: date,
		Headers: map[string]string{"date": date.Format(http.TimeFormat)}})
	if l := r.Limit; l == nil || !l.ResetAt.Equal(reset) || u64(l.Remaining) != "0" || u64(l.Max) != "20" {
		t.Errorf("in metadata.headers: limit %s; want reset %s, 0 of 20 left", limitText(l), reset)
	}
	// Headers on the answer come first: the body's are read only without.
	r = Classify(Answer{Provider: "openrouter", Status: 429, Body: body, Limits: true, Now: date,
		Headers: map[string]string{"date": date.Format(http.TimeFormat), "x-ratelimit-limit-requests": "5", "x-ratelimit-remaining-requests": "0"}})
	if l := r.Limit; l == nil || u64(l.Max) != "5" {
		t.Errorf("with headers on the answer: limit %s; want theirs (5)", limitText(l))
	}
}

func limitText(l *Limit) string {
	if l == nil {
		return "none"
	}
	return fmt.Sprintf("%s reset %s, %s of %s left", l.Kind, l.ResetAt.Format(time.RFC3339), u64(l.Remaining), u64(l.Max))
}
