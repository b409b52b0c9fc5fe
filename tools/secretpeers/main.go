// Command secretpeers puts errsvc's sanitiser and the secret scanners the
// registries serve on the same corpus: the fresh formats and the ordinary
// messages of testdata/secrets (internal/secrets), made anew for a seed.
//
//	go run ./tools/secretpeers dump DIR   # one file per text, and errsvc's own result
//	go run ./tools/secretpeers score DIR  # reads the peers' reports, prints the table
//
// tools/secretpeers/run.sh does both and runs the peers between them.
// A peer "catches" a format when it reports any finding in its file (a
// scanner flags, it does not redact: this is generous to it); it "flags" an
// ordinary message the same way. errsvc catches a format when no piece of
// the secret is left in Text's output, read as it is or decoded, and
// changes an ordinary message when Text's output differs from it.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/errsvc/errsvc/internal/secrets"
	"github.com/errsvc/errsvc/translate/sanitize"
)

type item struct {
	File   string `json:"file"`
	Class  string `json:"class,omitempty"`
	Errsvc bool   `json:"errsvc"` // caught (a format) or changed (an ordinary message)
}

type index struct {
	Seed     uint64 `json:"seed"`
	Formats  []item `json:"formats"`
	Ordinary []item `json:"ordinary"`
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: secretpeers dump|score DIR")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "dump":
		err = dump(os.Args[2])
	case "score":
		err = score(os.Args[2])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "secretpeers:", err)
		os.Exit(1)
	}
}

func dump(dir string) error {
	seed := secrets.Seed()
	formats, err := secrets.Fresh(seed)
	if err != nil {
		return err
	}
	ordinary, err := secrets.LoadAllOrdinary()
	if err != nil {
		return err
	}
	for _, sub := range []string{"f", "o"} {
		if err := os.MkdirAll(filepath.Join(dir, "corpus", sub), 0o755); err != nil {
			return err
		}
	}
	ix := index{Seed: seed}
	for n, e := range formats {
		file := filepath.Join("corpus", "f", strconv.Itoa(n)+".txt")
		if err := os.WriteFile(filepath.Join(dir, file), []byte(e.Text+"\n"), 0o644); err != nil {
			return err
		}
		_, leaked := secrets.Leaks(sanitize.Text(e.Text, 1<<20), e.Secret)
		class := strings.SplitN(strings.TrimPrefix(e.Name, "fresh:"), "/", 2)[0]
		ix.Formats = append(ix.Formats, item{File: file, Class: class, Errsvc: !leaked})
	}
	for n, m := range ordinary {
		file := filepath.Join("corpus", "o", strconv.Itoa(n)+".txt")
		if err := os.WriteFile(filepath.Join(dir, file), []byte(m+"\n"), 0o644); err != nil {
			return err
		}
		ix.Ordinary = append(ix.Ordinary, item{File: file, Errsvc: sanitize.Text(m, 1<<20) != m})
	}
	b, err := json.MarshalIndent(ix, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "index.json"), b, 0o644)
}

// flagged reads each peer's report into the set of files it flagged.
func flagged(dir string) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	norm := func(f string) string {
		if i := strings.Index(f, "corpus/"); i >= 0 {
			return f[i:]
		}
		return f
	}
	if b, err := os.ReadFile(filepath.Join(dir, "gitleaks.json")); err == nil {
		var findings []struct {
			File string `json:"File"`
		}
		if err := json.Unmarshal(b, &findings); err != nil {
			return nil, fmt.Errorf("gitleaks.json: %w", err)
		}
		set := map[string]bool{}
		for _, f := range findings {
			set[norm(f.File)] = true
		}
		out["gitleaks 8.30.1 (default config)"] = set
	}
	if b, err := os.ReadFile(filepath.Join(dir, "detect-secrets.json")); err == nil {
		var report struct {
			Results map[string][]json.RawMessage `json:"results"`
		}
		if err := json.Unmarshal(b, &report); err != nil {
			return nil, fmt.Errorf("detect-secrets.json: %w", err)
		}
		set := map[string]bool{}
		for f := range report.Results {
			set[norm(f)] = true
		}
		out["detect-secrets 1.5.0 (default plugins)"] = set
	}
	return out, nil
}

func score(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		return err
	}
	var ix index
	if err := json.Unmarshal(b, &ix); err != nil {
		return err
	}
	peers, err := flagged(dir)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(peers))
	for n := range peers {
		names = append(names, n)
	}
	sort.Strings(names)
	count := func(items []item, hit func(item) bool) int {
		n := 0
		for _, it := range items {
			if hit(it) {
				n++
			}
		}
		return n
	}
	union := func(it item) bool {
		for _, n := range names {
			if peers[n][it.File] {
				return true
			}
		}
		return false
	}
	fmt.Printf("Corpus: %d formats, %d ordinary messages (seed %d).\n\n", len(ix.Formats), len(ix.Ordinary), ix.Seed)
	fmt.Println("| scanner | formats caught | ordinary messages flagged |")
	fmt.Println("|---|---:|---:|")
	row := func(name string, caught, flagged int) {
		fmt.Printf("| %s | %d of %d (%.1f %%) | %d of %d |\n", name, caught, len(ix.Formats),
			100*float64(caught)/float64(len(ix.Formats)), flagged, len(ix.Ordinary))
	}
	row("errsvc (both layers)", count(ix.Formats, func(it item) bool { return it.Errsvc }), count(ix.Ordinary, func(it item) bool { return it.Errsvc }))
	for _, n := range names {
		set := peers[n]
		row(n, count(ix.Formats, func(it item) bool { return set[it.File] }), count(ix.Ordinary, func(it item) bool { return set[it.File] }))
	}
	if len(names) > 1 {
		row("union of the peers", count(ix.Formats, union), count(ix.Ordinary, union))
	}
	// By class: where the peers miss.
	classes := map[string][3]int{}
	for _, it := range ix.Formats {
		c := classes[it.Class]
		c[0]++
		if it.Errsvc {
			c[1]++
		}
		if union(it) {
			c[2]++
		}
		classes[it.Class] = c
	}
	keys := make([]string, 0, len(classes))
	for k := range classes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Println()
	fmt.Println("| class | formats | errsvc | union of the peers |")
	fmt.Println("|---|---:|---:|---:|")
	for _, k := range keys {
		c := classes[k]
		fmt.Printf("| %s | %d | %d | %d |\n", k, c[0], c[1], c[2])
	}
	return nil
}
