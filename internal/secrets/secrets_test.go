package secrets

import "testing"

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
