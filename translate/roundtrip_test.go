package translate

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// wellFormed returns every golden case's request that must translate.
func wellFormed(t *testing.T) map[string]*errsvcv1.TranslateRequest {
	t.Helper()
	out := map[string]*errsvcv1.TranslateRequest{}
	for _, c := range goldenCases() {
		if _, bad := c.request.(errorCase); bad {
			continue
		}
		req := &errsvcv1.TranslateRequest{}
		if err := openjson.Unmarshal(mustJSON(c.request), req); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		req.Targets = nil
		out[c.name] = req
	}
	return out
}

func mustTranslate(t *testing.T, name string, req *errsvcv1.TranslateRequest) *errsvcv1.TranslateResponse {
	t.Helper()
	resp, err := Translate(req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return resp
}

func hasNote(resp *errsvcv1.TranslateResponse, code errsvcv1.NoteCode) bool {
	return slices.ContainsFunc(resp.GetNotes(), func(n *errsvcv1.Note) bool { return n.GetCode() == Wire(code) })
}

// X → Labby → X: the Labby envelope errsvc emits is a fixed point, and it
// carries the agent payload and the class of its source in its additive
// fields, so translating it again answers the same agent error, class,
// wait and statuses.
func TestRoundTripThroughLabby(t *testing.T) {
	for name, req := range wellFormed(t) {
		first := mustTranslate(t, name, req)
		again := &errsvcv1.TranslateRequest{
			Source:  &errsvcv1.TranslateRequest_LabbyError{LabbyError: first.GetLabbyError()},
			Context: req.GetContext(),
		}
		second := mustTranslate(t, name+" (again)", again)
		if diff := cmp.Diff(first.GetLabbyError(), second.GetLabbyError(), protocmp.Transform()); diff != "" {
			t.Errorf("%s: labby_error is not a fixed point (-first +second):\n%s", name, diff)
		}
		if diff := cmp.Diff(first.GetAgentError(), second.GetAgentError(), protocmp.Transform()); diff != "" {
			t.Errorf("%s: agent_error changed through labby_error (-first +second):\n%s", name, diff)
		}
		if diff := cmp.Diff(first.GetClassification(), second.GetClassification(), protocmp.Transform()); diff != "" {
			t.Errorf("%s: classification changed through labby_error (-first +second):\n%s", name, diff)
		}
		if first.GetHttpStatus() != second.GetHttpStatus() && req.GetLabbyError() != nil {
			t.Errorf("%s: http_status %d became %d", name, first.GetHttpStatus(), second.GetHttpStatus())
		}
	}
}

// X → agent → X: the agent projection is a fixed point (code, retry,
// details, message), its retry meaning and wait survive, and whatever the
// projection could not carry (kind, class) was announced by a note.
func TestRoundTripThroughAgent(t *testing.T) {
	for name, req := range wellFormed(t) {
		first := mustTranslate(t, name, req)
		again := &errsvcv1.TranslateRequest{
			Source:  &errsvcv1.TranslateRequest_AgentError{AgentError: first.GetAgentError()},
			Context: req.GetContext(),
		}
		second := mustTranslate(t, name+" (again)", again)
		if diff := cmp.Diff(first.GetAgentError(), second.GetAgentError(), protocmp.Transform()); diff != "" {
			t.Errorf("%s: agent_error is not a fixed point (-first +second):\n%s", name, diff)
		}
		if first.GetLabbyError().GetRecovery().RetryAfterMs != nil &&
			first.GetLabbyError().GetRecovery().GetRetryAfterMs() != second.GetLabbyError().GetRecovery().GetRetryAfterMs() &&
			slices.Contains(agentCodeRow(first.GetAgentError().GetCode()).GetDetails(), "retryAfterMs") {
			t.Errorf("%s: the wait %d ms became %d ms", name, first.GetLabbyError().GetRecovery().GetRetryAfterMs(), second.GetLabbyError().GetRecovery().GetRetryAfterMs())
		}
		if !proto.Equal(first.GetClassification(), second.GetClassification()) && !hasNote(first, errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED) && !hasNote(first, errsvcv1.NoteCode_NOTE_CODE_CLASS_ABSENT) {
			t.Errorf("%s: class %v became %v without a note", name, first.GetClassification(), second.GetClassification())
		}
		if first.GetLabbyError().GetKind() != second.GetLabbyError().GetKind() && req.GetAgentError() == nil && !hasNote(first, errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED) {
			t.Errorf("%s: kind %q became %q without a note", name, first.GetLabbyError().GetKind(), second.GetLabbyError().GetKind())
		}
	}
}

// classified → Labby → classified: the class and the wait survive.
func TestRoundTripClassThroughLabby(t *testing.T) {
	for name, req := range wellFormed(t) {
		if req.GetClassifiedError() == nil {
			continue
		}
		first := mustTranslate(t, name, req)
		second := mustTranslate(t, name, &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: first.GetLabbyError()}})
		if !proto.Equal(first.GetClassification(), second.GetClassification()) {
			t.Errorf("%s: classification %v became %v", name, first.GetClassification(), second.GetClassification())
		}
	}
}

