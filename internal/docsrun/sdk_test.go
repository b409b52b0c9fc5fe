package docsrun

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/errsvc/errsvc/internal/golden"
	"github.com/errsvc/errsvc/internal/testenv"
)

// The SDK snippets of the documents. A ```go, ```ts, ```python or ```java
// block is a snippet when a ```text expect block follows it with only
// snippets of the other SDKs in between (so one expect block can hold the
// output of several languages); the snippet must print exactly that text.
// Any other code block is an illustration and is not run.
//
// Beside Go (run by TestSnippets), each SDK's snippets are function bodies
// run after that language's setup block ("```ts setup", "```python setup",
// "```java setup", one each in the documents): its imports and its client,
// `client`, made for 127.0.0.1:9090 / 127.0.0.1:8080 (the real ports in the
// test). A block that is a whole program (TypeScript starting with an
// import, Java declaring a class, any Python) runs as it is.
//
// All snippets of one language run in ONE process (one tsc and one node, one
// python, one javac and one java), each after a marker line; a snippet that
// throws prints the error in place of its output and the others still run.

// sdkLangs maps a fence's language to the SDK it is.
var sdkLangs = map[string]string{
	"go": "go", "ts": "typescript", "typescript": "typescript",
	"python": "python", "py": "python", "java": "java",
}

type snippet struct{ code, want block }

func hasWord(info, word string) bool {
	for _, f := range strings.Fields(info) {
		if f == word {
			return true
		}
	}
	return false
}

// sdkSnippets returns the runnable SDK snippets of one document's blocks by
// SDK, and its setup blocks.
func sdkSnippets(blocks []block) (map[string][]snippet, map[string][]block) {
	out := map[string][]snippet{}
	setups := map[string][]block{}
	var pending []block
	for _, b := range blocks {
		sdk := sdkLangs[lang(b.info)]
		switch {
		case strings.HasPrefix(b.info, "text expect"):
			for _, p := range pending {
				k := sdkLangs[lang(p.info)]
				out[k] = append(out[k], snippet{code: p, want: b})
			}
			pending = nil
		case sdk != "" && hasWord(b.info, "setup"):
			setups[sdk] = append(setups[sdk], b)
			pending = nil
		case sdk != "":
			// A second block of the same SDK before an expect block: the
			// first was an illustration.
			kept := pending[:0]
			for _, p := range pending {
				if sdkLangs[lang(p.info)] != sdk {
					kept = append(kept, p)
				}
			}
			pending = append(kept, b)
		default:
			pending = nil
		}
	}
	return out, setups
}

// sdkRunner runs one SDK's snippets in one process and returns what it printed.
type sdkRunner struct {
	name  string   // the SDK, as in sdkLangs
	env   string   // set by clients/test.sh once the SDK is built and installed
	what  string   // what env holds
	tools []string // needed on PATH
	run   func(t *testing.T, l live, setEnv string, setup block, snippets []snippet) string
}

var sdkRunners = []sdkRunner{
	{"typescript", "ERRSVC_DOCS_TYPESCRIPT", "clients/typescript with node_modules and dist/ built", []string{"node"}, runTypeScript},
	{"python", "ERRSVC_DOCS_PYTHON", "a Python interpreter with errsvc-client installed", nil, runPython},
	{"java", "ERRSVC_DOCS_JAVA_CLASSPATH", "the Java SDK's classes and runtime dependencies", []string{"javac", "java"}, runJava},
}

type docSnippets struct {
	byLang map[string][]snippet
	setups map[string][]block
}

func collectSnippets(t *testing.T, root string) docSnippets {
	t.Helper()
	d := docSnippets{byLang: map[string][]snippet{}, setups: map[string][]block{}}
	for _, doc := range documents {
		s, setups := sdkSnippets(parseBlocks(t, root, doc))
		for k, v := range s {
			d.byLang[k] = append(d.byLang[k], v...)
		}
		for k, v := range setups {
			d.setups[k] = append(d.setups[k], v...)
		}
	}
	return d
}

