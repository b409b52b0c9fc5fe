package translate

import (
	"regexp"
	"testing"
)

// isCodeModeTool must accept exactly what the Code Mode schema's pattern
// accepts.
func TestIsCodeModeToolMatchesTheSchemaPattern(t *testing.T) {
	pattern := regexp.MustCompile(`^.+::.+$`)
	cases := []string{"", ":", "::", ":::", "::::", "a::", "::b", "a::b", "a:b", "a:::b", "::a::", "a::\nb", "a\n::b",
		"\na::b", "a::b\n", "github::create_issue", "é::é", "\xff::\xff", "a::b::c", " :: ", "a\r::b", "x::::"}
	for _, c := range cases {
		if got, want := isCodeModeTool(c), pattern.MatchString(c); got != want {
			t.Errorf("isCodeModeTool(%q) = %v, the pattern says %v", c, got, want)
		}
	}
}

func FuzzIsCodeModeTool(f *testing.F) {
	pattern := regexp.MustCompile(`^.+::.+$`)
	f.Add("github::create_issue")
	f.Add("::a::")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isCodeModeTool(s), pattern.MatchString(s); got != want {
			t.Fatalf("isCodeModeTool(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}
