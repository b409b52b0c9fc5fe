package translate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/proto"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Policy is a compiled operator policy (PolicySpec): immutable once built,
// so one translation reads one policy throughout and a server swaps
// policies atomically (a *Policy behind an atomic pointer). The nil
// *Policy is the built-in matrix alone.
type Policy struct {
	spec PolicySpec
	hash string

	// families by lower-cased provider name, by base URL host (lower
	// case) and by lower-cased header name: a translation looks up, it
	// does not walk the families.
	familyByName   map[string]*policyFamily
	familyByHost   map[string][]hostCandidate
	familyByHeader map[string][]headerCandidate
	headerNames    []string // familyByHeader's names, in the policy's order

	kinds      map[string]*kindFacts
	kindSpecs  map[string]*KindSpec
	kindRule   map[string]int
	agentCodes map[string]*AgentCodeSpec
	agentRule  map[string]int

	overrides map[string][]*policyOverride
	// decisions by exact tool and by exact service (a rule naming both
	// is under its tool); the ones with a "*" pattern in globs. A
	// translation reads two map entries and the globs, not every rule.
	decisionsByTool, decisionsByService map[string][]*policyDecision
	decisionGlobs                       []*policyDecision
	hasDecisions                        bool

	defaultWaits DefaultWaitsSpec
	waitRule     int

	redact, keep []*policyPattern
	// redactPrefilter: every redact format is contextFree, so mayRedact
	// may look at the request's encoding first.
	redactPrefilter bool

	// rules are every rule's name, in file order; matches counts each
	// rule's matches (Matches), by the same index.
	rules   []string
	matches []atomic.Uint64

	vocabOnce sync.Once
	vocab     *errsvcv1.ListVocabulariesResponse
}

type policyFamily struct {
	spec  *ProviderFamilySpec
	rules []policyProviderRule
}

type hostCandidate struct {
	prefix string
	family *policyFamily
}

type headerCandidate struct {
	value  string
	family *policyFamily
}

type policyProviderRule struct {
	spec    *ProviderRuleSpec
	name    string // "family.rule"
	index   int    // into Policy.rules
	phrases []string
}

type policyOverride struct {
	spec  *OverrideSpec
	name  string
	index int
}

type policyDecision struct {
	spec  *DecisionSpec
	name  string
	index int
}

type policyPattern struct {
	name string
	re   *regexp.Regexp
	// prefix is the literal every match starts with ("" if none).
	prefix string
}

// PolicyError is a policy that does not compile: Path is the JSON pointer
// of the offending value in the policy document (/providers/0/rules/1/class),
// which the policy package turns into a file, line and column.
type PolicyError struct {
	Path        string
	Description string
}

func (e *PolicyError) Error() string { return e.Path + ": " + e.Description }

