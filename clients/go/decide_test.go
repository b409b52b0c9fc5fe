package errsvcclient_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	errsvcclient "github.com/errsvc/errsvc/clients/go"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/golden"
)

// decisionCase is one response the helpers run on: a golden vector's
// expected response, or a hand-made edge case of
// clients/testdata/decision-cases.json.
type decisionCase struct {
	name string
	resp *errsvcv1.TranslateResponse
}

func decisionCases(t *testing.T) []decisionCase {
	t.Helper()
	var out []decisionCase
	for _, v := range loadVectors(t) {
		if v.want != nil {
			out = append(out, decisionCase{v.Name, v.want})
		}
	}
	root, err := golden.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "clients", "testdata", "decision-cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []struct {
			Name     string          `json:"name"`
			Response json.RawMessage `json:"response"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	for _, c := range file.Cases {
		resp := &errsvcv1.TranslateResponse{}
		if err := protojson.Unmarshal(c.Response, resp); err != nil {
			t.Fatalf("decision case %s: %v", c.Name, err)
		}
		out = append(out, decisionCase{"case." + c.Name, resp})
	}
	return out
}

// decisionRecord is what every SDK writes for one case; clients/test.sh
// compares the three files field by field.
type decisionRecord struct {
	Retryable                   bool         `json:"retryable"`
	RetryAfterMs                *float64     `json:"retry_after_ms"`
	RetryAfterMsCap10s          *float64     `json:"retry_after_ms_cap_10s"`
	RetryAfterMsUncapped        *float64     `json:"retry_after_ms_uncapped"`
	Reauthenticate              bool         `json:"reauthenticate"`
	SameArgumentsSafe           bool         `json:"same_arguments_safe"`
	SameArgumentsSafeIdempotent bool         `json:"same_arguments_safe_idempotent"`
	Error                       *errorRecord `json:"error"`
}

type errorRecord struct {
	Code    int      `json:"code"`
	Message string   `json:"message"`
	Details []string `json:"details"`
}

func msOf(d time.Duration, ok bool) *float64 {
	if !ok {
		return nil
	}
	ms := float64(d) / float64(time.Millisecond)
	return &ms
}

func record(resp *errsvcv1.TranslateResponse) decisionRecord {
	r := decisionRecord{
		Retryable:                   errsvcclient.IsRetryable(resp),
		RetryAfterMs:                msOf(errsvcclient.RetryAfter(resp, errsvcclient.DefaultMaxWait)),
		RetryAfterMsCap10s:          msOf(errsvcclient.RetryAfter(resp, 10*time.Second)),
		RetryAfterMsUncapped:        msOf(errsvcclient.RetryAfter(resp, -1)),
		Reauthenticate:              errsvcclient.ShouldReauthenticate(resp),
		SameArgumentsSafe:           errsvcclient.SameArgumentsSafe(resp, false),
		SameArgumentsSafeIdempotent: errsvcclient.SameArgumentsSafe(resp, true),
	}
	if err := errsvcclient.StatusError(resp); err != nil {
		st, _ := status.FromError(err)
		e := &errorRecord{Code: int(st.Code()), Message: st.Message(), Details: []string{}}
		for _, d := range st.Proto().GetDetails() {
			e.Details = append(e.Details, d.GetTypeUrl()[strings.LastIndex(d.GetTypeUrl(), "/")+1:])
		}
		r.Error = e
	}
	return r
}

// TestDecisionProperties checks, on every golden vector and edge case,
// properties that follow from the contracts rather than from the code:
// they hold whatever precedence the helpers use inside.
func TestDecisionProperties(t *testing.T) {
	halted := map[string]bool{"permanent": true, "auth_required": true, "context_overflow": true, "auth": true}
	for _, c := range decisionCases(t) {
		t.Run(c.name, func(t *testing.T) {
			resp := c.resp
			retryable := errsvcclient.IsRetryable(resp)
			class := resp.GetClassification().GetClass()
			if retryable && halted[class] {
				t.Errorf("retryable with class %q: the Error Class Contract says never backoff-retry it", class)
			}
			if retryable && resp.GetError() != nil {
				t.Error("an item error (no translation) is retryable")
			}
			if retryable {
				action := resp.GetLabbyError().GetRecovery().GetAction()
				retry := resp.GetAgentError().GetRetry()
				if action != "retry_later" && retry != "yes" && retry != "after-delay" &&
					resp.GetCodeModeError().GetRecovery().GetAction() != "retry_later" && class != "transient" {
					t.Errorf("retryable, but no field advises a retry (action %q, retry %q, class %q)", action, retry, class)
				}
			}
			wait, ok := errsvcclient.RetryAfter(resp, -1)
			if ok != retryable {
				t.Errorf("RetryAfter without a cap says %v, IsRetryable %v", ok, retryable)
			}
			if ok {
				if wait < 0 {
					t.Errorf("negative wait %v", wait)
				}
				// A stated wait is honoured to the millisecond unit the
				// envelope and details use; with none stated, zero.
				stated := statedWaits(resp)
				if len(stated) == 0 && wait != 0 {
					t.Errorf("wait %v with no wait stated", wait)
				}
				if len(stated) > 0 && !containsNear(stated, wait) {
					t.Errorf("wait %v is none of the stated waits %v", wait, stated)
				}
				// The cap: at the wait it retries, below it fails fast.
				if got, ok := errsvcclient.RetryAfter(resp, wait); !ok || got != wait {
					t.Errorf("RetryAfter(cap = wait %v) = %v, %v", wait, got, ok)
				}
				if wait > 0 {
					if _, ok := errsvcclient.RetryAfter(resp, wait-time.Nanosecond); ok {
						t.Errorf("a wait of %v past the cap was accepted", wait)
					}
				}
			}
			reauth := errsvcclient.ShouldReauthenticate(resp)
			if reauth && retryable {
				t.Error("both reauthenticate and retry unchanged")
			}
			if reauth && class != "" && class != "auth_required" && class != "auth" && halted[class] {
				t.Errorf("reauthenticate with class %q", class)
			}
			if class == "auth_required" && !reauth {
				t.Error("auth_required does not ask to reauthenticate")
			}
			safe, safeIdem := errsvcclient.SameArgumentsSafe(resp, false), errsvcclient.SameArgumentsSafe(resp, true)
			if safe && !safeIdem {
				t.Error("safe for a non-idempotent call but not for an idempotent one")
			}
			if same := resp.GetLabbyError().GetRecovery().GetSameArguments(); safeIdem && (same == "never" || same == "discouraged") {
				t.Errorf("same arguments safe although the envelope says %q", same)
			}
			checkStatusError(t, resp)
		})
	}
}

// statedWaits lists every wait field of the answer.
func statedWaits(resp *errsvcv1.TranslateResponse) []time.Duration {
	var out []time.Duration
	if c := resp.GetClassification(); c != nil && c.RetryAfterSecs != nil {
		out = append(out, time.Duration(c.GetRetryAfterSecs())*time.Second)
	}
	for _, le := range []*errsvcv1.LabbyError{resp.GetLabbyError(), resp.GetCodeModeError()} {
		if r := le.GetRecovery(); r != nil && r.RetryAfterMs != nil {
			out = append(out, time.Duration(r.GetRetryAfterMs())*time.Millisecond)
		}
	}
	if v, ok := resp.GetAgentError().GetDetails().GetFields()["retryAfterMs"]; ok {
		if n, num := v.GetKind().(*structpb.Value_NumberValue); num {
			out = append(out, time.Duration(n.NumberValue*float64(time.Millisecond)))
		}
	}
	for _, d := range resp.GetGrpcStatus().GetDetails() {
		ri := &errdetails.RetryInfo{}
		if d.UnmarshalTo(ri) == nil {
			out = append(out, max(ri.GetRetryDelay().AsDuration(), 0))
		}
	}
	return out
}

func containsNear(ds []time.Duration, d time.Duration) bool {
	for _, x := range ds {
		if x == d {
			return true
		}
	}
	return false
}

// checkStatusError checks the grpc_status conversion: the error is what
// status.FromError reads back, code, message and details intact.
func checkStatusError(t *testing.T, resp *errsvcv1.TranslateResponse) {
	t.Helper()
	err := errsvcclient.StatusError(resp)
	gs := resp.GetGrpcStatus()
	if gs == nil || gs.GetCode() == 0 {
		if err != nil {
			t.Errorf("StatusError of a response without a failing grpc_status: %v", err)
		}
		return
	}
	st, ok := status.FromError(err)
	if !ok {
		t.Fatalf("StatusError %v is not a gRPC status error", err)
	}
	wantCode := codes.Code(gs.GetCode())
	if gs.GetCode() > 16 {
		wantCode = codes.Unknown
	}
	if st.Code() != wantCode || st.Message() != gs.GetMessage() {
		t.Errorf("status %v %q, want %v %q", st.Code(), st.Message(), wantCode, gs.GetMessage())
	}
	if diff := cmp.Diff(gs.GetDetails(), st.Proto().GetDetails(), protocmp.Transform()); diff != "" {
		t.Errorf("details differ (-grpc_status +error):\n%s", diff)
	}
	for _, d := range st.Details() {
		if _, isErr := d.(error); isErr {
			t.Errorf("a detail did not unpack: %v", d)
		}
	}
}

// TestDecisionBehaviour pins what the contracts say for real-shaped answers.
func TestDecisionBehaviour(t *testing.T) {
	byName := map[string]*errsvcv1.TranslateResponse{}
	for _, c := range decisionCases(t) {
		byName[c.name] = c.resp
	}
	type want struct {
		retryable bool
		wait      time.Duration // RetryAfter with DefaultMaxWait; -1 for "do not retry"
		reauth    bool
		safe      bool // SameArgumentsSafe, not idempotent
	}
	for name, w := range map[string]want{
		// A rate limit waits its Retry-After and repeats the same call.
		"provider.openai-429-rpm-retry-after": {true, time.Second, false, true},
		"labby.retry_after.rate_limited":      {true, 2500 * time.Millisecond, false, true},
		// Billing exhaustion looks like a 429 but no wait fixes it.
		"provider.openai-429-insufficient-quota": {false, -1, false, false},
		// A wait past the cap fails fast.
		"provider.generic-429-body-text-go-duration": {true, -1, false, true},
		// A timeout of a call that is not idempotent: verify state first.
		"rule.timeout_not_idempotent": {false, -1, false, false},
		// The caller's own recovery wins over the kind's row.
		"rule.caller_recovery_wins": {false, -1, false, false},
		// auth_required and its alias pause for a login; a 403 does not.
		"agent.code.NOT_AUTHENTICATED": {false, -1, true, false},
		"rule.auth_alias":              {false, -1, true, false},
		"agent.code.NOT_AUTHORIZED":    {false, -1, false, false},
		// Only the class was asked for: the class decides.
		"rule.targets_subset": {true, 0, false, false},
		// The most precise wait wins over the rounded-up seconds.
		"rule.rate_limited_fraction_ms": {true, 21 * time.Millisecond, false, true},
		"case.auth_alias_class":         {false, -1, true, false},
		"case.agent_only_yes":           {true, 0, false, true},
		"case.wait_at_cap_exactly":      {true, 10 * time.Second, false, false},
		"case.item_error":               {false, -1, false, false},
	} {
		t.Run(name, func(t *testing.T) {
			resp, ok := byName[name]
			if !ok {
				t.Fatalf("no vector or case %s", name)
			}
			d := errsvcclient.Decide(resp, errsvcclient.DefaultMaxWait, false)
			got := want{d.Retryable, d.RetryAfter, d.Reauthenticate, d.SameArgumentsSafe}
			if !d.RetryAfterOK {
				got.wait = -1
			}
			if got != w {
				t.Errorf("got %+v, want %+v", got, w)
			}
		})
	}
}

// TestDecisionRecords writes every helper's answer for every case to
// $ERRSVC_DECISIONS_DIR/go.json, which clients/test.sh compares with the
// Python and TypeScript SDKs' files.
func TestDecisionRecords(t *testing.T) {
	out := map[string]decisionRecord{}
	for _, c := range decisionCases(t) {
		out[c.name] = record(c.resp)
	}
	dir := os.Getenv("ERRSVC_DECISIONS_DIR")
	if dir == "" {
		t.Log("ERRSVC_DECISIONS_DIR unset: records not written (clients/test.sh sets it)")
		return
	}
	b, err := json.MarshalIndent(map[string]any{"sdk": "go", "cases": out}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
