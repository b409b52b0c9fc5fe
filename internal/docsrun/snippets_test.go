package docsrun

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/errsvc/errsvc/internal/golden"
	"github.com/errsvc/errsvc/internal/testenv"
	"github.com/errsvc/errsvc/server"
)

// The documents whose snippets run. In them:
//
//   - a ```sh block whose first line starts with "curl " or "buf curl " is a
//     command; it runs in bash against the test's server (127.0.0.1:8080 and
//     127.0.0.1:9090 in the text become the real ports) and must be followed
//     by a ```json expect block: the answer must contain that JSON (objects:
//     every member given, recursively; arrays: every element given matches
//     a distinct element of the answer). "json expect status=400" states the
//     HTTP status (default 200); for buf curl "exit=N" states the exit code
//     (default 0; a failed call's JSON error is read from stderr);
//   - a ```go block is a Go SDK snippet when a ```text expect block follows
//     it (with only other SDKs' snippets in between, see sdk_test.go),
//     holding its exact output. A block that starts with "package main" is a
//     whole program; any other is the body of a function with ctx
//     (context.Context) and c (*errsvcclient.Client, dialled to the server)
//     in scope. All bodies compile into one program. The TypeScript, Python
//     and Java snippets follow the same rule and run in TestSDKSnippets.
var documents = []string{"docs/RECIPES.md", "docs/TUTORIAL.md", "docs/API.md"}

type block struct {
	doc  string
	line int
	info string
	text string
}

func (b block) String() string { return fmt.Sprintf("%s:%d", b.doc, b.line) }

func parseBlocks(t *testing.T, root, doc string) []block {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, doc))
	if err != nil {
		t.Fatal(err)
	}
	var out []block
	var cur *block
	var fence, indent string
	for i, line := range strings.Split(string(raw), "\n") {
		trim := strings.TrimSpace(line)
		if cur == nil {
			if strings.HasPrefix(trim, "```") {
				fence = trim[:strings.LastIndex(trim, "`")+1]
				indent = line[:len(line)-len(strings.TrimLeft(line, " "))]
				cur = &block{doc: doc, line: i + 1, info: strings.TrimSpace(trim[len(fence):])}
			}
			continue
		}
		if trim == fence {
			out = append(out, *cur)
			cur = nil
			continue
		}
		// Blocks inside list items are indented; take the fence's indent off.
		cur.text += strings.TrimPrefix(line, indent) + "\n"
	}
	return out
}

func lang(info string) string { return strings.Fields(info + " x")[0] }

func isCommand(b block) bool {
	if l := lang(b.info); l != "sh" && l != "bash" && l != "shell" {
		return false
	}
	first := strings.TrimSpace(b.text)
	return strings.HasPrefix(first, "curl ") || strings.HasPrefix(first, "buf curl ")
}

var attrRe = regexp.MustCompile(`(status|exit)=(\d+)`)

func expectAttr(info, name string, def int) int {
	for _, m := range attrRe.FindAllStringSubmatch(info, -1) {
		if m[1] == name {
			n, _ := strconv.Atoi(m[2])
			return n
		}
	}
	return def
}

type live struct {
	root, http, grpc string
}

func startServer(t *testing.T) live {
	t.Helper()
	root, err := golden.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Options{
		GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("Serve did not return")
		}
	})
	return live{root: root, http: srv.HTTPAddr(), grpc: srv.GRPCAddr()}
}

func (l live) local(s string) string {
	return strings.NewReplacer("127.0.0.1:8080", l.http, "127.0.0.1:9090", l.grpc).Replace(s)
}

