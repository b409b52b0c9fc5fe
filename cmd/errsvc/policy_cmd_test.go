package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/errsvc/errsvc/policy"
)

// examplePolicy is the folder of example policies, one policy.
const examplePolicy = "../../deploy/policy"

func runPolicyCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	code = runPolicy(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func writePolicyFile(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPolicyCheck(t *testing.T) {
	code, out, errOut := runPolicyCLI(t, "", "check", examplePolicy)
	if code != 0 || !strings.HasPrefix(out, "ok: ") || !strings.Contains(out, " rules, version 2026-12-04.1, hash ") || errOut != "" {
		t.Errorf("check the examples: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	bad := writePolicyFile(t, "bad.yaml", "version: v1\nprovders: []\noverrides:\n  - {name: a, term: timeout, class: transiant}\n")
	code, out, errOut = runPolicyCLI(t, "", "check", bad)
	if code != exitFailure || out != "" {
		t.Errorf("check a bad file: exit %d, stdout %q", code, out)
	}
	for _, want := range []string{
		bad + `:2:1: /provders: unknown key "provders" (did you mean "providers"?)`,
		bad + `:4:37: /overrides/0/class: "transiant" is not one of these (did you mean "transient"?)`,
	} {
		if !strings.Contains(errOut, want+"") {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	// Each error on its own line, location first.
	for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
		if !strings.HasPrefix(line, bad+":") {
			t.Errorf("line %q does not start with the file", line)
		}
	}

	// Several operands: each checked, each named; one bad one fails all.
	code, out, _ = runPolicyCLI(t, "", "check", examplePolicy, bad)
	if code != exitFailure || !strings.HasPrefix(out, examplePolicy+": ok: ") {
		t.Errorf("check two: exit %d, stdout %q", code, out)
	}
	// A semantic error (NewPolicy's) is located too.
	sem := writePolicyFile(t, "sem.yaml", "secrets:\n  redact:\n    - name: x\n      regex: \"a(\"\n")
	code, _, errOut = runPolicyCLI(t, "", "check", sem)
	if code != exitFailure || !strings.HasPrefix(errOut, sem+":4:14: /secrets/redact/0/regex: not an RE2 regular expression") {
		t.Errorf("semantic: exit %d, stderr %q", code, errOut)
	}
	// Missing file: exit 1, named.
	code, _, errOut = runPolicyCLI(t, "", "check", filepath.Join(t.TempDir(), "none.yaml"))
	if code != exitFailure || !strings.Contains(errOut, "none.yaml: ") {
		t.Errorf("missing: exit %d, stderr %q", code, errOut)
	}
}

func TestPolicyUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{nil, exitMalformed},
		{[]string{"frobnicate"}, exitMalformed},
		{[]string{"check"}, exitMalformed},
		{[]string{"explain", examplePolicy}, exitMalformed},
		{[]string{"explain", examplePolicy, "a", "b"}, exitMalformed},
		{[]string{"schema", "extra"}, exitMalformed},
		{[]string{"docs"}, exitMalformed},
		{[]string{"--help"}, 0},
		{[]string{"check", "-h"}, 0},
		{[]string{"explain", "--help"}, 0},
	} {
		code, out, errOut := runPolicyCLI(t, "", tc.args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.args, code, tc.code)
		}
		usageOn := errOut
		if tc.code == 0 {
			usageOn = out
		}
		if !strings.Contains(usageOn, "usage: errsvc policy check") {
			t.Errorf("%v: no usage on the expected stream: stdout %q stderr %q", tc.args, out, errOut)
		}
	}
}

// TestPolicyExplain translates real-shaped answers under the example
// policies and checks the rule that decided and the answer.
func TestPolicyExplain(t *testing.T) {
	for _, tc := range []struct {
		name, req string
		rule      string   // the policy_rule note names it
		answer    []string // in the summary line
	}{
		{
			name: "tgi overloaded",
			req: `{"provider_response": {"status": 429, "base_url": "http://tgi.llm.svc.cluster.local:8080/generate",
				"body": "{\"error\":\"Model is overloaded\",\"error_type\":\"overloaded\"}"}}`,
			rule:   `"tgi_fleet.overloaded"`,
			answer: []string{"class transient", "wait 1 s", "limit capacity"},
		},
		{
			name: "ollama queue full",
			req: `{"provider_response": {"provider": "ollama-internal", "status": 503,
				"body": "{\"error\":\"server busy, please try again.  maximum pending requests exceeded\"}"}}`,
			rule:   `"ollama_fleet.queue_full"`,
			answer: []string{"class transient", "wait 2 s", "kind queue_saturated", "limit concurrency"},
		},
		{
			name: "vllm context length",
			req: `{"provider_response": {"base_url": "http://vllm.llm.svc.cluster.local:8000/v1/chat/completions", "status": 400,
				"body": "{\"object\":\"error\",\"message\":\"This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}"}}`,
			rule:   `"vllm_fleet.context_length"`,
			answer: []string{"class context_overflow"},
		},
		{
			name: "deepseek 429 is a quota",
			req: `{"provider_response": {"provider": "deepseek", "status": 429,
				"body": "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"rate_limit_error\"}}"}}`,
			rule:   `"deepseek_prepaid.quota_429"`,
			answer: []string{"class permanent", "kind quota_exceeded", "limit quota"},
		},
		{
			name: "an internal kind made known",
			req: `{"labby_error": {"contract_version": 1, "kind": "repo_locked", "message": "locked by migration 42",
				"origin": "validation", "recovery": {"action": "retry_later", "same_arguments": "safe"}, "side_effects": "none"}}`,
			rule:   `"kind.repo_locked"`,
			answer: []string{"class transient", "kind repo_locked", "HTTP 423"},
		},
		{
			// A source without a class: no classification in the answer.
			name:   "a classified code made known",
			req:    `{"classified_error": {"code": "repo_archived", "message": "archived"}}`,
			rule:   `"kind.repo_archived"`,
			answer: []string{"no class", "kind repo_archived", "HTTP 409"},
		},
		{
			name:   "never retry delete_repository",
			req:    `{"agent_error": {"code": "TIMEOUT", "message": "deadline exceeded"}, "context": {"tool": "delete_repository"}}`,
			rule:   `"never_retry_delete_repository"`,
			answer: []string{"class permanent"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runPolicyCLI(t, tc.req, "explain", examplePolicy, "-")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			head, body, _ := strings.Cut(out, "\n{")
			if !strings.Contains(head, "decided by:\n  policy rule "+tc.rule) {
				t.Errorf("the rule %s is not named:\n%s", tc.rule, head)
			}
			_, answer, _ := strings.Cut(head, "answer: ")
			for _, w := range tc.answer {
				if !strings.Contains(answer, w) {
					t.Errorf("answer %q lacks %q", answer, w)
				}
			}
			var resp map[string]any
			if err := json.Unmarshal([]byte("{"+body), &resp); err != nil {
				t.Errorf("the answer is not JSON: %v\n%s", err, body)
			}
		})
	}

	// No rule decided: said so.
	code, out, _ := runPolicyCLI(t, `{"agent_error": {"code": "INVALID_INPUT", "message": "bad"}}`, "explain", examplePolicy, "-")
	if code != 0 || !strings.Contains(out, "decided by: no policy rule") {
		t.Errorf("no rule: exit %d\n%s", code, out)
	}
	// A malformed request: exit 2, the field named; a bad policy: exit 1.
	code, _, errOut := runPolicyCLI(t, `{"agent_error": {"code": 7}}`, "explain", examplePolicy, "-")
	if code != exitMalformed || !strings.Contains(errOut, "malformed request: agent_error.code") {
		t.Errorf("malformed: exit %d, stderr %q", code, errOut)
	}
	bad := writePolicyFile(t, "bad.yaml", "decisions: [{name: x}]\n")
	code, _, errOut = runPolicyCLI(t, `{}`, "explain", bad, "-")
	if code != exitFailure || !strings.Contains(errOut, bad+":1:") {
		t.Errorf("bad policy: exit %d, stderr %q", code, errOut)
	}
	// The request from a file.
	req := writePolicyFile(t, "req.json", `{"agent_error": {"code": "SANDBOX_EXHAUSTED", "message": "out of memory"}}`)
	code, out, errOut = runPolicyCLI(t, "", "explain", examplePolicy, req)
	if code != 0 || !strings.Contains(out, `policy rule "agent_code.SANDBOX_EXHAUSTED"`) {
		t.Errorf("request file: exit %d\n%s%s", code, out, errOut)
	}
}

func TestPolicySchemaCommand(t *testing.T) {
	code, out, errOut := runPolicyCLI(t, "", "schema")
	var schema map[string]any
	if code != 0 || errOut != "" || json.Unmarshal([]byte(out), &schema) != nil {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if schema["$id"] != policy.SchemaURL || schema["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$id %v $schema %v", schema["$id"], schema["$schema"])
	}
}

func TestPolicyDocsCommand(t *testing.T) {
	code, out, errOut := runPolicyCLI(t, "", "docs", examplePolicy)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"# Operator policy 2026-12-04.1", "repo_locked", "SANDBOX_EXHAUSTED"} {
		if !strings.Contains(out, want) {
			t.Errorf("the docs lack %q:\n%s", want, out)
		}
	}
	bad := writePolicyFile(t, "bad.yaml", "kinds: [{kind: X}]\n")
	if code, _, errOut := runPolicyCLI(t, "", "docs", bad); code != exitFailure || !strings.Contains(errOut, bad+":1:") {
		t.Errorf("a bad policy: exit %d, stderr %q", code, errOut)
	}
}