// NewPolicy compiles spec. The policy package has validated its shape
// against the JSON Schema; NewPolicy checks what a schema cannot say: the
// terms against the contract's vocabularies, the regular expressions, and
// names that must be unique.
func NewPolicy(spec PolicySpec) (*Policy, error) {
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, &PolicyError{Path: "", Description: err.Error()}
	}
	sum := sha256.Sum256(raw)
	p := &Policy{
		spec:           spec,
		hash:           hex.EncodeToString(sum[:8]),
		familyByName:   map[string]*policyFamily{},
		familyByHost:   map[string][]hostCandidate{},
		familyByHeader: map[string][]headerCandidate{},
		kinds:          map[string]*kindFacts{},
		kindSpecs:      map[string]*KindSpec{},
		kindRule:       map[string]int{},
		agentCodes:     map[string]*AgentCodeSpec{},
		agentRule:      map[string]int{},
		overrides:      map[string][]*policyOverride{},

		decisionsByTool:    map[string][]*policyDecision{},
		decisionsByService: map[string][]*policyDecision{},
	}
	seen := map[string]string{}
	addRule := func(name, path string) (int, error) {
		if prev, ok := seen[name]; ok {
			return 0, &PolicyError{Path: path, Description: fmt.Sprintf("rule name %q is also used at %s: each rule's name is unique, as notes and metrics name rules", name, prev)}
		}
		seen[name] = path
		p.rules = append(p.rules, name)
		return len(p.rules) - 1, nil
	}
	// Kinds first: provider rules may give them.
	for i := range p.spec.Kinds {
		k := &p.spec.Kinds[i]
		path := fmt.Sprintf("/kinds/%d", i)
		if err := checkKindSpec(k, path); err != nil {
			return nil, err
		}
		if _, dup := p.kindSpecs[k.Kind]; dup {
			return nil, &PolicyError{Path: path + "/kind", Description: fmt.Sprintf("kind %q is made known twice", k.Kind)}
		}
		p.kindSpecs[k.Kind] = k
		p.kinds[k.Kind] = newKindFacts(k.Kind, kindRowOf(k))
		idx, err := addRule("kind."+k.Kind, path)
		if err != nil {
			return nil, err
		}
		p.kindRule[k.Kind] = idx
	}
	for i := range p.spec.AgentCodes {
		a := &p.spec.AgentCodes[i]
		path := fmt.Sprintf("/agent_codes/%d", i)
		switch {
		case a.Code == "":
			return nil, &PolicyError{Path: path + "/code", Description: "required"}
		case AgentCodes.Has(a.Code):
			return nil, &PolicyError{Path: path + "/code", Description: fmt.Sprintf("%q is an Agent Surface code already; override its decision under overrides", a.Code)}
		case !AgentCodes.Has(a.SameAs):
			return nil, &PolicyError{Path: path + "/same_as", Description: termHint("an Agent Surface code", a.SameAs, AgentCodes)}
		}
		if err := checkClassHTTP(a.Class, a.HTTPStatus, path, a.Class == ""); err != nil {
			return nil, err
		}
		p.agentCodes[a.Code] = a
		idx, err := addRule("agent_code."+a.Code, path)
		if err != nil {
			return nil, err
		}
		p.agentRule[a.Code] = idx
	}
	for i := range p.spec.Providers {
		f := &p.spec.Providers[i]
		path := fmt.Sprintf("/providers/%d", i)
		if f.Name == "" {
			return nil, &PolicyError{Path: path + "/name", Description: "required"}
		}
		m := f.Match
		if len(m.Providers)+len(m.BaseURLs)+len(m.Headers) == 0 {
			return nil, &PolicyError{Path: path + "/match", Description: "say how the family's answers are recognised: providers, base_urls or headers"}
		}
		pf := &policyFamily{spec: f}
		for j := range f.Rules {
			r := &f.Rules[j]
			rpath := fmt.Sprintf("%s/rules/%d", path, j)
			if r.Name == "" {
				return nil, &PolicyError{Path: rpath + "/name", Description: "required"}
			}
			if err := p.checkRuleTerms(r.Class, r.Kind, r.Limit, rpath, false); err != nil {
				return nil, err
			}
			for k, st := range r.Status {
				if st < 100 || st > 599 {
					return nil, &PolicyError{Path: fmt.Sprintf("%s/status/%d", rpath, k), Description: "an HTTP status is 100 to 599"}
				}
			}
			name := f.Name + "." + r.Name
			idx, err := addRule(name, rpath)
			if err != nil {
				return nil, err
			}
			pr := policyProviderRule{spec: r, name: name, index: idx}
			for _, ph := range r.Phrases {
				pr.phrases = append(pr.phrases, strings.ToLower(ph))
			}
			pf.rules = append(pf.rules, pr)
		}
		for _, name := range m.Providers {
			key := strings.ToLower(name)
			if _, dup := p.familyByName[key]; dup {
				return nil, &PolicyError{Path: path + "/match/providers", Description: fmt.Sprintf("provider %q belongs to two families", name)}
			}
			p.familyByName[key] = pf
		}
		for j, base := range m.BaseURLs {
			u, err := url.Parse(base)
			if err != nil || u.Host == "" {
				return nil, &PolicyError{Path: fmt.Sprintf("%s/match/base_urls/%d", path, j), Description: "an absolute URL such as https://llm.internal.example/v1"}
			}
			host := strings.ToLower(u.Hostname())
			p.familyByHost[host] = append(p.familyByHost[host], hostCandidate{base, pf})
		}
		for _, name := range slices.Sorted(maps.Keys(m.Headers)) {
			key := strings.ToLower(strings.TrimSpace(name))
			if _, seen := p.familyByHeader[key]; !seen {
				p.headerNames = append(p.headerNames, key)
			}
			p.familyByHeader[key] = append(p.familyByHeader[key], headerCandidate{strings.TrimSpace(m.Headers[name]), pf})
		}
	}
	for i := range p.spec.Overrides {
		o := &p.spec.Overrides[i]
		path := fmt.Sprintf("/overrides/%d", i)
		if o.Name == "" {
			return nil, &PolicyError{Path: path + "/name", Description: "required"}
		}
		if o.Term == "" {
			return nil, &PolicyError{Path: path + "/term", Description: "required: the source term the override is for"}
		}
		if err := p.checkDecide(&o.Decide, path); err != nil {
			return nil, err
		}
		idx, err := addRule(o.Name, path)
		if err != nil {
			return nil, err
		}
		p.overrides[o.Term] = append(p.overrides[o.Term], &policyOverride{spec: o, name: o.Name, index: idx})
	}
	for i := range p.spec.Decisions {
		d := &p.spec.Decisions[i]
		path := fmt.Sprintf("/decisions/%d", i)
		if d.Name == "" {
			return nil, &PolicyError{Path: path + "/name", Description: "required"}
		}
		if d.Service == "" && d.Tool == "" {
			return nil, &PolicyError{Path: path, Description: "say which service or tool the decision is for"}
		}
		if err := p.checkDecide(&d.Decide, path); err != nil {
			return nil, err
		}
		idx, err := addRule(d.Name, path)
		if err != nil {
			return nil, err
		}
		pd := &policyDecision{spec: d, name: d.Name, index: idx}
		p.hasDecisions = true
		switch {
		case strings.HasSuffix(d.Tool, "*") || strings.HasSuffix(d.Service, "*"):
			p.decisionGlobs = append(p.decisionGlobs, pd)
		case d.Tool != "":
			p.decisionsByTool[d.Tool] = append(p.decisionsByTool[d.Tool], pd)
		default:
			p.decisionsByService[d.Service] = append(p.decisionsByService[d.Service], pd)
		}
	}
	if dw := p.spec.DefaultWaits; dw != nil {
		p.defaultWaits = *dw
		idx, err := addRule("default_waits", "/default_waits")
		if err != nil {
			return nil, err
		}
		p.waitRule = idx
		for k, secs := range dw.ByKind {
			if !LabbyKinds.Has(k) && p.kindSpecs[k] == nil {
				return nil, &PolicyError{Path: "/default_waits/by_kind/" + k, Description: termHint("a Labby kind (built-in or under kinds)", k, LabbyKinds)}
			}
			if secs > maxWaitSecs {
				return nil, &PolicyError{Path: "/default_waits/by_kind/" + k, Description: fmt.Sprintf("at most %d s", maxWaitSecs)}
			}
		}
		if t := dw.TransientSecs; t != nil && *t > maxWaitSecs {
			return nil, &PolicyError{Path: "/default_waits/transient_secs", Description: fmt.Sprintf("at most %d s", maxWaitSecs)}
		}
	}
	if s := p.spec.Secrets; s != nil {
		for i, pat := range s.Redact {
			pp, err := compilePattern(pat, fmt.Sprintf("/secrets/redact/%d", i), true)
			if err != nil {
				return nil, err
			}
			p.redact = append(p.redact, pp)
		}
		for i, pat := range s.Keep {
			pp, err := compilePattern(pat, fmt.Sprintf("/secrets/keep/%d", i), false)
			if err != nil {
				return nil, err
			}
			p.keep = append(p.keep, pp)
		}
	}
	p.redactPrefilter = true
	for _, pat := range p.redact {
		p.redactPrefilter = p.redactPrefilter && contextFree(pat.re)
	}
	p.matches = make([]atomic.Uint64, len(p.rules))
	return p, nil
}

