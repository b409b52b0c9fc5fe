package secrets

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// A mnemonic leaks as two of its words together, in its order, as whole
// words: a fixed string that holds the pair inside longer words ("hen
// present" in "when present") is not a leak, and the pair itself is,
// whatever blanks part the two words.
func TestLeaksReadsMnemonicPairsAsWords(t *testing.T) {
	const secret = "wait hen present stuff decline brick globe hour alone toilet course orient"
	for _, c := range []struct {
		out  string
		leak bool
	}{
		{"Wait before retrying; honour retry_after_ms when present.", false},
		{"the hens presented", false},
		{"hen present", true},
		{"a hen present.", true},
		{"(globe hour)", true},
		{"Hour alone", false}, // a different case is a different word
		{"hour alone", true},
		{"hour\nalone", true}, // one word per line, as a mnemonic is often written
		{"globe\r\n  hour", true},
		{"hourly\nalone", false},
		{"hour\nalone\ntoilet", true},
		{"hour.\nalone", false},
		{"phrase=globe+hour+alone", true}, // form-encoded: '+' for a space
		{"globe%20hour", true},
	} {
		if _, got := Leaks(c.out, secret); got != c.leak {
			t.Errorf("Leaks(%q) = %v, want %v", c.out, got, c.leak)
		}
	}
}

// A piece the answer without the secret holds too is the service's own
// text; any other piece, in the same string or another, still leaks.
func TestLeakInAnswerLeavesTheServicesOwnText(t *testing.T) {
	const secret = "wait when present stuff decline brick globe hour alone toilet course orient"
	msg := func(vs ...string) proto.Message {
		l := make([]any, len(vs))
		for i, v := range vs {
			l[i] = v
		}
		lv, err := structpb.NewList(l)
		if err != nil {
			t.Fatal(err)
		}
		return lv
	}
	guidance := "honour retry_after_ms when present."
	for _, c := range []struct {
		answer, base []string
		leak         string
	}{
		{[]string{guidance}, []string{guidance}, ""},
		{[]string{guidance}, []string{"other"}, "when present"},
		{[]string{guidance + " globe hour"}, []string{guidance}, "globe hour"},
		{[]string{guidance, "hour alone"}, []string{guidance}, "hour alone"},
	} {
		_, w, ok := LeakInAnswer(msg(c.answer...), secret, func() proto.Message { return msg(c.base...) })
		if ok != (c.leak != "") || w != c.leak {
			t.Errorf("%q against %q: %q %v, want %q", c.answer, c.base, w, ok, c.leak)
		}
	}
}
