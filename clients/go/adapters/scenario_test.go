package adapters_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	errsvcclient "github.com/errsvc/errsvc/clients/go"
	"github.com/errsvc/errsvc/clients/go/adapters"
)

// The scenario: the scripted provider answers of testdata/scenario.json,
// shared with the Python and TypeScript adapter suites.

type answer struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

type step struct {
	Name     string   `json:"name"`
	What     string   `json:"what"`
	Provider string   `json:"provider"`
	Stream   bool     `json:"stream"`
	Answers  []answer `json:"answers"`
	Expect   struct {
		Calls          int  `json:"calls"`
		Retried        bool `json:"retried"`
		StatedWaitMs   int  `json:"stated_wait_ms"`
		Reauthenticate bool `json:"reauthenticate"`
	} `json:"adapter_expect"`
}

type scenario struct {
	WaitScale float64 `json:"wait_scale"`
	Steps     []step  `json:"steps"`
}

func loadScenario(t *testing.T) scenario {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s scenario
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// mockProvider answers /<step>/... with the step's answers in turn (the
// last repeated) and records when each call came.
type mockProvider struct {
	*httptest.Server
	mu    sync.Mutex
	steps map[string]step
	calls map[string][]time.Time
}

func newMockProvider(t *testing.T, s scenario) *mockProvider {
	m := &mockProvider{steps: map[string]step{}, calls: map[string][]time.Time{}}
	for _, st := range s.Steps {
		m.steps[st.Name] = st
	}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 2)[0]
		_, _ = io.Copy(io.Discard, r.Body)
		m.mu.Lock()
		st, ok := m.steps[name]
		n := len(m.calls[name])
		m.calls[name] = append(m.calls[name], time.Now())
		m.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		a := st.Answers[min(n, len(st.Answers)-1)]
		for k, v := range a.Headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(a.Status)
		_, _ = io.WriteString(w, a.Body)
	}))
	t.Cleanup(m.Close)
	return m
}

// took returns the calls made for a step and the time between the first
// and the last (the waits, and the calls' own few milliseconds).
func (m *mockProvider) took(name string) (int, time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.calls[name]
	if len(c) < 2 {
		return len(c), 0
	}
	return len(c), c[len(c)-1].Sub(c[0])
}

// Row is one line of the side-by-side table (docs/INTEGRATIONS.md).
type Row struct {
	Framework  string `json:"framework"`
	Adapter    bool   `json:"adapter"`
	Step       string `json:"step"`
	Calls      int    `json:"calls"`
	WaitedMs   int64  `json:"waited_ms"`
	DecidedMs  int64  `json:"decided_wait_ms"`
	FinalError string `json:"final_error"`
}

