package translate

import (
	"fmt"
	"net/url"
	"strings"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate/provider"
)

// Where a policy enters a translation (docs/POLICY.md, "Who decides"):
//
//   - its kinds and agent codes are looked up where the matrix's are
//     (setKind, agentRowFor), so a source naming one follows its row;
//   - its provider families read a provider answer inside the classifier
//     (provider.Answer.Operator), after the built-in tables and before the
//     wait and the limit are read;
//   - its overrides (per source term), then its decisions (per service or
//     tool), then its default waits apply once the source is decoded and
//     before the one retry decision is settled (applyPolicy), so the
//     caller's own recovery action, read in settleDecision, still wins and
//     every target follows what was decided;
//   - its secret formats are redacted before the sanitiser runs.
//
// Each rule that decides part of an answer adds a policy_rule note naming
// it and counts one match.

// policyNote records that rule i decided part of the answer.
func (m *model) policyNote(i int, format string, args ...any) {
	p := m.policy
	p.matches[i].Add(1)
	v := p.spec.Version
	if v == "" {
		v = p.hash
	}
	m.note(errsvcv1.NoteCode_NOTE_CODE_POLICY_RULE, "policy rule %q (policy %s): %s", p.rules[i], v, fmt.Sprintf(format, args...))
}

// policyKind sets an operator's kind's row, when the policy makes wire
// known; false otherwise.
func policyKind(m *model, wire string) bool {
	p := m.policy
	if p == nil {
		return false
	}
	f := p.kinds[wire]
	if f == nil {
		return false
	}
	m.krow, m.kfacts = f.row, f
	if !m.policyKindNoted {
		m.policyKindNoted = true
		m.policyNote(p.kindRule[wire], "kind %q made known: class %s, HTTP %d, agent code %s", wire, f.row.GetClass(), f.row.GetHttpStatus(), f.row.GetAgentCode())
	}
	return true
}

// agentRowFor is the matrix row of an agent code: the code's own, the
// built-in code an operator's code is like, else the fallback's.
func (m *model) agentRowFor(code string) *errsvcv1.AgentCodeRow {
	if row := agentCodeRow(code); row != nil {
		return row
	}
	if m.policy != nil {
		if a := m.policy.agentCodes[code]; a != nil {
			return agentCodeRow(a.SameAs)
		}
	}
	return agentCodeRow(fallbackAgentCode)
}

// policyAgentCode applies an operator's agent code read as a source: it
// decides as the code it is like, with the policy's class and HTTP status
// when given. It reports whether the policy knows the code.
func policyAgentCode(m *model, code string) (*AgentCodeSpec, bool) {
	p := m.policy
	if p == nil {
		return nil, false
	}
	a := p.agentCodes[code]
	if a == nil {
		return nil, false
	}
	m.policyNote(p.agentRule[code], "agent code %q made known: decides as %s", code, a.SameAs)
	return a, true
}

// finishPolicyAgentCode sets what an operator's agent code says beyond the
// code it is like, once the payload is decoded.
func finishPolicyAgentCode(m *model, a *AgentCodeSpec) {
	if a.Class != "" && m.class != a.Class {
		m.policyDecided = true
		overrideClass(m, a.Class, "policy agent code "+a.Code, true)
	}
	if a.HTTPStatus != 0 {
		m.httpStatus, m.grpcCode = a.HTTPStatus, rowGRPCCode("", a.HTTPStatus)
	}
}

