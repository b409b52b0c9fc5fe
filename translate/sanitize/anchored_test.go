package sanitize

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/errsvc/errsvc/internal/secrets"
)

// gapPieces build texts where the gap rules' leads, gaps and tails meet:
// their commands, flags, headers and values, and the bytes that end or
// join them (a word byte before a lead, a line break inside a gap).
var gapPieces = []string{
	"curl", "curl ", " -u ", " -H ", " --user ", " --header=", "a:{", "bob:Zx9vQ2mL7pR4", "'bob:Zx9vQ2mL7pR4'",
	`"Authorization: Bearer abcdefgh1234"`, `'X-Api-Key: Zx9vQ2mL7pR4'`, `"Authorization: Basic YWxhZGRpbjpvcGVu"`,
	"mysql", "mariadb-dump", " -p", "Zx9vQ2mL7pR4", " -pSecret1", "expect ", "password:", "Passphrase ", "send \"pw\\r\"",
	" send -- \"Zx9vQ2mL7pR4\"", "-----BEGIN RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEA", "-----END RSA PRIVATE KEY-----",
	"$krb5tgs$23$", "*user$REALM*$", "abc", " ", "\n", "\r\n", "\t", "{", "9", "]", "-", "=", "'", `"`, "\xff", "é"[:1],
}

// TestMatchFromIsMatchAt: for every rule matchFrom serves (gapRule),
// matchFrom and matchAt give one answer at every position of texts made
// of gapPieces (drawn afresh on every run; ERRSVC_PROPERTY_SEED replays
// one), of the corpora and of the hostile heads, for the window a hit
// there gets. matchFrom only skips matchAt where its checks rule a match
// out, so any difference is a check that ruled one out wrongly.
func TestMatchFromIsMatchAt(t *testing.T) {
	rs := loadRules()
	var gaps []*leakRule
	for i := range rs.rules {
		if rs.rules[i].gap != nil {
			gaps = append(gaps, &rs.rules[i])
		}
	}
	if len(gaps) < 4 {
		t.Fatalf("%d rules with a gap; the curl, mysql and expect rules have one", len(gaps))
	}
	texts := []string{
		strings.Repeat("curl -u a:{", 60), strings.Repeat("curl -H a:{", 60), strings.Repeat("mysql -p]9", 60),
		strings.Repeat("expect password send \"a", 30), strings.Repeat("-----BEGIN ", 60),
	}
	es, err := secrets.LoadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		texts = append(texts, e.Text)
	}
	r := rand.New(rand.NewPCG(secrets.Seed(), 11))
	for range 400 {
		var b strings.Builder
		for n := 2 + r.IntN(24); n > 0; n-- {
			b.WriteString(gapPieces[r.IntN(len(gapPieces))])
		}
		texts = append(texts, b.String())
	}
	matched, compared := 0, 0
	for _, s := range texts {
		for _, rule := range gaps {
			var tm tailMemo // the positions in order, as a text's hits come
			for pos := range len(s) {
				end := rule.startEnd(s, pos, len(rule.anchors[0].kw))
				want, got := rule.matchAt(s, pos, end), rule.matchFrom(s, pos, end, &tm)
				compared++
				if !slices.Equal(want, got) {
					t.Fatalf("%s at %d of %q: matchFrom %v, matchAt %v (ERRSVC_PROPERTY_SEED=%d)", rule.id, pos, s, got, want, secrets.Seed())
				}
				if want != nil {
					matched++
				}
			}
		}
	}
	if matched < 50 {
		t.Fatalf("only %d of %d positions matched: the texts do not reach the rules' tails", matched, compared)
	}
	t.Logf("%d positions, %d matches", compared, matched)
}
