package translate

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate/sanitize"
)

// An operator's secret formats (secrets.redact) are redacted in the
// request itself, before anything is decoded: every answer field, note
// and log line is made from the request, so no copy of one can escape,
// and the built-in sanitiser then reads the text as it would with the
// secret already gone. The request is cloned only when a format matches.
//
// Its id formats (secrets.keep) are left alone in texts (messages,
// evidence text, terms): the text is sanitised in the pieces between the
// kept ids, which pass as they are. Structured values (details, structured
// evidence) keep the built-in rules only.

// redactRequest is req with every string value matching a redact format
// replaced by the redaction marker; req itself when none matches.
func (p *Policy) redactRequest(req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateRequest, bool) {
	if p == nil || len(p.redact) == 0 || req == nil || !p.mayRedact(req) || !p.anyRedact(req.ProtoReflect()) {
		return req, false
	}
	out := proto.Clone(req).(*errsvcv1.TranslateRequest)
	p.redactMessage(out.ProtoReflect())
	return out, true
}

func (p *Policy) redactString(s string) string {
	for _, pat := range p.redact {
		if pat.re.MatchString(s) {
			s = pat.re.ReplaceAllLiteralString(s, sanitize.RedactedToken)
		}
	}
	return s
}

func (p *Policy) matchesRedact(s string) bool {
	for _, pat := range p.redact {
		if pat.re.MatchString(s) {
			return true
		}
	}
	return false
}

// anyRedact reports whether a string anywhere in m matches a format. It
// runs on every translation under a policy with secret formats, so it
// reads the fields that can hold a string by a plan made once per message
// type, and google.protobuf.Struct values by their Go types, not through
// Range (which cost most of a translation: BenchmarkTranslatePolicy).
func (p *Policy) anyRedact(m protoreflect.Message) bool {
	switch x := m.Interface().(type) {
	case *structpb.Struct:
		return p.structHas(x)
	case *structpb.Value:
		return p.structValueHas(x)
	case *structpb.ListValue:
		for _, v := range x.GetValues() {
			if p.structValueHas(v) {
				return true
			}
		}
		return false
	}
	for _, fd := range stringPlan(m.Descriptor()) {
		if m.Has(fd) && p.valueHas(fd, m.Get(fd)) {
			return true
		}
	}
	return false
}

func (p *Policy) structHas(s *structpb.Struct) bool {
	for k, v := range s.GetFields() {
		if p.matchesRedact(k) || p.structValueHas(v) {
			return true
		}
	}
	return false
}

func (p *Policy) structValueHas(v *structpb.Value) bool {
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		return p.matchesRedact(k.StringValue)
	case *structpb.Value_StructValue:
		return p.structHas(k.StructValue)
	case *structpb.Value_ListValue:
		for _, e := range k.ListValue.GetValues() {
			if p.structValueHas(e) {
				return true
			}
		}
	}
	return false
}

// stringPlans holds, per message type, the fields that can hold a string
// (a string, a message, a list or map of either).
var stringPlans sync.Map // protoreflect.FullName -> []protoreflect.FieldDescriptor

func stringPlan(md protoreflect.MessageDescriptor) []protoreflect.FieldDescriptor {
	if v, ok := stringPlans.Load(md.FullName()); ok {
		return v.([]protoreflect.FieldDescriptor)
	}
	var plan []protoreflect.FieldDescriptor
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		k := fd.Kind()
		if fd.IsMap() {
			k = fd.MapValue().Kind()
			if fd.MapKey().Kind() == protoreflect.StringKind {
				k = protoreflect.StringKind
			}
		}
		switch k {
		case protoreflect.StringKind, protoreflect.MessageKind, protoreflect.GroupKind:
			plan = append(plan, fd)
		}
	}
	stringPlans.Store(md.FullName(), plan)
	return plan
}

func (p *Policy) valueHas(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	switch {
	case fd.IsList():
		l := v.List()
		for i := 0; i < l.Len(); i++ {
			if p.scalarHas(fd, l.Get(i)) {
				return true
			}
		}
		return false
	case fd.IsMap():
		found := false
		v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
			found = fd.MapKey().Kind() == protoreflect.StringKind && p.matchesRedact(k.String()) || p.scalarHas(fd.MapValue(), mv)
			return !found
		})
		return found
	}
	return p.scalarHas(fd, v)
}

func (p *Policy) scalarHas(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return p.matchesRedact(v.String())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return p.anyRedact(v.Message())
	}
	return false
}