func compilePattern(pat PatternSpec, path string, redact bool) (*policyPattern, error) {
	if pat.Name == "" {
		return nil, &PolicyError{Path: path + "/name", Description: "required"}
	}
	re, err := regexp.Compile(pat.Regex)
	if err != nil {
		return nil, &PolicyError{Path: path + "/regex", Description: "not an RE2 regular expression: " + err.Error()}
	}
	if redact && re.MatchString("") {
		return nil, &PolicyError{Path: path + "/regex", Description: "matches the empty string, so it would redact between every two characters"}
	}
	prefix, _ := re.LiteralPrefix()
	return &policyPattern{name: pat.Name, re: re, prefix: prefix}, nil
}

func checkKindSpec(k *KindSpec, path string) error {
	switch {
	case !snakeCase(k.Kind):
		return &PolicyError{Path: path + "/kind", Description: "a Labby kind is snake_case (lower-case letters, digits and underscores, starting with a letter)"}
	case LabbyKinds.Has(k.Kind):
		return &PolicyError{Path: path + "/kind", Description: fmt.Sprintf("%q is a built-in kind; change its decision under overrides", k.Kind)}
	case k.Meaning == "":
		return &PolicyError{Path: path + "/meaning", Description: "required: say what the kind means (ListVocabularies serves it)"}
	case !AgentCodes.Has(k.AgentCode):
		return &PolicyError{Path: path + "/agent_code", Description: termHint("an Agent Surface code", k.AgentCode, AgentCodes)}
	case k.Origin != "" && !Origins.Has(k.Origin):
		return &PolicyError{Path: path + "/origin", Description: termHint("a Labby origin", k.Origin, Origins)}
	case k.Action != "" && !RecoveryActions.Has(k.Action):
		return &PolicyError{Path: path + "/action", Description: termHint("a Labby recovery action", k.Action, RecoveryActions)}
	case k.SameArguments != "" && !SameArgs.Has(k.SameArguments):
		return &PolicyError{Path: path + "/same_arguments", Description: termHint("a same_arguments value", k.SameArguments, SameArgs)}
	}
	return checkClassHTTP(k.Class, k.HTTPStatus, path, false)
}

