package policy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/errsvc/errsvc/translate"
)

// merged is the policy of several files and, for each value NewPolicy may
// name by its pointer into the merged policy, the file and pointer it came
// from: so a semantic error names its own file's line, not a position in
// a document nobody wrote.
type merged struct {
	spec translate.PolicySpec
	docs []*document
	// lists maps a list's pointer ("/providers", "/secrets/redact") to the
	// origin of each of its merged items.
	lists map[string][]origin
	// single maps the pointer of a value one file set
	// ("/version", "/default_waits/by_kind/KIND") to that file.
	single map[string]*document
}

type origin struct {
	doc   *document
	index int
}

// merge concatenates the files' lists, in file order. A value only one
// file may set (version, default_waits.transient_secs, a kind's default
// wait) set by two differently is an error at the second.
func merge(docs []*document) (*merged, *Error) {
	m := &merged{docs: docs, lists: map[string][]origin{}, single: map[string]*document{}}
	s := &m.spec
	for _, d := range docs {
		ds := d.spec
		if ds.Version != "" {
			if s.Version != "" && s.Version != ds.Version {
				return nil, d.at("/version", fmt.Sprintf("version %q differs from %q in %s: a folder's files share one version", ds.Version, s.Version, m.single["/version"].file))
			}
			if s.Version == "" {
				s.Version = ds.Version
				m.single["/version"] = d
			}
		}
		s.Providers = appendFrom(m, "/providers", d, s.Providers, ds.Providers)
		s.Kinds = appendFrom(m, "/kinds", d, s.Kinds, ds.Kinds)
		s.AgentCodes = appendFrom(m, "/agent_codes", d, s.AgentCodes, ds.AgentCodes)
		s.Overrides = appendFrom(m, "/overrides", d, s.Overrides, ds.Overrides)
		s.Decisions = appendFrom(m, "/decisions", d, s.Decisions, ds.Decisions)
		if w := ds.DefaultWaits; w != nil {
			if s.DefaultWaits == nil {
				s.DefaultWaits = &translate.DefaultWaitsSpec{}
			}
			if w.TransientSecs != nil {
				if prev := m.single["/default_waits/transient_secs"]; prev != nil {
					return nil, d.at("/default_waits/transient_secs", "also set in "+prev.file+": set it in one file")
				}
				s.DefaultWaits.TransientSecs = w.TransientSecs
				m.single["/default_waits/transient_secs"] = d
			}
			for k, secs := range w.ByKind {
				p := "/default_waits/by_kind/" + escape(k)
				if prev := m.single[p]; prev != nil {
					return nil, d.at(p, "also set in "+prev.file+": set it in one file")
				}
				if s.DefaultWaits.ByKind == nil {
					s.DefaultWaits.ByKind = map[string]uint32{}
				}
				s.DefaultWaits.ByKind[k] = secs
				m.single[p] = d
			}
		}
		if sec := ds.Secrets; sec != nil {
			if s.Secrets == nil {
				s.Secrets = &translate.SecretsSpec{}
			}
			s.Secrets.Redact = appendFrom(m, "/secrets/redact", d, s.Secrets.Redact, sec.Redact)
			s.Secrets.Keep = appendFrom(m, "/secrets/keep", d, s.Secrets.Keep, sec.Keep)
		}
	}
	return m, nil
}

func appendFrom[T any](m *merged, list string, d *document, to, from []T) []T {
	for i := range from {
		m.lists[list] = append(m.lists[list], origin{doc: d, index: i})
	}
	return append(to, from...)
}

// source is the file and its own pointer of a pointer into the merged
// policy.
func (m *merged) source(pointer string) (*document, string) {
	for list, origins := range m.lists {
		rest, ok := strings.CutPrefix(pointer, list+"/")
		if !ok {
			continue
		}
		idx, tail, _ := strings.Cut(rest, "/")
		i, err := strconv.Atoi(idx)
		if err != nil || i < 0 || i >= len(origins) {
			break
		}
		o := origins[i]
		p := fmt.Sprintf("%s/%d", list, o.index)
		if tail != "" {
			p += "/" + tail
		}
		return o.doc, p
	}
	for p, d := range m.single {
		if pointer == p || strings.HasPrefix(pointer, p+"/") {
			return d, pointer
		}
	}
	return m.docs[0], pointer
}

// policyError locates NewPolicy's error in its file. A duplicate rule's
// message names the other use by its merged pointer; that is rewritten to
// the other use's file:line:col.
func (m *merged) policyError(pe *translate.PolicyError) *Error {
	d, p := m.source(pe.Path)
	msg := pe.Description
	const also = " is also used at "
	if before, after, ok := strings.Cut(msg, also); ok {
		other, rest, _ := strings.Cut(after, ":")
		od, op := m.source(other)
		loc := od.at(op, "")
		where := fmt.Sprintf("%s:%d:%d", loc.File, loc.Line, loc.Column)
		msg = before + also + where + ":" + rest
	}
	return d.at(p, msg)
}
