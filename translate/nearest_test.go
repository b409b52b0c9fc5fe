package translate

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

func classifiedRequest(code, class string) *errsvcv1.TranslateRequest {
	return &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_ClassifiedError{
		ClassifiedError: &errsvcv1.ClassifiedError{Code: code, Class: class, Message: "m"}}}
}

func TestNearestName(t *testing.T) {
	for _, c := range []struct{ given, want string }{
		{"TRANSIENT", "transient"},
		{"rate-limited", "rate_limited"},
		{"rate_limted", "rate_limited"},
		{"transiant", "transient"},
		{"permanant", "permanent"},
		{"labbi", "labby_error"},
		{"targtes", "targets"},
		{"clasification", "classification"},
		{"auth_requierd", "auth_required"},
		{"overloaded_error", ""}, // not a term of these lists, nor near one
		{"x", ""},
		{"", ""},
	} {
		names := []string{"transient", "permanent", "auth_required", "context_overflow", "rate_limited", "labby_error",
			"agent_error", "targets", "classification", "context"}
		if got := NearestName(c.given, names); got != c.want {
			t.Errorf("NearestName(%q) = %q, want %q", c.given, got, c.want)
		}
	}
}

// A near miss is named in the note and changes nothing else: the unknown
// class still passes through verbatim and decides nothing.
func TestNearMissNamesTheTermAndDecidesNothing(t *testing.T) {
	near := classifiedRequest("rate_limited", "TRANSIENT")
	far := classifiedRequest("rate_limited", "zzzzzzzzz")
	a, err := Translate(near)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Translate(far)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range a.GetNotes() {
		found = found || n.GetCode() == "unknown_class" && strings.Contains(n.GetMessage(), `did you mean "transient"?`)
	}
	if !found {
		t.Errorf("no unknown_class note names transient: %v", a.GetNotes())
	}
	// Everything but the notes and the class that passes through is the same.
	strip := func(r *errsvcv1.TranslateResponse) *errsvcv1.TranslateResponse {
		c := proto.Clone(r).(*errsvcv1.TranslateResponse)
		c.Notes = nil
		return c
	}
	as, bs := strip(a), strip(b)
	if got, want := strings.ReplaceAll(as.String(), "TRANSIENT", "zzzzzzzzz"), bs.String(); got != want {
		t.Errorf("a near miss decided otherwise than a far one:\n%s\n%s", got, want)
	}
}
