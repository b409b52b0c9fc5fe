package translate

import (
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
	"google.golang.org/protobuf/reflect/protoreflect"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Names for mistakes: a term or a field that is not known, but close to
// one that is, is named with it ("did you mean transient?"). The decision
// is never changed by it (the contract pins its spellings; an unknown term
// still passes through as one), only the note or the refusal says more.

// Nearest is the term of v a caller most likely meant by given, or "" when
// none is close: the same term in another case or with other separators
// (TRANSIENT, rate-limited), or one at most a quarter of its length (at
// least one edit) away once so folded.
func (v *Vocabulary) Nearest(given string) string {
	terms := make([]string, 0, len(v.Terms))
	for _, t := range v.Terms {
		terms = append(terms, t.Wire)
	}
	return NearestName(given, terms)
}

// NearestName is Nearest over any list of names (fields of a message, the
// sources of a request).
func NearestName(given string, names []string) string {
	g := foldName(given)
	if g == "" || len(g) > 64 {
		return ""
	}
	best, bestD := "", 1<<30
	for _, n := range names {
		f := foldName(n)
		if f == g {
			return n
		}
		limit := max(1, len(f)/4)
		// A field named by its first word (labbi for labby_error).
		d := levenshtein.ComputeDistance(g, f)
		if d == 2 && sameLetters(g, f) {
			d = 1 // two letters swapped ("targtes"): one slip of the hand
		}
		if head, _, ok := strings.Cut(f, "_"); ok && len(head) >= 4 {
			if dh := levenshtein.ComputeDistance(g, head); dh <= max(1, len(head)/4) && dh < d {
				d = dh
				limit = d
			}
		}
		if d <= limit && d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// sameLetters reports whether a and b hold the same bytes in another order.
func sameLetters(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := []byte(a), []byte(b)
	slices.Sort(x)
	slices.Sort(y)
	return string(x) == string(y)
}

// foldName is a name in lower case with '-', ' ' and '.' read as '_'.
func foldName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '-' || r == ' ' || r == '.':
			return '_'
		case 'A' <= r && r <= 'Z':
			return r + 32
		}
		return r
	}, strings.TrimSpace(s))
}

// didYouMean is "; did you mean %q?" for a near name, "" for none.
func didYouMean(near string) string {
	if near == "" {
		return ""
	}
	return "; did you mean \"" + near + "\"?"
}

// Mistake is a name a request used that the contract does not have, with
// what to say about it.
type Mistake struct{ Field, Description string }

// maxNamedMistakes bounds the names a refusal lists.
const maxNamedMistakes = 4

// UnknownTopLevel lists the members of a request's additional_fields (its
// top-level names the contract does not have, put there by the JSON
// decoders), in order, each with the nearest known name: a request refused
// for having no source says that "labbi" was no field, and which one was
// meant.
func UnknownTopLevel(req *errsvcv1.TranslateRequest) []Mistake {
	extra := req.GetAdditionalFields().GetFields()
	if len(extra) == 0 {
		return nil
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	names := fieldNames((&errsvcv1.TranslateRequest{}).ProtoReflect().Descriptor())
	var out []Mistake
	for _, k := range keys[:min(len(keys), maxNamedMistakes)] {
		out = append(out, Mistake{Field: k, Description: "not a field of errsvc.v1.TranslateRequest" + didYouMean(NearestName(k, names))})
	}
	return out
}

// fieldNames are md's field names but its open object's.
func fieldNames(md protoreflect.MessageDescriptor) []string {
	names := make([]string, 0, md.Fields().Len())
	for i := 0; i < md.Fields().Len(); i++ {
		if n := md.Fields().Get(i).Name(); n != additionalFieldName {
			names = append(names, string(n))
		}
	}
	return names
}

// nearestField is the field of the message at path's parent (read from
// TranslateRequest's descriptor; [i] and map keys aside) nearest to its
// last name, or "" when there is none or the path leaves the contract.
func nearestField(path string) string {
	segs := strings.Split(path, ".")
	md := (&errsvcv1.TranslateRequest{}).ProtoReflect().Descriptor()
	for _, seg := range segs[:len(segs)-1] {
		if i := strings.IndexByte(seg, '['); i >= 0 {
			seg = seg[:i]
		}
		fd := md.Fields().ByName(protoreflect.Name(seg))
		if fd == nil || fd.Message() == nil || fd.IsMap() || fd.Message().FullName().Parent() == "google.protobuf" {
			return ""
		}
		md = fd.Message()
	}
	last := segs[len(segs)-1]
	if strings.HasPrefix(last, "#") {
		return "" // an unknown field of the binary wire, by number
	}
	return NearestName(last, fieldNames(md))
}