// TestSnippets runs every command and Go snippet of the docs against a
// live errsvc and checks what each says it answers.
func TestSnippets(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Missing(t, fmt.Sprintf("the doc snippets need %s on PATH: %v", tool, err))
		}
	}
	l := startServer(t)
	// buf runs from its own tool module; build it once before the
	// commands run in parallel.
	warm := exec.Command("go", "tool", "-modfile="+filepath.Join(l.root, "tools", "buf", "go.mod"), "buf", "--version")
	warm.Dir = l.root
	if out, err := warm.CombinedOutput(); err != nil {
		t.Fatalf("go tool buf: %v\n%s", err, out)
	}
	var goBodies, goPrograms []snippet
	counts := map[string]int{}
	for _, doc := range documents {
		blocks := parseBlocks(t, l.root, doc)
		for i := 0; i < len(blocks); i++ {
			b := blocks[i]
			if !isCommand(b) {
				continue
			}
			if i+1 >= len(blocks) || !strings.HasPrefix(blocks[i+1].info, "json expect") {
				t.Errorf("%s: a command must be followed by a ```json expect block", b)
				continue
			}
			exp := blocks[i+1]
			i++
			counts[doc+" commands"]++
			t.Run(fmt.Sprintf("%s:%d", filepath.Base(doc), b.line), func(t *testing.T) {
				t.Parallel()
				runCommand(t, l, b, exp)
			})
		}
		byLang, _ := sdkSnippets(blocks)
		for _, s := range byLang["go"] {
			counts[doc+" go"]++
			if strings.HasPrefix(strings.TrimSpace(s.code.text), "package main") {
				goPrograms = append(goPrograms, s)
			} else {
				goBodies = append(goBodies, s)
			}
		}
	}
	t.Logf("snippets run: %v", counts)
	if counts["docs/RECIPES.md commands"] == 0 {
		t.Error("no command found in docs/RECIPES.md")
	}
	t.Run("go", func(t *testing.T) {
		t.Parallel()
		runGoBodies(t, l, goBodies)
	})
	for _, p := range goPrograms {
		t.Run(fmt.Sprintf("go-program/%s:%d", filepath.Base(p.code.doc), p.code.line), func(t *testing.T) {
			t.Parallel()
			runGoProgram(t, l, p)
		})
	}
}

const statusMark = "\n@@status="

func runCommand(t *testing.T, l live, b, exp block) {
	prelude := fmt.Sprintf("set -o pipefail\ncurl() { command curl -sS --max-time 20 --write-out '%s%%{http_code}' \"$@\"; }\nbuf() { go tool -modfile=%s/tools/buf/go.mod buf \"$@\"; }\n",
		strings.ReplaceAll(statusMark, "\n", `\n`), l.root)
	cmd := exec.Command("bash", "-c", prelude+l.local(b.text))
	cmd.Dir = l.root
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	exit := 0
	if ee, ok := err.(*exec.ExitError); ok {
		exit = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	if strings.HasPrefix(strings.TrimSpace(b.text), "buf ") {
		if want := expectAttr(exp.info, "exit", 0); exit != want {
			t.Fatalf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", b, exit, want, out, stderr.String())
		}
		if exit != 0 {
			out = stderr.String()
		}
	} else {
		if exit != 0 {
			t.Fatalf("%s: exit %d\nstderr: %s", b, exit, stderr.String())
		}
		k := strings.LastIndex(out, statusMark)
		if k < 0 {
			t.Fatalf("%s: no status in output %q", b, out)
		}
		status, _ := strconv.Atoi(strings.TrimSpace(out[k+len(statusMark):]))
		out = out[:k]
		if want := expectAttr(exp.info, "status", 200); status != want {
			t.Errorf("%s: HTTP status %d, want %d\n%s", b, status, want, out)
		}
	}
	var got, want any
	if err := json.Unmarshal([]byte(exp.text), &want); err != nil {
		t.Fatalf("%s: the expected block is not JSON: %v", exp, err)
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%s: the answer is not JSON: %v\n%s", b, err, out)
	}
	if path, ok := contains(got, want, "$"); !ok {
		pretty, _ := json.MarshalIndent(got, "", "  ")
		t.Errorf("%s: the answer does not hold the expected output at %s\nanswer:\n%s", exp, path, pretty)
	}
}

// contains reports whether got holds want: objects member by member,
// arrays element by element (each wanted element matching a distinct one),
// anything else by equality. It returns where it first differs.
func contains(got, want any, path string) (string, bool) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path, false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				return path + "." + k + " (missing)", false
			}
			if p, ok := contains(gv, wv, path+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok {
			return path, false
		}
		used := make([]bool, len(g))
		for i, wv := range w {
			found := false
			for j, gv := range g {
				if used[j] {
					continue
				}
				if _, ok := contains(gv, wv, ""); ok {
					used[j], found = true, true
					break
				}
			}
			if !found {
				return fmt.Sprintf("%s[%d]", path, i), false
			}
		}
		return "", true
	}
	return path, reflect.DeepEqual(got, want)
}