// Retry meaning holds in every vocabulary of one answer: a "no" is never
// a safe repeat, and a non-idempotent timeout is never a blind retry unless
// its producer classified it transient (a provider's or a service's timeout
// of a model call: the produced class decides, docs/VOCABULARIES.md "One
// decision").
func TestRetryMeaningAgreesAcrossTargets(t *testing.T) {
	for name, req := range wellFormed(t) {
		resp := mustTranslate(t, name, req)
		a, l := resp.GetAgentError(), resp.GetLabbyError()
		if a.GetRetry() == "no" && l.GetRecovery().GetSameArguments() == "safe" {
			t.Errorf("%s: agent says no but labby says same_arguments safe", name)
		}
		if a.GetCode() == "TIMEOUT" && a.GetRetry() == "yes" {
			idem := req.GetContext().GetIdempotent() || a.GetDetails().GetFields()["idempotent"].GetBoolValue()
			produced := req.GetLabbyError() == nil && req.GetMcpToolResult() == nil && req.GetAgentError() == nil && transient(resp)
			if !idem && !produced {
				t.Errorf("%s: a non-idempotent timeout became a blind retry", name)
			}
		}
		if a.GetCode() == "CONFIRMATION_INVALID" {
			reason := a.GetDetails().GetFields()["reason"].GetStringValue()
			if reason != "expired" && a.GetRetry() != "no" {
				t.Errorf("%s: a %q confirmation became retry %q", name, reason, a.GetRetry())
			}
		}
		if c := resp.GetClassification().GetClass(); c != "" && c != classTransient && (a.GetRetry() == "after-delay" || a.GetRetry() == "yes") {
			t.Errorf("%s: class %s but the agent is told %q", name, c, a.GetRetry())
		}
		conditional := l.GetRecovery().GetSameArguments() == "conditional" && a.GetRetry() == "no" // only if idempotent
		if c := resp.GetClassification().GetClass(); c != "" && c != classTransient && l.GetRecovery().GetAction() == "retry_later" && !conditional {
			t.Errorf("%s: class %s but labby says retry_later", name, c)
		}
		if n := len([]rune(a.GetMessage())); n == 0 || n > AgentMessageCap {
			t.Errorf("%s: agent message has %d characters", name, n)
		}
		if c := resp.GetClassification(); c != nil && c.GetRetryAfterSecs() > 0 && l.GetRecovery().RetryAfterMs == nil {
			t.Errorf("%s: the class has a wait the envelope lost", name)
		}
	}
}

// The agent message never carries the source's text.
func TestAgentMessageIsTemplated(t *testing.T) {
	secret := "SELECT password FROM users WHERE id=42 -- /srv/internal/app.go:17"
	for _, src := range []*errsvcv1.TranslateRequest{
		{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{Kind: "internal_error", Message: secret}}},
		{Source: &errsvcv1.TranslateRequest_ClassifiedError{ClassifiedError: &errsvcv1.ClassifiedError{Code: "mystery", Message: secret}}},
		{Source: &errsvcv1.TranslateRequest_AgentError{AgentError: &errsvcv1.AgentError{Code: "EXECUTION_FAILED", Message: secret}}},
	} {
		resp := mustTranslate(t, "templated", src)
		for _, s := range []string{resp.GetAgentError().GetMessage(), resp.GetGrpcStatus().GetMessage()} {
			if s == "" || slices.Contains([]string{secret}, s) || len(s) >= len(secret) && s[:len(secret)] == secret {
				t.Errorf("agent-facing message %q passes the source text through", s)
			}
		}
	}
}
