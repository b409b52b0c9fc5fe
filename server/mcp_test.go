package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/errsvc/errsvc/codec/errjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
)

// The MCP server is tested with the Go SDK's own client, over the in-memory
// transport and over streamable HTTP against a running server's /mcp; the
// MCP inspector CLI checks it from outside (conformance/mcp-inspector).

func TestMCPInMemory(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := NewMCPServer(Options{Logger: slog.New(slog.DiscardHandler)}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ss.Close() }()
	cs := mcpConnect(ctx, t, ct)
	mcpSuite(ctx, t, cs)
}

func TestMCPStreamableHTTP(t *testing.T) {
	r := start(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs := mcpConnect(ctx, t, &mcp.StreamableClientTransport{Endpoint: r.base + MCPPath, MaxRetries: -1})
	mcpSuite(ctx, t, cs)
}

// TestMCPStdio serves ServeMCP over pipes, as `errsvc mcp` does on stdin
// and stdout, and ends when the client closes its end.
func TestMCPStdio(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- ServeMCP(ctx, Options{Logger: slog.New(slog.DiscardHandler)}, inR, outW) }()
	cs := mcpConnect(ctx, t, &mcp.IOTransport{Reader: outR, Writer: inW})
	res := mcpCall(ctx, t, cs, "explain", map[string]any{"term": "rate_limited"})
	if res.IsError {
		t.Fatalf("explain: %v", mcpText(res))
	}
	_ = cs.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeMCP after the client closed: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("ServeMCP did not return after the client closed")
	}
}

// TestMCPLimits: arguments over MaxRequestBytes are refused like a REST
// body (RESOURCE_EXHAUSTED naming body) on every transport; over HTTP a
// body past the envelope's allowance is refused before it is read.
func TestMCPLimits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := start(t, Options{MaxRequestBytes: 2048})
	cs := mcpConnect(ctx, t, &mcp.StreamableClientTransport{Endpoint: r.base + MCPPath, MaxRetries: -1})
	big := map[string]any{"labby_error": map[string]any{"kind": "rate_limited", "message": strings.Repeat("x", 4096)}}
	for _, tc := range []struct {
		tool string
		args any
	}{
		{"translate", big},
		{"decide", map[string]any{"request": big}},
	} {
		res := mcpCall(ctx, t, cs, tc.tool, tc.args)
		if !res.IsError {
			t.Fatalf("%s of %d bytes over a 2048-byte limit: not an error", tc.tool, 4096)
		}
		if txt := mcpText(res); !strings.HasPrefix(txt, "RESOURCE_EXHAUSTED: ") || !strings.Contains(txt, "(field body)") {
			t.Errorf("%s over the limit: %q; want RESOURCE_EXHAUSTED naming body", tc.tool, txt)
		}
		if tc.tool == "translate" {
			if st := mcpStatus(t, res); st.GetCode() != 8 {
				t.Errorf("translate over the limit: code %d, want RESOURCE_EXHAUSTED", st.GetCode())
			}
		}
	}
	// Past the envelope's allowance the transport refuses the body.
	huge := map[string]any{"labby_error": map[string]any{"kind": "rate_limited", "message": strings.Repeat("x", 2048+mcpEnvelopeBytes)}}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "translate", Arguments: huge}); err == nil && !res.IsError {
		t.Errorf("a body past MaxRequestBytes and the envelope was translated")
	}
}

// TestMCPPanicIsAnError: a translation that panics is an INTERNAL isError
// result; the session (over stdio, the process) goes on.
func TestMCPPanicIsAnError(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	opts := Options{Logger: slog.New(slog.DiscardHandler)}
	opts.translate = func(*errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error) { panic("boom") }
	ss, err := NewMCPServer(opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ss.Close() }()
	cs := mcpConnect(ctx, t, ct)
	req := map[string]any{"labby_error": map[string]any{"kind": "timeout", "message": "m"}}
	for _, tc := range []struct {
		tool string
		args any
	}{{"translate", req}, {"decide", map[string]any{"request": req}}, {"translate", req}} {
		res := mcpCall(ctx, t, cs, tc.tool, tc.args)
		if !res.IsError || !strings.HasPrefix(mcpText(res), "INTERNAL: ") || strings.Contains(mcpText(res), "boom") {
			t.Errorf("%s panicking: isError %v, %q", tc.tool, res.IsError, mcpText(res))
		}
	}
	if res := mcpCall(ctx, t, cs, "explain", map[string]any{"term": "timeout"}); res.IsError {
		t.Errorf("explain after a panic: %q", mcpText(res))
	}
}