func checkClassHTTP(class string, status int32, path string, classOptional bool) error {
	if !(classOptional && class == "") && !Classes.Has(class) {
		return &PolicyError{Path: path + "/class", Description: termHint("an Error Class Contract class", class, Classes)}
	}
	if status != 0 && (status < 400 || status > 599) {
		return &PolicyError{Path: path + "/http_status", Description: "an error's HTTP status is 400 to 599"}
	}
	if status == 0 && !classOptional {
		return &PolicyError{Path: path + "/http_status", Description: "required: the HTTP status the kind answers with"}
	}
	return nil
}

func (p *Policy) checkRuleTerms(class, kind string, limit *LimitSpec, path string, classOptional bool) error {
	if !(classOptional && class == "") && !Classes.Has(class) {
		return &PolicyError{Path: path + "/class", Description: termHint("an Error Class Contract class", class, Classes)}
	}
	if kind != "" && !LabbyKinds.Has(kind) && p.kindSpecs[kind] == nil {
		return &PolicyError{Path: path + "/kind", Description: termHint("a Labby kind (built-in or under kinds)", kind, LabbyKinds)}
	}
	if limit != nil {
		for _, c := range []struct {
			field, v string
			voc      *Vocabulary
			optional bool
		}{
			{"kind", limit.Kind, LimitKinds, false},
			{"dimension", limit.Dimension, LimitDimensions, true},
			{"scope", limit.Scope, LimitScopes, true},
		} {
			if (c.v != "" || !c.optional) && !c.voc.Has(c.v) {
				return &PolicyError{Path: path + "/limit/" + c.field, Description: termHint("a "+c.voc.Name+" term", c.v, c.voc)}
			}
		}
	}
	return nil
}

func (p *Policy) checkDecide(d *Decide, path string) error {
	if d.Class != "" && !Classes.Has(d.Class) {
		return &PolicyError{Path: path + "/class", Description: termHint("an Error Class Contract class", d.Class, Classes)}
	}
	if d.Retry != "" && d.Retry != "never" && d.Retry != "retry" {
		return &PolicyError{Path: path + "/retry", Description: `"never" or "retry"`}
	}
	if d.Class != "" && d.Retry != "" {
		return &PolicyError{Path: path + "/retry", Description: "say class or retry, not both: a class decides the retry"}
	}
	if d.Class == "" && d.Retry == "" && d.WaitFloorSecs == nil && d.WaitCeilingSecs == nil {
		return &PolicyError{Path: path, Description: "say what it decides: class, retry, wait_floor_secs or wait_ceiling_secs"}
	}
	for _, w := range []struct {
		f string
		v *uint32
	}{{"wait_floor_secs", d.WaitFloorSecs}, {"wait_ceiling_secs", d.WaitCeilingSecs}} {
		if w.v != nil && *w.v > maxWaitSecs {
			return &PolicyError{Path: path + "/" + w.f, Description: fmt.Sprintf("at most %d s", maxWaitSecs)}
		}
	}
	if d.WaitFloorSecs != nil && d.WaitCeilingSecs != nil && *d.WaitFloorSecs > *d.WaitCeilingSecs {
		return &PolicyError{Path: path + "/wait_ceiling_secs", Description: "below wait_floor_secs"}
	}
	return nil
}

