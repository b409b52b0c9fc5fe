package server

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/errsvc/errsvc/translate"
)

// PolicyHolder holds the operator policy (docs/POLICY.md) every transport
// translates under. A translation loads it once, so it reads one policy
// throughout; Swap replaces it atomically and empties the answer caches,
// so no answer of the old policy is served after the swap returns, and
// none made under it is stored afterwards (the caches key their entries
// by the holder's generation too: see answerCache.hash).
//
// The nil *PolicyHolder holds the built-in matrix alone.
type PolicyHolder struct {
	cur atomic.Pointer[translate.Policy]
	gen atomic.Uint64
	// lastError is the last reload's refusal ("" after a good one), for
	// the readiness detail and the log.
	lastError atomic.Pointer[string]

	mu      sync.Mutex
	onSwap  []func()
	metrics *Metrics
}

// NewPolicyHolder holds p (nil: no policy).
func NewPolicyHolder(p *translate.Policy) *PolicyHolder {
	h := &PolicyHolder{}
	h.cur.Store(p)
	return h
}

// Load is the policy to translate under now.
func (h *PolicyHolder) Load() *translate.Policy {
	if h == nil {
		return nil
	}
	return h.cur.Load()
}

// Gen counts the swaps.
func (h *PolicyHolder) Gen() uint64 {
	if h == nil {
		return 0
	}
	return h.gen.Load()
}

// Swap makes p the policy and empties the answer caches.
func (h *PolicyHolder) Swap(p *translate.Policy) {
	// The pointer before the generation: a lookup that reads the new
	// generation then translates under the new policy.
	h.cur.Store(p)
	h.gen.Add(1)
	empty := ""
	h.lastError.Store(&empty)
	h.mu.Lock()
	fns, m := h.onSwap, h.metrics
	h.mu.Unlock()
	for _, f := range fns {
		f()
	}
	m.policySwapped(p)
}

// Refused records a policy that failed to load: the old one stays.
func (h *PolicyHolder) Refused(err error) {
	msg := err.Error()
	h.lastError.Store(&msg)
	h.mu.Lock()
	m := h.metrics
	h.mu.Unlock()
	m.policyRefused()
}

// LastError is the last reload's refusal, "" when it loaded.
func (h *PolicyHolder) LastError() string {
	if h == nil {
		return ""
	}
	if p := h.lastError.Load(); p != nil {
		return *p
	}
	return ""
}

// whenSwapped registers f to run after each swap.
func (h *PolicyHolder) whenSwapped(f func()) {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.onSwap = append(h.onSwap, f)
	h.mu.Unlock()
}

// observe reports the holder's policy in m's series.
func (h *PolicyHolder) observe(m *Metrics) {
	if h == nil || m == nil {
		return
	}
	h.mu.Lock()
	h.metrics = m
	h.mu.Unlock()
	if m.policy != nil {
		m.policy.holder.Store(h)
	}
}

// policyCollector serves the policy's series from whatever the holder
// holds at scrape time: errsvc_policy_info{version,hash} (always 1; hash
// "" and version "" with no policy), errsvc_policy_rule_matches_total
// {rule} (each rule's translations since its policy loaded: a swap starts
// them again, which rate() reads as a counter reset), and the counters of
// swaps and refused reloads.
type policyCollector struct {
	holder   atomic.Pointer[PolicyHolder]
	swaps    prometheus.Counter
	refusals prometheus.Counter
	info     *prometheus.Desc
	matches  *prometheus.Desc
}

func newPolicyCollector() *policyCollector {
	return &policyCollector{
		swaps: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "errsvc_policy_reloads_total",
			Help: "Operator policies loaded in place of the one before (SIGHUP or a change of the file).",
		}),
		refusals: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "errsvc_policy_reload_errors_total",
			Help: "Operator policy reloads refused (the file did not validate or compile); the policy before stays.",
		}),
		info: prometheus.NewDesc("errsvc_policy_info",
			"Always 1: the operator policy translations read now, by its version label and content hash (both empty with no policy).",
			[]string{"version", "hash"}, nil),
		matches: prometheus.NewDesc("errsvc_policy_rule_matches_total",
			"Translations a rule of the operator policy decided part of, by rule name, since the policy was loaded.",
			[]string{"rule"}, nil),
	}
}

func (c *policyCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.info
	ch <- c.matches
	c.swaps.Describe(ch)
	c.refusals.Describe(ch)
}

func (c *policyCollector) Collect(ch chan<- prometheus.Metric) {
	p := c.holder.Load().Load()
	ch <- prometheus.MustNewConstMetric(c.info, prometheus.GaugeValue, 1, p.Version(), p.Hash())
	counts := p.Matches()
	for i, name := range p.Rules() {
		ch <- prometheus.MustNewConstMetric(c.matches, prometheus.CounterValue, float64(counts[i]), name)
	}
	c.swaps.Collect(ch)
	c.refusals.Collect(ch)
}

func (m *Metrics) policySwapped(*translate.Policy) {
	if m != nil && m.policy != nil {
		m.policy.swaps.Inc()
	}
}

func (m *Metrics) policyRefused() {
	if m != nil && m.policy != nil {
		m.policy.refusals.Inc()
	}
}

// pinnedPolicyKey is the context key of the policy a batch's items
// translate under.
type pinnedPolicyKey struct{}

// pinnedPolicy is the policy the call pinned (a batch), when the service
// has a policy at all.
func pinnedPolicy(ctx context.Context, h *PolicyHolder) (*translate.Policy, bool) {
	if h == nil {
		return nil, false
	}
	p, ok := ctx.Value(pinnedPolicyKey{}).(*translate.Policy)
	return p, ok
}