// TestSDKSnippets runs the TypeScript, Python and Java snippets of the docs
// against a live errsvc. clients/test.sh (make sdk) runs it once it has built
// each SDK, naming the build in ERRSVC_DOCS_TYPESCRIPT, ERRSVC_DOCS_PYTHON
// and ERRSVC_DOCS_JAVA_CLASSPATH; a language whose variable is unset is
// skipped, saying so (plain go test has no SDK build; clients/test.sh fails
// unless the test ran). A variable set while the language's toolchain is
// missing fails under CI=true or ERRSVC_REQUIRE_ALL and skips elsewhere
// (testenv.Missing).
func TestSDKSnippets(t *testing.T) {
	var l live
	for _, r := range sdkRunners {
		if os.Getenv(r.env) != "" {
			l = startServer(t) // one server for every language, stopped at the end
			break
		}
	}
	for _, r := range sdkRunners {
		t.Run(r.name, func(t *testing.T) {
			setEnv := os.Getenv(r.env)
			if setEnv == "" {
				t.Skipf("%s unset: clients/test.sh sets it to %s (bash clients/test.sh %s)", r.env, r.what, r.name)
			}
			if r.name == "python" {
				if _, err := exec.LookPath(setEnv); err != nil {
					testenv.Missing(t, fmt.Sprintf("the python snippets need %s=%s: %v", r.env, setEnv, err))
				}
			}
			for _, tool := range r.tools {
				if _, err := exec.LookPath(tool); err != nil {
					testenv.Missing(t, fmt.Sprintf("the %s snippets need %s on PATH: %v", r.name, tool, err))
				}
			}
			d := collectSnippets(t, l.root)
			snippets := d.byLang[r.name]
			if len(snippets) == 0 {
				t.Fatalf("no %s snippet in %v", r.name, documents)
			}
			setups := d.setups[r.name]
			if len(setups) != 1 {
				t.Fatalf("want one ```%s setup block in %v, found %d", r.name, documents, len(setups))
			}
			start := time.Now()
			out := r.run(t, l, setEnv, setups[0], snippets)
			checkPrinted(t, r.name, out, snippets)
			t.Logf("%d %s snippets run in %s", len(snippets), r.name, time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestSDKSnippetCoverage: every section of RECIPES.md and TUTORIAL.md that
// shows a curl command shows the same in every SDK, each run.
func TestSDKSnippetCoverage(t *testing.T) {
	root := moduleRoot(t)
	for _, doc := range []string{"docs/RECIPES.md", "docs/TUTORIAL.md"} {
		blocks := parseBlocks(t, root, doc)
		raw, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		// The "## " headings and their lines.
		var heads []int
		var names []string
		inFence := false
		for i, line := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inFence = !inFence
			}
			if !inFence && strings.HasPrefix(line, "## ") {
				heads = append(heads, i+1)
				names = append(names, line[3:])
			}
		}
		section := func(line int) int { return sort.SearchInts(heads, line+1) - 1 }
		has := map[int]map[string]bool{}
		byLang, _ := sdkSnippets(blocks)
		for k, ss := range byLang {
			for _, s := range ss {
				sec := section(s.code.line)
				if has[sec] == nil {
					has[sec] = map[string]bool{}
				}
				has[sec][k] = true
			}
		}
		for _, b := range blocks {
			if !isCommand(b) {
				continue
			}
			sec := section(b.line)
			for _, sdk := range []string{"go", "typescript", "python", "java"} {
				if !has[sec][sdk] {
					name := "(top)"
					if sec >= 0 {
						name = names[sec]
					}
					t.Errorf("%s: section %q has a command but no %s snippet", b, name, sdk)
				}
			}
		}
	}
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := golden.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

const printedMark = "@@snippet "

// checkPrinted splits a runner's output at its markers and holds each part
// to its snippet's expect block.
func checkPrinted(t *testing.T, sdk, out string, snippets []snippet) {
	t.Helper()
	parts := map[int]string{}
	cur := -1
	var b strings.Builder
	flush := func() {
		if cur >= 0 {
			parts[cur] = b.String()
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(out, "\n") {
		if rest, ok := strings.CutPrefix(line, printedMark); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
				flush()
				cur = n
				continue
			}
		}
		b.WriteString(line)
	}
	flush()
	for i, s := range snippets {
		got, ok := parts[i]
		if !ok {
			t.Errorf("%s: the %s snippet did not run (the runner stopped before it)\nrunner output:\n%s", s.code, sdk, out)
			continue
		}
		if strings.TrimSpace(got) != strings.TrimSpace(s.want.text) {
			t.Errorf("%s: the %s snippet printed\n%s\nwant (%s)\n%s", s.code, sdk, got, s.want, s.want.text)
		}
	}
}

// genFile is a generated source file that remembers which of its lines come
// from which doc block, to name the doc's line in a compiler's message.
type genFile struct {
	name  string
	b     strings.Builder
	lines int
	spans []span
}

type span struct {
	from, to int // generated lines [from, to)
	b        block
	off      int // the doc line of generated line from
}

func (g *genFile) raw(s string) {
	g.b.WriteString(s)
	g.lines += strings.Count(s, "\n")
}

// code adds text from block b (its first line is the line after the fence).
func (g *genFile) code(text string, b block) {
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	from := g.lines + 1
	g.raw(text)
	g.spans = append(g.spans, span{from: from, to: g.lines + 1, b: b, off: b.line + 1})
}

func (g *genFile) docLine(line int) (string, bool) {
	for _, s := range g.spans {
		if line >= s.from && line < s.to {
			return fmt.Sprintf("%s:%d", s.b.doc, s.off+line-s.from), true
		}
	}
	return "", false
}

// mapLines rewrites "<file>:<line>" (javac, stack traces) and
// "<file>(<line>,<col>)" (tsc) in a tool's output to the doc's file:line
// they come from.
func mapLines(out string, files ...*genFile) string {
	for _, g := range files {
		re := regexp.MustCompile(`(?:[^\s(]*/)?` + regexp.QuoteMeta(g.name) + `(?::(\d+)|\((\d+),\d+\))`)
		out = re.ReplaceAllStringFunc(out, func(m string) string {
			sub := re.FindStringSubmatch(m)
			n, _ := strconv.Atoi(sub[1] + sub[2])
			if d, ok := g.docLine(n); ok {
				return fmt.Sprintf("%s (%s:%d)", d, g.name, n)
			}
			return m
		})
	}
	return out
}

func writeGen(t *testing.T, dir string, g *genFile) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, g.name), []byte(g.b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runTool runs a command (at most 3 minutes) and returns its stdout; a
// failure fails the test with both outputs, doc lines named.
func runTool(t *testing.T, what, dir string, env []string, files []*genFile, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s\n%s", what, err, mapLines(stdout.String(), files...), mapLines(stderr.String(), files...))
	}
	return mapLines(stdout.String(), files...)
}

var tsProgramRe = regexp.MustCompile(`(?m)^import\s`)

// runTypeScript writes every snippet into one module (a program into a
// module of its own, imported in turn), type-checks and compiles them with
// the package's tsc, and runs them with one node. They import the package
// as an application does, as @errsvc/client from node_modules (a link to
// the built package).
func runTypeScript(t *testing.T, l live, pkg string, setup block, snippets []snippet) string {
	dir := t.TempDir()
	for link, target := range map[string]string{
		"node_modules/@errsvc/client": pkg,
		"node_modules/@types":         filepath.Join(pkg, "node_modules", "@types"),
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"private": true, "type": "module"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	main := &genFile{name: "main.ts"}
	main.raw("// Generated by internal/docsrun from the docs' TypeScript snippets.\n")
	main.code(l.local(setup.text), setup)
	files := []*genFile{main}
	var calls []string
	for i, s := range snippets {
		if tsProgramRe.MatchString(s.code.text) {
			p := &genFile{name: fmt.Sprintf("program%d.ts", i)}
			p.code(l.local(s.code.text), s.code)
			files = append(files, p)
			calls = append(calls, fmt.Sprintf("() => import(\"./program%d.js\")", i))
			continue
		}
		main.raw(fmt.Sprintf("\n// %s\nasync function snippet%d(): Promise<void> {\n", s.code, i))
		main.code(s.code.text, s.code)
		main.raw("}\n")
		calls = append(calls, fmt.Sprintf("snippet%d", i))
	}
	main.raw(fmt.Sprintf(`
const snippets: Array<() => Promise<unknown>> = [%s];
for (const [i, run] of snippets.entries()) {
  console.log(%q + i);
  try {
    await run();
  } catch (e) {
    console.log("threw: " + (e instanceof Error ? (e.stack ?? e.message) : String(e)));
  }
}
client.close();
`, strings.Join(calls, ", "), printedMark))
	var names []string
	for _, g := range files {
		writeGen(t, dir, g)
		names = append(names, filepath.Join(dir, g.name))
	}
	tsc := filepath.Join(pkg, "node_modules", ".bin", "tsc")
	args := append([]string{"--pretty", "false", "--strict", "--target", "ES2022", "--module", "NodeNext",
		"--moduleResolution", "NodeNext", "--types", "node", "--skipLibCheck", "--rootDir", dir, "--outDir", filepath.Join(dir, "out")}, names...)
	runTool(t, "tsc on the TypeScript snippets", dir, nil, files, tsc, args...)
	return runTool(t, "node on the TypeScript snippets", dir, nil, files, "node", filepath.Join(dir, "out", "main.js"))
}

// pythonRunner execs each snippet in a copy of the setup's namespace, the
// code compiled with its doc's name and lines, so that a traceback names
// them.
const pythonRunner = `import json, sys, traceback
spec = json.load(open(sys.argv[1]))
def code(s):
    return compile("\n" * s["line"] + s["text"], s["doc"], "exec")
base = {"__name__": "__main__"}
exec(code(spec["setup"]), base)
for i, s in enumerate(spec["snippets"]):
    print(%q + str(i), flush=True)
    try:
        exec(code(s), dict(base))
    except BaseException:
        traceback.print_exc(file=sys.stdout)
    sys.stdout.flush()
if "client" in base:
    base["client"].close()
`

func runPython(t *testing.T, l live, python string, setup block, snippets []snippet) string {
	dir := t.TempDir()
	type py struct {
		Doc  string `json:"doc"`
		Line int    `json:"line"`
		Text string `json:"text"`
	}
	spec := struct {
		Setup    py   `json:"setup"`
		Snippets []py `json:"snippets"`
	}{Setup: py{setup.doc, setup.line, l.local(setup.text)}}
	for _, s := range snippets {
		spec.Snippets = append(spec.Snippets, py{s.code.doc, s.code.line, l.local(s.code.text)})
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "snippets.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.py"), []byte(strings.Replace(pythonRunner, "%q", strconv.Quote(printedMark), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return runTool(t, "python on the Python snippets", l.root, []string{"PYTHONUNBUFFERED=1"}, nil,
		python, filepath.Join(dir, "run.py"), filepath.Join(dir, "snippets.json"))
}

var javaClassRe = regexp.MustCompile(`(?m)^(?:public\s+)?(?:final\s+)?class\s+(\w+)`)

// runJava compiles every snippet with one javac: the bodies as methods of
// one class whose fields are the setup's declarations, a program as its own
// class whose main is called in turn; one java runs them all.
func runJava(t *testing.T, l live, classpath string, setup block, snippets []snippet) string {
	dir := t.TempDir()
	main := &genFile{name: "DocSnippets.java"}
	var imports, fields []string
	for _, line := range strings.Split(l.local(setup.text), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "import ") {
			imports = append(imports, line)
		} else {
			fields = append(fields, line)
		}
	}
	// The setup's imports keep their lines: the generated file starts with them.
	main.code(strings.Join(imports, "\n"), setup)
	main.raw("\n// Generated by internal/docsrun from the docs' Java snippets.\npublic class DocSnippets {\n")
	main.code(strings.Join(fields, "\n"), block{doc: setup.doc, line: setup.line + len(imports)})
	files := []*genFile{main}
	var calls []string
	for i, s := range snippets {
		if m := javaClassRe.FindStringSubmatch(s.code.text); m != nil {
			p := &genFile{name: m[1] + ".java"}
			p.code(l.local(s.code.text), s.code)
			files = append(files, p)
			calls = append(calls, m[1]+".main(new String[0]);")
			continue
		}
		main.raw(fmt.Sprintf("\n  // %s\n  void snippet%d() throws Exception {\n", s.code, i))
		main.code(s.code.text, s.code)
		main.raw("  }\n")
		calls = append(calls, fmt.Sprintf("d.snippet%d();", i))
	}
	main.raw("\n  public static void main(String[] args) throws Exception {\n    DocSnippets d = new DocSnippets();\n")
	for i, c := range calls {
		main.raw(fmt.Sprintf("    System.out.println(%q);\n    try {\n      %s\n    } catch (Throwable e) {\n      System.out.print(\"threw: \");\n      e.printStackTrace(System.out);\n    }\n", printedMark+strconv.Itoa(i), c))
	}
	main.raw("    System.out.flush();\n    System.exit(0);\n  }\n}\n")
	var names []string
	for _, g := range files {
		writeGen(t, dir, g)
		names = append(names, filepath.Join(dir, g.name))
	}
	out := filepath.Join(dir, "classes")
	runTool(t, "javac on the Java snippets", dir, nil, files, "javac",
		append([]string{"-nowarn", "-encoding", "UTF-8", "-d", out, "-cp", classpath}, names...)...)
	return runTool(t, "java on the Java snippets", l.root, nil, files, "java",
		"-cp", out+string(os.PathListSeparator)+classpath, "DocSnippets")
}
