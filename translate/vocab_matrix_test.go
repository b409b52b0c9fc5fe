package translate

import (
	"testing"

	"google.golang.org/genproto/googleapis/rpc/code"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// The rows of the new vocabularies name known terms, and their keys are
// what they claim to be.
func TestNewVocabularyRowsNameKnownTerms(t *testing.T) {
	kind := func(k, where string) {
		t.Helper()
		if k != "" && !LabbyKinds.Has(k) {
			t.Errorf("%s: %q is not a Labby kind", where, k)
		}
	}
	class := func(c, where string) {
		t.Helper()
		if c != "" && !Classes.Has(c) {
			t.Errorf("%s: %q is not a class", where, c)
		}
	}
	for _, tm := range Classes.Terms {
		if r := tm.Row.(*errsvcv1.ClassRow); !HandlingRoutes.Has(r.GetRoute()) {
			t.Errorf("class %s: route %q is not a HandlingRoute", tm.Wire, r.GetRoute())
		}
	}
	for _, tm := range Origins.Terms {
		r := tm.Row.(*errsvcv1.OriginRow)
		if !LogLevels.Has(r.GetLogLevel()) {
			t.Errorf("origin %s: log_level %q", tm.Wire, r.GetLogLevel())
		}
		if c := r.GetJsonrpcCode(); jsonrpcRow(c) == nil || c > -32600 || c < -32700 {
			t.Errorf("origin %s: jsonrpc_code %d is not a standard JSON-RPC code", tm.Wire, c)
		}
		// The Labby contract: only a transport failure counts.
		if r.GetCountsTowardHealth() != (tm.Wire == "upstream_transport") {
			t.Errorf("origin %s: counts_toward_health %v", tm.Wire, r.GetCountsTowardHealth())
		}
	}
	for _, tm := range GrpcCodes.Terms {
		r := tm.Row.(*errsvcv1.GrpcCodeRow)
		if code.Code_name[r.GetCode()] != tm.Wire {
			t.Errorf("gRPC code %s: number %d is %s", tm.Wire, r.GetCode(), code.Code_name[r.GetCode()])
		}
		kind(r.GetLabbyKind(), "gRPC code "+tm.Wire)
		kind(r.GetPermanentKind(), "gRPC code "+tm.Wire)
		class(r.GetClass(), "gRPC code "+tm.Wire)
		if r.GetLabbyKind() == "" && r.GetClass() == "" {
			t.Errorf("gRPC code %s: needs a kind, a class or both", tm.Wire)
		}
	}
	if len(GrpcCodes.Terms) != len(code.Code_name)-1 {
		t.Errorf("%d gRPC code rows, google.rpc.Code has %d error codes", len(GrpcCodes.Terms), len(code.Code_name)-1)
	}
	seen := map[int32]bool{}
	for _, tm := range JSONRPCCodes.Terms {
		r := tm.Row.(*errsvcv1.JsonRpcCodeRow)
		kind(r.GetLabbyKind(), "JSON-RPC "+tm.Wire)
		class(r.GetClass(), "JSON-RPC "+tm.Wire)
		if r.GetLastCode() == 0 {
			if seen[r.GetCode()] {
				t.Errorf("JSON-RPC code %d declared twice", r.GetCode())
			}
			seen[r.GetCode()] = true
			if jsonrpcRow(r.GetCode()) != r {
				t.Errorf("JSON-RPC code %d does not find its own row", r.GetCode())
			}
		} else if r.GetLastCode() < r.GetCode() {
			t.Errorf("JSON-RPC range %s is empty", tm.Wire)
		}
	}
	// The implementation-defined range is found before the reserved one.
	for c := int32(-32019); c <= -32000; c++ {
		if c != -32002 && jsonrpcRow(c).GetName() != "Server error" {
			t.Errorf("JSON-RPC code %d reads as %q", c, jsonrpcRow(c).GetName())
		}
	}
	for i, tm := range GatewayAnswers.Terms {
		r := tm.Row.(*errsvcv1.GatewayAnswerRow)
		class(r.GetClass(), "gateway answer "+tm.Wire)
		for _, c := range r.GetAgentCodes() {
			if !AgentCodes.Has(c) {
				t.Errorf("gateway answer %s: %q is not an agent code", tm.Wire, c)
			}
		}
		for _, k := range r.GetKinds() {
			kind(k, "gateway answer "+tm.Wire)
		}
		if r.GetOpenaiType() == "" || r.GetAnthropicType() == "" {
			t.Errorf("gateway answer %s: a body type is missing", tm.Wire)
		}
		last := i == len(GatewayAnswers.Terms)-1
		if catchAll := r.GetClass() == "" && len(r.GetAgentCodes())+len(r.GetKinds()) == 0 && r.GetMinHttpStatus() == 0; catchAll != last {
			t.Errorf("gateway answer %s: the last row, and only it, must match every answer", tm.Wire)
		}
	}
	// Every class of the four has a row of its own.
	for _, tm := range Classes.Terms {
		m := &model{hasClass: true, recognized: true, class: tm.Wire, httpStatus: 500}
		if gatewayRow(m).GetClass() != tm.Wire {
			t.Errorf("class %s has no gateway answer row", tm.Wire)
		}
	}
}