// TestMCPConcurrencyLimit: a translation takes one of the server's
// unary-call slots; with none free the tool answers RESOURCE_EXHAUSTED, as
// REST and gRPC do, and explain (no translation) still answers.
func TestMCPConcurrencyLimit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := Options{Logger: slog.New(slog.DiscardHandler)}
	opts.limiter = newLimiter(0, 1, 1, NewMetrics())
	st, ct := mcp.NewInMemoryTransports()
	ss, err := NewMCPServer(opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ss.Close() }()
	cs := mcpConnect(ctx, t, ct)
	req := map[string]any{"labby_error": map[string]any{"kind": "timeout", "message": "m"}}
	for _, tc := range []struct {
		tool string
		args any
	}{{"translate", req}, {"decide", map[string]any{"request": req}}} {
		res := mcpCall(ctx, t, cs, tc.tool, tc.args)
		if !res.IsError || !strings.HasPrefix(mcpText(res), "RESOURCE_EXHAUSTED: ") || !strings.Contains(mcpText(res), "concurrent requests") {
			t.Errorf("%s with no slot free: isError %v, %q", tc.tool, res.IsError, mcpText(res))
		}
	}
	if res := mcpCall(ctx, t, cs, "explain", map[string]any{"term": "timeout"}); res.IsError {
		t.Errorf("explain: %q", mcpText(res))
	}
}

