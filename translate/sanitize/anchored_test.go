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

// sortCandidates is one comparison sort by cmpCandidates, whichever way it
// takes: candidate sets drawn per seed (ERRSVC_PROPERTY_SEED replays one),
// under and over packCandidates, in near order and shuffled, with ties at
// a position (two keywords of one rule) that only the read bounds tell
// apart; and the candidates of the hostile heads and of the corpora's
// texts joined, each enough for the packed sort.
func TestSortCandidatesIsOneSort(t *testing.T) {
	r := rand.New(rand.NewPCG(secrets.Seed(), 12))
	check := func(name string, cands []candidate) {
		t.Helper()
		want := slices.Clone(cands)
		slices.SortFunc(want, cmpCandidates)
		got := slices.Clone(cands)
		sortCandidates(got, new(scratch))
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %d candidates sorted otherwise than one sort (ERRSVC_PROPERTY_SEED=%d)", name, len(cands), secrets.Seed())
		}
	}
	for range 300 {
		n := r.IntN(3 * packCandidates)
		rules := 1 + r.IntN(40)
		cands := make([]candidate, n)
		pos := 0
		for i := range cands {
			if r.IntN(4) > 0 {
				pos += r.IntN(6)
			}
			c := candidate{rule: r.IntN(rules), pos: max(0, pos-r.IntN(8)), kwLen: 3 + r.IntN(3), end: pos + r.IntN(3)*100}
			if r.IntN(8) == 0 {
				c.secretFrom, c.secretTo = c.pos+r.IntN(4), c.pos+10+r.IntN(4)
			}
			c.whole = r.IntN(50) == 0
			cands[i] = c
		}
		check("near order", cands)
		r.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
		check("shuffled", cands)
	}
	rs := loadRules()
	sc := new(scratch)
	texts := []string{strings.Repeat("xoxb-+%41", 4000), strings.Repeat("key=%", 6000), strings.Repeat("AKIA ghp_ sk-", 3000)}
	es, err := secrets.LoadAll()
	if err != nil {
		t.Fatal(err)
	}
	var joined strings.Builder
	for _, e := range es {
		joined.WriteString(e.Text)
		joined.WriteByte('\n')
	}
	texts = append(texts, joined.String())
	for _, s := range texts {
		cands := slices.Clone(rs.collect(s, sc))
		if len(cands) < packCandidates {
			t.Fatalf("%.20q: %d candidates, too few for the packed sort", s, len(cands))
		}
		check(s[:min(len(s), 20)], cands)
	}
}