// redactMessage replaces, in place, every matching string of m (a clone).
func (p *Policy) redactMessage(m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				if nv, ok := p.redactScalar(fd, l.Get(i)); ok {
					l.Set(i, nv)
				}
			}
		case fd.IsMap():
			mp := v.Map()
			var rekey []protoreflect.MapKey
			mp.Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if nv, ok := p.redactScalar(fd.MapValue(), mv); ok {
					mp.Set(k, nv)
				}
				if fd.MapKey().Kind() == protoreflect.StringKind && p.matchesRedact(k.String()) {
					rekey = append(rekey, k)
				}
				return true
			})
			// A key that is a secret is renamed (after the walk: a map is
			// not changed while it is ranged over).
			for _, k := range rekey {
				val := mp.Get(k)
				mp.Clear(k)
				mp.Set(protoreflect.ValueOfString(p.redactString(k.String())).MapKey(), val)
			}
		default:
			if nv, ok := p.redactScalar(fd, v); ok {
				m.Set(fd, nv)
			}
		}
		return true
	})
}

func (p *Policy) redactScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) (protoreflect.Value, bool) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		if s := v.String(); p.matchesRedact(s) {
			return protoreflect.ValueOfString(p.redactString(s)), true
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		p.redactMessage(v.Message())
	}
	return v, false
}

// keepText is sanitize.TextReport for a text holding ids the policy keeps:
// the pieces between them sanitised, the ids as they are, the whole then
// capped. ok is false when no kept id is in s.
func (p *Policy) keepText(s string, cap int) (string, sanitize.Report, bool) {
	if p == nil || len(p.keep) == 0 {
		return "", sanitize.Report{}, false
	}
	var spans [][]int
	for _, pat := range p.keep {
		spans = append(spans, pat.re.FindAllStringIndex(s, 64)...)
	}
	if len(spans) == 0 {
		return "", sanitize.Report{}, false
	}
	spans = mergeSpans(spans)
	var b strings.Builder
	var rep sanitize.Report
	last := 0
	for _, sp := range spans {
		piece, r := sanitize.TextReport(s[last:sp[0]], len(s))
		b.WriteString(piece)
		rep.Redacted = rep.Redacted || r.Redacted
		rep.Stripped = rep.Stripped || r.Stripped
		rep.Removed = rep.Removed || r.Removed
		b.WriteString(s[sp[0]:sp[1]])
		last = sp[1]
	}
	piece, r := sanitize.TextReport(s[last:], len(s))
	b.WriteString(piece)
	rep.Redacted = rep.Redacted || r.Redacted
	rep.Stripped = rep.Stripped || r.Stripped
	rep.Removed = rep.Removed || r.Removed
	out, cut := sanitize.Cut(b.String(), cap)
	rep.Truncated = cut
	return out, rep, true
}

// mergeSpans sorts spans and joins those that overlap.
func mergeSpans(spans [][]int) [][]int {
	for i := 1; i < len(spans); i++ {
		for j := i; j > 0 && spans[j][0] < spans[j-1][0]; j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
	out := spans[:1]
	for _, sp := range spans[1:] {
		if l := out[len(out)-1]; sp[0] < l[1] {
			l[1] = max(l[1], sp[1])
			continue
		}
		out = append(out, sp)
	}
	return out
}

// mayRedact is the cheap first look: every string of a request (a field,
// a map key, a Struct member) stands in its binary encoding as it is, with
// no escaping, so a format that matches none of the encoding matches no
// string, and the field walk (anyRedact, most of what a policy costs a
// translation: BenchmarkTranslatePolicy) is skipped. A format whose match
// depends on what surrounds it (^, $, \b, \B) could match a string and
// not the encoding, so with one of those the walk always runs.
func (p *Policy) mayRedact(req *errsvcv1.TranslateRequest) bool {
	if !p.redactPrefilter {
		return true
	}
	n := req.SizeVT()
	bp := encodings.Get().(*[]byte)
	defer encodings.Put(bp)
	if cap(*bp) < n {
		*bp = make([]byte, n)
	}
	buf := (*bp)[:n]
	if _, err := req.MarshalToSizedBufferVT(buf); err != nil {
		return true
	}
	for _, pat := range p.redact {
		// A format that starts with a literal (itk_, svc-) is looked for
		// by that first: an index, where the regexp engine backtracks.
		if pat.prefix != "" && !bytes.Contains(buf, []byte(pat.prefix)) {
			continue
		}
		if pat.re.Match(buf) {
			return true
		}
	}
	return false
}

// encodings are mayRedact's buffers.
var encodings = sync.Pool{New: func() any { return new([]byte) }}

// contextFree reports whether re's matches do not depend on the text
// around them: no anchors and no word boundaries.
func contextFree(re *regexp.Regexp) bool {
	prog, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return false
	}
	free := true
	var walk func(*syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		switch r.Op {
		case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
			syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			free = false
		}
		for _, s := range r.Sub {
			walk(s)
		}
	}
	walk(prog)
	return free
}