// familyFor is the operator's provider family an answer belongs to: by
// provider name, then by the base URL's host, then by a header (h is the
// answer's headers as the classifier reads them, folded once for both).
func (p *Policy) familyFor(pr *errsvcv1.ProviderResponse, h provider.Headers) *policyFamily {
	if p == nil {
		return nil
	}
	if name := pr.GetProvider(); name != "" {
		if f := p.familyByName[name]; f != nil {
			return f
		}
		if f := p.familyByName[strings.ToLower(name)]; f != nil {
			return f
		}
	}
	if base := pr.GetBaseUrl(); base != "" && len(p.familyByHost) > 0 {
		if u, err := url.Parse(base); err == nil {
			for _, c := range p.familyByHost[strings.ToLower(u.Hostname())] {
				if strings.HasPrefix(base, c.prefix) {
					return c.family
				}
			}
		}
	}
	// The policy's few header names are looked up in the answer's, rather
	// than every answer header in the policy's: an answer carries many
	// headers, a policy names few, and the first name the policy gives
	// decides, whatever order the answer's map is walked in.
	for _, name := range p.headerNames {
		v, ok := h.Lookup(name)
		if !ok {
			continue
		}
		for _, c := range p.familyByHeader[name] {
			if c.value == "*" || c.value == v {
				return c.family
			}
		}
	}
	return nil
}

// operatorReading is the family's rules as the classifier's Operator hook.
func (m *model) operatorReading(f *policyFamily) func(provider.Seen, *provider.Verdict) bool {
	return func(e provider.Seen, v *provider.Verdict) bool {
		for i := range f.rules {
			r := &f.rules[i]
			if !r.matches(e) {
				continue
			}
			v.Class = r.spec.Class
			if r.spec.Kind != "" {
				v.Kind = r.spec.Kind
			}
			v.Rule = "policy:" + r.name
			m.policyRule = r
			return true
		}
		return false
	}
}

// matches reports whether every condition the rule gives holds.
func (r *policyProviderRule) matches(e provider.Seen) bool {
	if len(r.spec.Status) > 0 && !containsStatus(r.spec.Status, e.Status) {
		return false
	}
	if len(r.spec.Codes) > 0 {
		hit := false
		for _, c := range r.spec.Codes {
			if c != "" && (c == e.Code || c == e.Type || c == e.StatusName || c == e.ErrorType) {
				hit = true
				break
			}
		}
		if !hit {
			return false
		}
	}
	if len(r.phrases) > 0 {
		msg := strings.ToLower(e.Message)
		hit := false
		for _, ph := range r.phrases {
			if strings.Contains(msg, ph) {
				hit = true
				break
			}
		}
		if !hit {
			return false
		}
	}
	return true
}

func containsStatus(list []int32, s int) bool {
	for _, v := range list {
		if int(v) == s {
			return true
		}
	}
	return false
}

// finishProviderRule completes what a family's rule decided once the
// classifier is done: the rule's wait when the answer carried none, its
// limit facet, and the note.
func finishProviderRule(m *model, r *provider.Result) {
	pr := m.policyRule
	if pr == nil {
		return
	}
	s := pr.spec
	if r.Class == classTransient && r.RetryAfterSecs == nil && s.WaitSecs != nil {
		w := *s.WaitSecs
		r.RetryAfterSecs, r.WaitSource = &w, "policy:"+pr.name
	}
	if s.Limit != nil {
		l := r.Limit
		if l == nil {
			l = &provider.Limit{}
		}
		l.Kind = s.Limit.Kind
		if s.Limit.Dimension != "" {
			l.Dimension = s.Limit.Dimension
		}
		if s.Limit.Scope != "" {
			l.Scope = s.Limit.Scope
		}
		if l.Scope == "" {
			l.Scope = provider.ScopeUnknown
		}
		r.Limit = l
	}
	kind := r.Kind
	if kind == "" {
		kind = "-"
	}
	m.policyNote(pr.index, "read the provider answer as class %s, kind %s", r.Class, kind)
}