// termHint says what a term must be, with the nearest one when close.
func termHint(what, given string, voc *Vocabulary) string {
	names := make([]string, len(voc.Terms))
	for i, t := range voc.Terms {
		names[i] = t.Wire
	}
	s := fmt.Sprintf("%q is not %s", given, what)
	if given == "" {
		s = "required: " + what
	}
	if n := NearestName(given, names); n != "" && given != "" {
		s += fmt.Sprintf(" (did you mean %q?)", n)
	}
	return s
}

func snakeCase(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// kindRowOf is the matrix row an operator's kind follows: its own class,
// HTTP status and agent code; the recovery its own or its class's.
func kindRowOf(k *KindSpec) *errsvcv1.KindRow {
	cr := classRow(k.Class)
	row := &errsvcv1.KindRow{
		Origin:           k.Origin,
		Action:           k.Action,
		SameArguments:    k.SameArguments,
		SideEffects:      "unknown",
		HttpStatus:       k.HTTPStatus,
		Class:            k.Class,
		AgentCode:        k.AgentCode,
		PassesRetryAfter: k.Class == classTransient,
		Note:             k.Meaning,
	}
	if row.Origin == "" {
		// The contract's catch-all origin, as an unknown kind would get.
		row.Origin = catchAll.GetOrigin()
	}
	if row.Action == "" {
		row.Action = cr.GetAction()
	}
	if row.SameArguments == "" {
		row.SameArguments = cr.GetSameArguments()
	}
	return row
}

// Version is the operator's label for the policy; Hash identifies its
// content (the first 16 hex digits of the SHA-256 of its canonical JSON).
func (p *Policy) Version() string {
	if p == nil {
		return ""
	}
	return p.spec.Version
}

// Hash identifies the policy's content; "" for the nil policy.
func (p *Policy) Hash() string {
	if p == nil {
		return ""
	}
	return p.hash
}

// Spec is the policy as written (a copy's worth: do not modify it).
func (p *Policy) Spec() PolicySpec {
	if p == nil {
		return PolicySpec{}
	}
	return p.spec
}

// Rules are the names of the policy's rules, in the order of the file.
func (p *Policy) Rules() []string {
	if p == nil {
		return nil
	}
	return slices.Clone(p.rules)
}

// Matches is how many translations each rule decided part of, by Rules'
// index, since the policy was compiled.
func (p *Policy) Matches() []uint64 {
	if p == nil {
		return nil
	}
	out := make([]uint64, len(p.matches))
	for i := range p.matches {
		out[i] = p.matches[i].Load()
	}
	return out
}

// Vocabularies is the ListVocabularies answer under the policy: the
// built-in terms, then the policy's kinds (LabbyKind) and agent codes
// (AgentErrorCode) beside them, each marked defined_by "policy". Built
// once per policy.
func (p *Policy) Vocabularies() *errsvcv1.ListVocabulariesResponse {
	if p == nil || len(p.spec.Kinds)+len(p.spec.AgentCodes) == 0 {
		return Vocabularies()
	}
	p.vocabOnce.Do(func() {
		resp := proto.Clone(Vocabularies()).(*errsvcv1.ListVocabulariesResponse)
		for _, v := range resp.GetVocabularies() {
			switch v.GetName() {
			case LabbyKinds.Name:
				for i := range p.spec.Kinds {
					k := &p.spec.Kinds[i]
					v.Terms = append(v.Terms, &errsvcv1.Term{Term: k.Kind, Meaning: k.Meaning, DefinedBy: "policy",
						Row: &errsvcv1.Term_Kind{Kind: p.kinds[k.Kind].row}})
				}
			case AgentCodes.Name:
				for i := range p.spec.AgentCodes {
					a := &p.spec.AgentCodes[i]
					row := proto.Clone(agentCodeRow(a.SameAs)).(*errsvcv1.AgentCodeRow)
					v.Terms = append(v.Terms, &errsvcv1.Term{Term: a.Code, Meaning: a.Meaning + " (decides as " + a.SameAs + ")", DefinedBy: "policy",
						Row: &errsvcv1.Term_AgentCode{AgentCode: row}})
				}
			}
		}
		p.vocab = resp
	})
	return p.vocab
}
