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
