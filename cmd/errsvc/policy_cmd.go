package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/errsvc/errsvc/codec"
	"github.com/errsvc/errsvc/codec/errjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/policy"
	"github.com/errsvc/errsvc/translate"
	"github.com/errsvc/errsvc/translate/sanitize"
)

const policyUsage = `usage: errsvc policy check FILE_OR_DIR...
       errsvc policy explain POLICY REQUEST|-
       errsvc policy docs POLICY
       errsvc policy schema

check    validates each operator policy (a YAML or JSON file, or a folder of them) against
         the published schema and compiles it, for CI pipelines: prints
         "ok: N rules, version V, hash H", or every error as FILE:LINE:COL: PATH: MESSAGE.
explain  translates one TranslateRequest (JSON, from REQUEST or stdin, as errsvc translate
         reads it) under POLICY and prints the rules that decided and the answer.
docs     prints POLICY's terms and rules as Markdown, beside the built-in vocabularies'
         columns (the kinds and agent codes it makes known, its families, overrides,
         decisions and waits): docs for the people who read the answers.
schema   prints the policy file's JSON Schema (draft 2020-12), as published, for
         editors and validators that cannot reach it.

Exit status: 0 valid (check) or translated (explain), 1 a policy is invalid or a file
unreadable, 2 usage error or malformed request. docs/POLICY.md describes the file.`

// runPolicy is `errsvc policy`: the operator policy's checks, run in
// process so a CI pipeline needs no server.
func runPolicy(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, policyUsage)
		return exitMalformed
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, policyUsage)
		return 0
	case "check":
		return runPolicyCheck(args[1:], stdout, stderr)
	case "explain":
		return runPolicyExplain(args[1:], stdin, stdout, stderr)
	case "docs":
		return runPolicyDocs(args[1:], stdout, stderr)
	case "schema":
		if len(args) > 1 {
			fmt.Fprintln(stderr, policyUsage)
			return exitMalformed
		}
		if _, err := stdout.Write(policy.Schema()); err != nil {
			return exitFailure
		}
		return 0
	}
	fmt.Fprintf(stderr, "errsvc policy: unknown command %q\n\n%s\n", args[0], policyUsage)
	return exitMalformed
}

// policyArgs are the operands after an optional "--" (so a file named
// "-h" is still reachable); a help flag before it prints the usage.
func policyArgs(args []string, stdout io.Writer) (operands []string, help bool) {
	for i, a := range args {
		switch a {
		case "--":
			return append(operands, args[i+1:]...), false
		case "-h", "-help", "--help":
			fmt.Fprintln(stdout, policyUsage)
			return nil, true
		}
		operands = append(operands, a)
	}
	return operands, false
}

func runPolicyCheck(args []string, stdout, stderr io.Writer) int {
	paths, help := policyArgs(args, stdout)
	if help {
		return 0
	}
	if len(paths) == 0 {
		fmt.Fprintln(stderr, policyUsage)
		return exitMalformed
	}
	code := 0
	for _, path := range paths {
		p, err := policy.Load(path)
		if err != nil {
			// Every error on a line of its own, FILE:LINE:COL first, so
			// editors and CI annotations link them.
			fmt.Fprintln(stderr, err)
			code = exitFailure
			continue
		}
		prefix := ""
		if len(paths) > 1 {
			prefix = path + ": "
		}
		fmt.Fprintf(stdout, "%sok: %d rules, version %s, hash %s\n", prefix, len(p.Rules()), orNone(p.Version()), p.Hash())
	}
	return code
}