func writeRows(t *testing.T, name string, rows []Row) {
	dir := os.Getenv("ERRSVC_SCENARIO_DIR")
	if dir == "" {
		return
	}
	raw, err := json.MarshalIndent(rows, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// finalError names how a call ended: "ok", or the status and the error's
// type or code, or the stream's error event.
func finalError(resp *http.Response, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode < 400 {
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			if ev := streamError(body); ev != "" {
				return "stream error after output: " + ev
			}
		}
		return "ok"
	}
	var e struct {
		Error struct {
			Type string  `json:"type"`
			Code *string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	what := e.Error.Type
	if e.Error.Code != nil {
		what = *e.Error.Code
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, what)
}

// streamError is the code of a stream's error event, or "".
func streamError(body []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var e struct {
			Error *struct {
				Type string `json:"type"`
				Code string `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Error != nil {
			return e.Error.Code
		}
	}
	return ""
}

func TestScenarioRoundTripper(t *testing.T) {
	s := loadScenario(t)
	var rows []Row
	for _, adapter := range []bool{false, true} {
		m := newMockProvider(t, s)
		for _, st := range s.Steps {
			var decided time.Duration
			var events []adapters.Event
			rt := &adapters.RoundTripper{Policy: adapters.Policy{
				Sleep: func(ctx context.Context, d time.Duration) error {
					decided += d
					time.Sleep(time.Duration(float64(d) * s.WaitScale))
					return nil
				},
				OnDecision: func(ev adapters.Event) { events = append(events, ev) },
			}}
			client := &http.Client{}
			if adapter {
				client.Transport = rt
			}
			resp, err := client.Post(m.URL+"/"+st.Name+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`))
			final := finalError(resp, err)
			if adapter && st.Stream && strings.HasPrefix(final, "stream error") {
				ev, derr := adapters.DecideStreamError(context.Background(), &rt.Policy, st.Provider, []byte(st.Answers[0].Body))
				if derr != nil || !ev.Decision.Retryable || ev.Retry || ev.Decision.SameArgumentsSafe {
					t.Errorf("%s: the stream error's decision: %+v, %v; want retryable, not repeated with the same arguments", st.Name, ev.Decision, derr)
				}
				final += " (not repeated: same_arguments discouraged)"
			}
			if adapter && len(events) > 0 && events[0].Decision.Reauthenticate {
				final += " (re-authenticate)"
			}
			calls, waited := m.took(st.Name)
			rows = append(rows, Row{"Go net/http + RoundTripper", adapter, st.Name, calls, waited.Milliseconds(), decided.Milliseconds(), final})
			if !adapter {
				continue
			}
			if calls != st.Expect.Calls {
				t.Errorf("%s: %d calls, want %d (%s)", st.Name, calls, st.Expect.Calls, final)
			}
			if st.Expect.Retried != (final == "ok") || (st.Expect.Reauthenticate && !strings.HasSuffix(final, "(re-authenticate)")) {
				t.Errorf("%s: ended %q", st.Name, final)
			}
			if st.Expect.StatedWaitMs > 0 && decided != time.Duration(st.Expect.StatedWaitMs)*time.Millisecond {
				t.Errorf("%s: waited %v, want the stated %d ms", st.Name, decided, st.Expect.StatedWaitMs)
			}
			if st.Expect.Reauthenticate && (len(events) == 0 || !events[0].Decision.Reauthenticate) {
				t.Errorf("%s: no reauthenticate decision: %+v", st.Name, events)
			}
		}
	}
	writeRows(t, "go", rows)
}

// A Reauthenticate hook is called once on a 401, and the call made again
// with the request it returns.
func TestRoundTripperReauthenticate(t *testing.T) {
	s := loadScenario(t)
	m := newMockProvider(t, s)
	hooked := 0
	rt := &adapters.RoundTripper{Reauthenticate: func(r *http.Request) (*http.Request, error) {
		hooked++
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer fresh")
		return r, nil
	}}
	resp, err := (&http.Client{Transport: rt}).Post(m.URL+"/unauthorized_401/v1/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if calls, _ := m.took("unauthorized_401"); hooked != 1 || calls != 2 || resp.StatusCode != 401 {
		t.Fatalf("hook called %d times, %d calls, status %d; want 1, 2 (the answer stays 401), 401", hooked, calls, resp.StatusCode)
	}
}

// When errsvc cannot be reached the adapter says so in a log line and the
// call behaves as without it (net/http: the answer as it came, one call).
func TestRoundTripperFallback(t *testing.T) {
	s := loadScenario(t)
	m := newMockProvider(t, s)
	c, err := unreachable(t)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	rt := &adapters.RoundTripper{Policy: adapters.Policy{Translator: c, Logger: slog.New(slog.NewTextHandler(&logs, nil))}}
	resp, err := (&http.Client{Transport: rt}).Post(m.URL+"/rate_limit_429/v1/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if calls, _ := m.took("rate_limit_429"); calls != 1 || resp.StatusCode != 429 {
		t.Errorf("%d calls, status %d; want net/http's own: 1 call, the 429", calls, resp.StatusCode)
	}
	if !strings.Contains(logs.String(), "errsvc could not be reached; falling back") {
		t.Errorf("no fallback log line: %q", logs.String())
	}
}

// unreachable is a client of an errsvc that is not there: a loopback port
// nothing listens on.
func unreachable(t *testing.T) (*errsvcclient.Client, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	c, err := errsvcclient.Dial(addr, errsvcclient.WithTimeout(500*time.Millisecond), errsvcclient.WithRetry(1, 0, 0))
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}
