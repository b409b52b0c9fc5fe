package sanitize

import (
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/errsvc/errsvc/internal/secrets"
)

type corpusEntry = secrets.Entry

func loadCorpus(t testing.TB) []corpusEntry {
	t.Helper()
	es, err := secrets.Load()
	if err != nil {
		t.Fatal(err)
	}
	return es
}

var (
	leaks       = secrets.Leaks
	entropyPart = secrets.EntropyPart
)

func TestCorpusShape(t *testing.T) {
	es := loadCorpus(t)
	if len(es) < 45 {
		t.Fatalf("corpus has %d entries, want at least 45", len(es))
	}
	names := map[string]bool{}
	for _, e := range es {
		if e.Name == "" || names[e.Name] {
			t.Errorf("entry name %q empty or repeated", e.Name)
		}
		names[e.Name] = true
		if !strings.Contains(e.Text, e.Secret) {
			t.Errorf("%s: text does not contain its secret", e.Name)
		}
		// The check must be able to fail: the raw text leaks.
		if _, ok := leaks(e.Text, e.Secret); !ok {
			t.Errorf("%s: leak check does not flag the unsanitised text", e.Name)
		}
		if len(entropyPart(e.Secret)) < 8 {
			t.Errorf("%s: secret's high-entropy part is shorter than 8 bytes", e.Name)
		}
	}
	for _, want := range []string{"sk-proj-", "sk-ant-api03-", "ghp_", "github_pat_", "gho_", "glpat-",
		"xoxb-", "xoxp-", "xapp-", "AKIA", "AIza", "eyJ", "sk_live_", "npm_", "tskey-"} {
		found := false
		for _, e := range es {
			if strings.Contains(e.Secret, want) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("corpus has no secret of kind %q", want)
		}
	}
}

func TestCorpusText(t *testing.T) {
	for _, e := range loadCorpus(t) {
		t.Run(e.Name, func(t *testing.T) {
			out, rep := TextReport(e.Text, CauseCap)
			if w, ok := leaks(out, e.Secret); ok {
				t.Fatalf("output leaks %q:\n%s", w, out)
			}
			if !rep.Redacted {
				t.Errorf("report does not say Redacted")
			}
			// A small cap must not leak either (redaction comes first).
			for _, c := range []int{20, 64, 300} {
				if w, ok := leaks(Text(e.Text, c), e.Secret); ok {
					t.Errorf("cap %d leaks %q", c, w)
				}
			}
		})
	}
}

func TestCorpusValue(t *testing.T) {
	for _, e := range loadCorpus(t) {
		t.Run(e.Name, func(t *testing.T) {
			in, err := structpb.NewValue(map[string]any{
				"error": map[string]any{
					"message": e.Text,
					"details": []any{e.Text, 42.0, map[string]any{"cause": e.Text}},
				},
				e.Text: "text as a key",
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, lim := range []Limits{DefaultLimits, {StringCap: 128, MaxDepth: 2, MaxItems: 2, MaxBytes: 600}} {
				out, _ := Value(in, lim)
				var sb strings.Builder
				writeJSON(&sb, out)
				for _, s := range allStrings(out) {
					if w, ok := leaks(s, e.Secret); ok {
						t.Fatalf("limits %+v: string leaks %q:\n%s", lim, w, s)
					}
				}
			}
			// A text that is itself JSON, parsed into a structured value.
			var parsed any
			if json.Unmarshal([]byte(e.Text), &parsed) == nil {
				v, err := structpb.NewValue(parsed)
				if err != nil {
					t.Fatal(err)
				}
				out, _ := Value(v, DefaultLimits)
				for _, s := range allStrings(out) {
					if w, ok := leaks(s, e.Secret); ok {
						t.Fatalf("parsed JSON: string leaks %q:\n%s", w, s)
					}
				}
			}
		})
	}
}

// allStrings lists every string and key in v.
func allStrings(v *structpb.Value) []string {
	var out []string
	var walk func(v *structpb.Value)
	walk = func(v *structpb.Value) {
		switch k := v.GetKind().(type) {
		case *structpb.Value_StringValue:
			out = append(out, k.StringValue)
		case *structpb.Value_StructValue:
			for key, f := range k.StructValue.GetFields() {
				out = append(out, key)
				walk(f)
			}
		case *structpb.Value_ListValue:
			for _, item := range k.ListValue.GetValues() {
				walk(item)
			}
		}
	}
	walk(v)
	return out
}