// applyPolicy applies the policy's overrides, decisions and default waits
// to a decoded source.
func applyPolicy(m *model, req *errsvcv1.TranslateRequest) {
	p := m.policy
	if p == nil {
		return
	}
	if os := p.overrides[m.originalTerm]; len(os) > 0 {
		name := req.GetProviderResponse().GetProvider()
		for _, o := range os {
			if o.spec.Provider != "" && !strings.EqualFold(o.spec.Provider, name) {
				continue
			}
			decideByPolicy(m, &o.spec.Decide, o.index, "term "+o.spec.Term)
			break
		}
	}
	if p.hasDecisions {
		service, tool := req.GetContext().GetService(), req.GetContext().GetTool()
		if e := m.envelope; e != nil {
			service, tool = orString(service, e.GetService()), orString(tool, e.GetTool())
		}
		if tool == "" {
			tool = req.GetMcpToolResult().GetTool()
		}
		if d := p.decisionFor(service, tool); d != nil {
			decideByPolicy(m, &d.spec.Decide, d.index, decisionSubject(d.spec))
		}
	}
	if m.waitSecs == nil && retryHelps(m) && (m.action == "" || m.action == "retry_later") {
		dw := &p.defaultWaits
		if w, ok := dw.ByKind[m.kind]; ok {
			m.setWait(w, w*1000)
			m.policyNote(p.waitRule, "default wait for kind %s: %d s", m.kind, w)
		} else if dw.TransientSecs != nil {
			w := *dw.TransientSecs
			m.setWait(w, w*1000)
			m.policyNote(p.waitRule, "default wait for a transient error: %d s", w)
		}
	}
}

// decisionFor is the first decision rule, in file order, matching the
// service and the tool.
func (p *Policy) decisionFor(service, tool string) *policyDecision {
	var best *policyDecision
	consider := func(list []*policyDecision) {
		for _, d := range list {
			if (best == nil || d.index < best.index) && globMatch(d.spec.Service, service) && globMatch(d.spec.Tool, tool) {
				best = d
			}
		}
	}
	if tool != "" {
		consider(p.decisionsByTool[tool])
	}
	if service != "" {
		consider(p.decisionsByService[service])
	}
	consider(p.decisionGlobs)
	return best
}

func orString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func decisionSubject(d *DecisionSpec) string {
	switch {
	case d.Service != "" && d.Tool != "":
		return "service " + d.Service + ", tool " + d.Tool
	case d.Service != "":
		return "service " + d.Service
	}
	return "tool " + d.Tool
}

// globMatch matches a rule's service or tool: "" matches anything, a
// trailing "*" any suffix, anything else exactly.
func globMatch(pattern, s string) bool {
	switch {
	case pattern == "":
		return true
	case strings.HasSuffix(pattern, "*"):
		return strings.HasPrefix(s, pattern[:len(pattern)-1])
	}
	return pattern == s
}

// decideByPolicy applies one override or decision rule.
func decideByPolicy(m *model, d *Decide, rule int, subject string) {
	var did []string
	class := d.Class
	switch {
	case d.Retry == "never" && retryHelps(m):
		class = "permanent"
	case d.Retry == "retry" && !retryHelps(m):
		class = classTransient
	}
	if class != "" && !(m.hasClass && m.recognized && m.class == class) {
		m.policyDecided = true
		overrideClass(m, class, "policy rule "+m.policy.rules[rule], true)
		did = append(did, "class "+class)
		if !retryHelps(m) && m.waitSecs != nil {
			// A wait says when to retry; the rule says not to.
			m.waitSecs, m.waitMs = nil, nil
			did = append(did, "the wait dropped")
		}
	}
	if retryHelps(m) {
		switch {
		case d.WaitFloorSecs != nil && (m.waitSecs == nil || *m.waitSecs < *d.WaitFloorSecs):
			w := *d.WaitFloorSecs
			m.setWait(w, w*1000)
			did = append(did, fmt.Sprintf("wait raised to its floor, %d s", w))
		case d.WaitCeilingSecs != nil && m.waitSecs != nil && *m.waitSecs > *d.WaitCeilingSecs:
			w := *d.WaitCeilingSecs
			m.setWait(w, w*1000)
			did = append(did, fmt.Sprintf("wait cut to its ceiling, %d s", w))
		}
	}
	if len(did) == 0 {
		did = append(did, "matched; the answer already agreed")
	}
	m.policyNote(rule, "%s: %s", subject, strings.Join(did, "; "))
}