const goImports = `import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	errsvcclient "github.com/errsvc/errsvc/clients/go"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/protobuf/types/known/structpb"
)

var (
	_ = fmt.Sprint
	_ = log.Fatal
	_ = strings.Contains
	_ = time.Second
	_ errsvcv1.TranslateRequest
	_ = structpb.NewStruct
	_ = errsvcclient.Decide
)
`

const snippetMark = "@@snippet "

func runGoBodies(t *testing.T, l live, snippets []snippet) {
	if len(snippets) == 0 {
		return
	}
	var src strings.Builder
	src.WriteString("package main\n\n" + goImports)
	for i, s := range snippets {
		fmt.Fprintf(&src, "\n// %s\nfunc snippet%d(ctx context.Context, c *errsvcclient.Client) {\n%s}\n", s.code, i, s.code.text)
	}
	src.WriteString("\nfunc main() {\n\tc, err := errsvcclient.Dial(os.Args[1])\n\tif err != nil {\n\t\tlog.Fatal(err)\n\t}\n\tdefer c.Close()\n\tctx := context.Background()\n")
	for i := range snippets {
		fmt.Fprintf(&src, "\tfmt.Println(%q)\n\tsnippet%d(ctx, c)\n", snippetMark+strconv.Itoa(i), i)
	}
	src.WriteString("}\n")
	out := goRun(t, l, src.String(), l.grpc)
	parts := strings.Split(out, snippetMark)
	if len(parts) != len(snippets)+1 {
		t.Fatalf("the snippets program printed %d parts, want %d:\n%s", len(parts)-1, len(snippets), out)
	}
	for i, s := range snippets {
		got := parts[i+1]
		got = got[strings.Index(got, "\n")+1:]
		if strings.TrimSpace(got) != strings.TrimSpace(s.want.text) {
			t.Errorf("%s: the Go snippet printed\n%s\nwant (%s)\n%s", s.code, got, s.want, s.want.text)
		}
	}
}

func runGoProgram(t *testing.T, l live, s snippet) {
	out := goRun(t, l, l.local(s.code.text))
	if strings.TrimSpace(out) != strings.TrimSpace(s.want.text) {
		t.Errorf("%s: the Go program printed\n%s\nwant (%s)\n%s", s.code, out, s.want, s.want.text)
	}
}

// goRun compiles and runs one main package with the module's dependencies.
func goRun(t *testing.T, l live, src string, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", append([]string{"run", file}, args...)...)
	cmd.Dir = l.root
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go run: %v\n%s\n%s\nsource:\n%s", err, stderr.String(), stdout.String(), src)
	}
	return stdout.String()
}

func TestContains(t *testing.T) {
	got := map[string]any{"a": 1.0, "b": map[string]any{"c": "x", "d": true}, "l": []any{"p", "q", map[string]any{"k": "v", "z": 2.0}}}
	for _, tc := range []struct {
		want any
		ok   bool
	}{
		{map[string]any{}, true},
		{map[string]any{"a": 1.0}, true},
		{map[string]any{"a": 2.0}, false},
		{map[string]any{"b": map[string]any{"c": "x"}}, true},
		{map[string]any{"b": map[string]any{"e": "x"}}, false},
		{map[string]any{"l": []any{"q", "p"}}, true},
		{map[string]any{"l": []any{map[string]any{"k": "v"}}}, true},
		{map[string]any{"l": []any{"p", "p"}}, false},
		{map[string]any{"a": "1"}, false},
	} {
		if _, ok := contains(got, tc.want, "$"); ok != tc.ok {
			t.Errorf("contains(%v) = %v, want %v", tc.want, ok, tc.ok)
		}
	}
}