func runPolicyDocs(args []string, stdout, stderr io.Writer) int {
	operands, help := policyArgs(args, stdout)
	if help {
		return 0
	}
	if len(operands) != 1 {
		fmt.Fprintln(stderr, policyUsage)
		return exitMalformed
	}
	p, err := policy.Load(operands[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailure
	}
	if _, err := io.WriteString(stdout, p.Markdown()); err != nil {
		return exitFailure
	}
	return 0
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func runPolicyExplain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	operands, help := policyArgs(args, stdout)
	if help {
		return 0
	}
	if len(operands) != 2 {
		fmt.Fprintln(stderr, policyUsage)
		return exitMalformed
	}
	p, err := policy.Load(operands[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailure
	}
	data, err := readInput(operands[1:], stdin)
	if err != nil {
		fmt.Fprintf(stderr, "errsvc policy explain: %v\n", err)
		return exitFailure
	}
	req, field, desc := decodeRequest(data)
	if req == nil {
		fmt.Fprintf(stderr, "errsvc policy explain: malformed request: %s: %s\n", field, desc)
		return exitMalformed
	}
	resp, out, code := translateEncoded("errsvc policy explain", p, req, stderr)
	if code != 0 {
		return code
	}
	var b strings.Builder
	fmt.Fprintf(&b, "policy %s: version %s, hash %s, %d rules\n", operands[0], orNone(p.Version()), p.Hash(), len(p.Rules()))
	policyRule := translate.Wire(errsvcv1.NoteCode_NOTE_CODE_POLICY_RULE)
	decided := 0
	for _, n := range resp.GetNotes() {
		if n.GetCode() == policyRule {
			if decided == 0 {
				b.WriteString("decided by:\n")
			}
			decided++
			fmt.Fprintf(&b, "  %s\n", n.GetMessage())
		}
	}
	if decided == 0 {
		b.WriteString("decided by: no policy rule (the built-in reading, or the caller's own override)\n")
	}
	b.WriteString("answer: " + summary(resp) + "\n")
	b.Write(out)
	b.WriteString("\n")
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return exitFailure
	}
	return 0
}

// summary is the decision in one line: what an operator compares with
// what the rule meant to say.
func summary(resp *errsvcv1.TranslateResponse) string {
	parts := []string{"no class (the source carries none)"}
	if c := resp.GetClassification().GetClass(); c != "" {
		parts[0] = "class " + c
	}
	// Classification is absent where the source carries no class.
	if c := resp.GetClassification(); c != nil && c.RetryAfterSecs != nil {
		parts = append(parts, fmt.Sprintf("wait %d s", c.GetRetryAfterSecs()))
	}
	if k := resp.GetLabbyError().GetKind(); k != "" {
		parts = append(parts, "kind "+k)
	}
	if a := resp.GetLabbyError().GetRecovery().GetAction(); a != "" {
		parts = append(parts, "action "+a)
	}
	if c := resp.GetAgentError().GetCode(); c != "" {
		parts = append(parts, "agent code "+c)
	}
	if resp.HttpStatus != nil {
		parts = append(parts, fmt.Sprintf("HTTP %d", resp.GetHttpStatus()))
	}
	if l := resp.GetLimit(); l != nil {
		parts = append(parts, "limit "+l.GetKind())
	}
	if h := resp.GetHandling(); h != nil && h.GetRoute() != "" {
		parts = append(parts, "route "+h.GetRoute())
	}
	return strings.Join(parts, ", ")
}

// decodeRequest reads a TranslateRequest as `errsvc translate` does:
// nesting and broken text refused first (bounded work), then protojson's
// names, open on read. A refusal is (nil, field, description), sanitised:
// the path quotes the input's keys.
func decodeRequest(data []byte) (*errsvcv1.TranslateRequest, string, string) {
	var fe *codec.FieldError
	if errors.As(codec.CheckJSON(data, codec.MaxJSONDepth), &fe) {
		return nil, sanitize.Text(fe.Field, 256), sanitize.Text(fe.Description, 1024)
	}
	var req errsvcv1.TranslateRequest
	if err := errjson.Unmarshal(data, &req); err != nil {
		field, desc := "body", err.Error()
		if errors.As(err, &fe) {
			field, desc = fe.Field, fe.Description
		}
		return nil, sanitize.Text(field, 256), sanitize.Text(desc, 1024)
	}
	return &req, "", ""
}