func mcpConnect(ctx context.Context, t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "errsvc-test", Version: "v0"}, nil)
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func mcpCall(ctx context.Context, t *testing.T, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

func mcpText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// mcpStructured decodes a result's structured content into v.
func mcpStructured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := v.(errjson.Message); ok {
		if err := errjson.Unmarshal(b, m); err != nil {
			t.Fatalf("structured content %s: %v", b, err)
		}
		return
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// mcpStatus is the google.rpc.Status of a refusal's structured content.
func mcpStatus(t *testing.T, res *mcp.CallToolResult) interface{ GetCode() int32 } {
	t.Helper()
	var resp errsvcv1.TranslateResponse
	mcpStructured(t, res, &resp)
	if resp.GetError() == nil {
		t.Fatalf("refusal without error: %s", mcpText(res))
	}
	return resp.GetError()
}

// providerRequest is a provider fixture's answer as a TranslateRequest.
func providerRequest(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "providers", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Answer map[string]any `json:"answer"`
	}
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	return map[string]any{"provider_response": fx.Answer}
}

func mcpSuite(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	t.Run("tools/list", func(t *testing.T) {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
				t.Errorf("%s: not marked read-only", tool.Name)
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, []string{"decide", "explain", "translate"}) {
			t.Fatalf("tools %v", names)
		}
		// The translate schema is the contract's TranslateRequest: every
		// source by its real field name.
		for _, tool := range res.Tools {
			schema, _ := json.Marshal(tool.InputSchema)
			switch tool.Name {
			case "translate":
				for _, f := range []string{`"labby_error"`, `"provider_response"`, `"targets"`, `"context"`, `"idempotent"`, `"retry_after_ms"`} {
					if !strings.Contains(string(schema), f) {
						t.Errorf("translate input schema lacks %s", f)
					}
				}
				if out, _ := json.Marshal(tool.OutputSchema); !strings.Contains(string(out), `"handling"`) {
					t.Errorf("translate output schema lacks handling")
				}
			case "decide":
				if !strings.Contains(string(schema), `"request"`) || !strings.Contains(string(schema), `"max_wait_secs"`) {
					t.Errorf("decide input schema %s", schema)
				}
			case "explain":
				if !strings.Contains(string(schema), `"term"`) {
					t.Errorf("explain input schema %s", schema)
				}
			}
		}
	})

	t.Run("translate", func(t *testing.T) {
		res := mcpCall(ctx, t, cs, "translate", map[string]any{
			"labby_error": map[string]any{"kind": "rate_limited", "message": "slow down", "recovery": map[string]any{"retry_after_ms": 3000}},
			"targets":     []string{"agent_error", "classification", "handling"},
		})
		if res.IsError {
			t.Fatalf("isError: %s", mcpText(res))
		}
		var resp errsvcv1.TranslateResponse
		mcpStructured(t, res, &resp)
		if resp.GetAgentError().GetCode() != "RATE_LIMITED" || resp.GetClassification().GetClass() != "transient" ||
			resp.GetHandling().GetRoute() != "backoff_retry" {
			t.Errorf("translation %v", &resp)
		}
		if resp.GetLabbyError() != nil {
			t.Errorf("labby_error answered though targets did not name it")
		}
		if txt := mcpText(res); !strings.Contains(txt, "class transient") || len(txt) > 300 {
			t.Errorf("text %q: want a short summary naming the class", txt)
		}
		// The same answer as the core's.
		var req errsvcv1.TranslateRequest
		if err := errjson.Unmarshal([]byte(`{"labby_error":{"kind":"rate_limited","message":"slow down","recovery":{"retry_after_ms":3000}},"targets":["agent_error","classification","handling"]}`), &req); err != nil {
			t.Fatal(err)
		}
		want, err := translate.Translate(&req)
		if err != nil {
			t.Fatal(err)
		}
		wb, _ := errjson.Marshal(restAnswer, want)
		gb, _ := errjson.Marshal(restAnswer, &resp)
		if string(wb) != string(gb) {
			t.Errorf("MCP answer\n%s\nthe core's\n%s", gb, wb)
		}
	})

	t.Run("translate refusals", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			args  any
			field string
		}{
			{"no source", map[string]any{"targets": []string{"agent_error"}}, "source"},
			{"wrong type", map[string]any{"labby_error": map[string]any{"kind": 7}}, "labby_error.kind"},
			{"targets not a list", map[string]any{"labby_error": map[string]any{"kind": "timeout", "message": "m"}, "targets": "labby_error"}, "targets"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := mcpCall(ctx, t, cs, "translate", tc.args)
				if !res.IsError {
					t.Fatalf("not isError: %s", mcpText(res))
				}
				if st := mcpStatus(t, res); st.GetCode() != 3 {
					t.Errorf("code %d, want INVALID_ARGUMENT", st.GetCode())
				}
				if !strings.Contains(mcpText(res), "field "+tc.field) {
					t.Errorf("text %q does not name field %s", mcpText(res), tc.field)
				}
			})
		}
	})

	t.Run("decide", func(t *testing.T) {
		for _, tc := range []struct {
			name    string
			args    map[string]any
			action  string
			waitSec float64
		}{
			{"rate limit with Retry-After", map[string]any{"request": providerRequest(t, "anthropic-429-rate-limit-retry-after")}, decideRetry, -1},
			{"Labby rate_limited with a wait", map[string]any{"request": map[string]any{"labby_error": map[string]any{"kind": "rate_limited", "message": "m", "recovery": map[string]any{"retry_after_ms": 3000}}}}, decideRetry, 3},
			{"queue full", map[string]any{"request": map[string]any{"labby_error": map[string]any{"kind": "queue_saturated", "message": "m"}}}, decideReduceConcurrency, 0},
			{"wait past the cap", map[string]any{"request": providerRequest(t, "openai-429-retry-after-five-hours")}, decideFailOver, -1},
			{"wait within a raised cap", map[string]any{"request": providerRequest(t, "openai-429-retry-after-five-hours"), "max_wait_secs": 86400}, decideRetry, -1},
			{"401", map[string]any{"request": providerRequest(t, "anthropic-401-authentication-error")}, decideReauthenticate, -1},
			{"context overflow", map[string]any{"request": providerRequest(t, "anthropic-400-input-and-max-tokens-exceed-context-limit")}, decideCompactContext, -1},
			{"insufficient quota", map[string]any{"request": providerRequest(t, "openai-429-insufficient-quota")}, decideFailOver, -1},
			{"invalid param", map[string]any{"request": map[string]any{"labby_error": map[string]any{"kind": "invalid_param", "message": "m"}}}, decideRevise, -1},
			{"caller says do not retry", map[string]any{"request": map[string]any{"labby_error": map[string]any{"kind": "internal_error", "message": "m", "recovery": map[string]any{"action": "do_not_retry"}}}}, decideGiveUp, -1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := mcpCall(ctx, t, cs, "decide", tc.args)
				if res.IsError {
					t.Fatalf("isError: %s", mcpText(res))
				}
				var d MCPDecision
				mcpStructured(t, res, &d)
				if d.Action != tc.action || d.Reason == "" {
					t.Fatalf("decision %+v, want %s", d, tc.action)
				}
				if tc.waitSec >= 0 && (d.RetryAfterSecs == nil || *d.RetryAfterSecs != tc.waitSec) {
					t.Errorf("retry_after_secs %v, want %g", d.RetryAfterSecs, tc.waitSec)
				}
				if !strings.HasPrefix(mcpText(res), tc.action) {
					t.Errorf("text %q", mcpText(res))
				}
			})
		}
	})

	t.Run("decide refusals", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			args  any
			field string
		}{
			{"no request", map[string]any{}, "request"},
			{"request without a source", map[string]any{"request": map[string]any{}}, "request.source"},
			{"bad field in the request", map[string]any{"request": map[string]any{"agent_error": map[string]any{"code": []int{1}}}}, "request.agent_error.code"},
			{"negative cap", map[string]any{"request": map[string]any{"labby_error": map[string]any{"kind": "timeout", "message": "m"}}, "max_wait_secs": -1}, "max_wait_secs"},
			{"cap of the wrong type", map[string]any{"request": map[string]any{"labby_error": map[string]any{"kind": "timeout", "message": "m"}}, "max_wait_secs": "soon"}, "max_wait_secs"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := mcpCall(ctx, t, cs, "decide", tc.args)
				if !res.IsError {
					t.Fatalf("not isError: %s", mcpText(res))
				}
				if !strings.Contains(mcpText(res), "field "+tc.field) {
					t.Errorf("text %q does not name field %s", mcpText(res), tc.field)
				}
			})
		}
	})

	t.Run("explain", func(t *testing.T) {
		res := mcpCall(ctx, t, cs, "explain", map[string]any{"term": "rate_limited"})
		if res.IsError {
			t.Fatalf("isError: %s", mcpText(res))
		}
		var e MCPExplanation
		mcpStructured(t, res, &e)
		// The Labby kind first (the exact spelling), then the Agent Surface
		// code spelt in capitals.
		if len(e.Terms) != 2 || e.Terms[1].Vocabulary != "AgentErrorCode" {
			t.Fatalf("terms %+v", e.Terms)
		}
		got := e.Terms[0]
		if got.Vocabulary != "LabbyKind" || got.Class != "transient" || got.Action != "retry_later" ||
			!strings.Contains(got.WhatToDo, "backoff_retry") || got.Row["agent_code"] != "RATE_LIMITED" || got.Meaning == "" {
			t.Errorf("explanation %+v", got)
		}
		// Across vocabularies, and narrowed to one.
		res = mcpCall(ctx, t, cs, "explain", map[string]any{"term": "unavailable"})
		mcpStructured(t, res, &e)
		if len(e.Terms) < 2 {
			t.Errorf("unavailable: %d vocabularies, want the Labby kind and the gRPC code", len(e.Terms))
		}
		res = mcpCall(ctx, t, cs, "explain", map[string]any{"term": "UNAVAILABLE", "vocabulary": "GrpcCode"})
		mcpStructured(t, res, &e)
		if len(e.Terms) != 1 || e.Terms[0].Class != "transient" || e.Terms[0].Row["labby_kind"] != "service_unavailable" {
			t.Errorf("GrpcCode UNAVAILABLE: %+v", e.Terms)
		}
		res = mcpCall(ctx, t, cs, "explain", map[string]any{"term": "context_overflow", "vocabulary": "ErrorClass"})
		mcpStructured(t, res, &e)
		if len(e.Terms) != 1 || !strings.Contains(e.Terms[0].WhatToDo, "reduce_or_larger_context") {
			t.Errorf("ErrorClass context_overflow: %+v", e.Terms)
		}
	})

	t.Run("explain refusals", func(t *testing.T) {
		for _, tc := range []struct {
			args  map[string]any
			field string
			hint  string
		}{
			{map[string]any{"term": "rate_limitd"}, "term", "did you mean rate_limited?"},
			{map[string]any{"term": "timeout", "vocabulary": "LabbyKinds"}, "vocabulary", "did you mean LabbyKind?"},
			{map[string]any{"term": " "}, "term", ""},
		} {
			res := mcpCall(ctx, t, cs, "explain", tc.args)
			if !res.IsError || !strings.Contains(mcpText(res), "field "+tc.field) || !strings.Contains(mcpText(res), tc.hint) {
				t.Errorf("explain %v: isError %v, %q", tc.args, res.IsError, mcpText(res))
			}
		}
		// The SDK validates the arguments against the inferred schema.
		if res := mcpCall(ctx, t, cs, "explain", map[string]any{}); !res.IsError {
			t.Errorf("explain without a term: %q", mcpText(res))
		}
	})

	t.Run("resources", func(t *testing.T) {
		res, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		vocabs := translate.Vocabularies().GetVocabularies()
		if len(res.Resources) != len(vocabs) {
			t.Fatalf("%d resources, want one per vocabulary (%d)", len(res.Resources), len(vocabs))
		}
		for _, v := range vocabs {
			uri := "errsvc://vocabularies/" + v.GetName()
			rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil {
				t.Fatalf("%s: %v", uri, err)
			}
			if len(rr.Contents) != 1 || rr.Contents[0].MIMEType != "application/json" {
				t.Fatalf("%s: %+v", uri, rr.Contents)
			}
			var got errsvcv1.Vocabulary
			if err := errjson.Unmarshal([]byte(rr.Contents[0].Text), &got); err != nil {
				t.Fatalf("%s: %v", uri, err)
			}
			if got.GetName() != v.GetName() || len(got.GetTerms()) != len(v.GetTerms()) {
				t.Errorf("%s: %s with %d terms", uri, got.GetName(), len(got.GetTerms()))
			}
		}
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "errsvc://vocabularies/Nope"}); err == nil {
			t.Errorf("an unknown resource was read")
		}
	})

	t.Run("unknown tool", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
		if err == nil && !res.IsError {
			t.Errorf("an unknown tool answered")
		}
	})
}

// TestMCPHostileJSON: arguments nested past errsvc's depth are an isError
// naming the path, as over REST; nested past the SDK's own decoder's depth,
// the transport refuses the body (400). Neither takes the server down.
func TestMCPHostileJSON(t *testing.T) {
	r := start(t, Options{})
	for _, tc := range []struct {
		depth int
		code  int
		want  string
	}{
		{100, http.StatusOK, `JSON nested deeper than 64 levels (field labby_error[0]`},
		{1_000_000, http.StatusBadRequest, "nesting depth"},
	} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"translate","arguments":{"labby_error":` +
			strings.Repeat("[", tc.depth) + strings.Repeat("]", tc.depth) + `}}}`
		req, err := http.NewRequest(http.MethodPost, r.base+MCPPath, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != tc.code || !strings.Contains(string(b), tc.want) {
			t.Errorf("depth %d: %d %s; want %d with %q", tc.depth, resp.StatusCode, b, tc.code, tc.want)
		}
	}
	// Still serving.
	if code, _ := r.get(t, "/healthz"); code != http.StatusOK {
		t.Errorf("/healthz %d after hostile MCP bodies", code)
	}
}
