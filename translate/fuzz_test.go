package translate

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/golden"
	"github.com/errsvc/errsvc/internal/schemas"
	"github.com/errsvc/errsvc/internal/secrets"
)

// One fuzz target per source decoder. Each feeds arbitrary JSON through
// protojson into the source, then asserts what must hold for any input:
// no panic; a malformed source fails with a RequestError naming a field;
// a well-formed one emits schema-valid envelopes, an agent message of at
// most 300 characters, and a class that is one of the four or flagged.

func FuzzLabbySource(f *testing.F) {
	fuzzSource(f, "labby_error", func(b []byte) (*errsvcv1.TranslateRequest, bool) {
		e := &errsvcv1.LabbyError{}
		if protojson.Unmarshal(b, e) != nil {
			return nil, false
		}
		return &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: e}}, true
	})
}

func FuzzAgentSource(f *testing.F) {
	fuzzSource(f, "agent_error", func(b []byte) (*errsvcv1.TranslateRequest, bool) {
		e := &errsvcv1.AgentError{}
		if protojson.Unmarshal(b, e) != nil {
			return nil, false
		}
		return &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_AgentError{AgentError: e}}, true
	})
}

func FuzzClassifiedSource(f *testing.F) {
	fuzzSource(f, "classified_error", func(b []byte) (*errsvcv1.TranslateRequest, bool) {
		e := &errsvcv1.ClassifiedError{}
		if protojson.Unmarshal(b, e) != nil {
			return nil, false
		}
		return &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_ClassifiedError{ClassifiedError: e}}, true
	})
}

func FuzzToolResultSource(f *testing.F) {
	fuzzSource(f, "mcp_tool_result", func(b []byte) (*errsvcv1.TranslateRequest, bool) {
		r := &errsvcv1.McpToolResult{}
		if protojson.Unmarshal(b, r) != nil {
			return nil, false
		}
		return &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_McpToolResult{McpToolResult: r}}, true
	})
}

// FuzzRequest covers whole requests: targets, context and every source.
func FuzzRequest(f *testing.F) {
	fuzzSource(f, "", func(b []byte) (*errsvcv1.TranslateRequest, bool) {
		req := &errsvcv1.TranslateRequest{}
		if protojson.Unmarshal(b, req) != nil {
			return nil, false
		}
		return req, true
	})
}

// fuzzSource seeds the target with the golden requests' source (field) or
// whole request (field ""), then checks every input.
func fuzzSource(f *testing.F, field string, parse func([]byte) (*errsvcv1.TranslateRequest, bool)) {
	dir, err := golden.Dir()
	if err != nil {
		f.Fatal(err)
	}
	vectors, err := golden.Load(dir)
	if err != nil {
		f.Fatal(err)
	}
	for _, v := range vectors {
		if field == "" {
			f.Add([]byte(v.Request))
			continue
		}
		req := &errsvcv1.TranslateRequest{}
		if protojson.Unmarshal(v.Request, req) != nil {
			continue
		}
		if src := req.ProtoReflect().Get(req.ProtoReflect().Descriptor().Fields().ByName(protoName(field))); src.IsValid() && req.ProtoReflect().Has(req.ProtoReflect().Descriptor().Fields().ByName(protoName(field))) {
			b, _ := protojson.Marshal(src.Message().Interface())
			f.Add(b)
		}
	}
	// Planted secrets: every corpus secret is looked for in each input, and
	// one that the input holds whole must not be whole in any string of the
	// response (read by reflection). FuzzRequest is seeded with the secrets
	// planted in every request position.
	corpus, err := secrets.Load()
	if err != nil {
		f.Fatal(err)
	}
	if field == "" {
		positions := secrets.Positions()
		for _, pe := range secrets.Plan(len(positions), len(corpus), 1) {
			b, err := protojson.Marshal(positions[pe[0]].Build(corpus[pe[1]].Text))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		req, ok := parse(b)
		if !ok {
			return
		}
		resp, err := Translate(req)
		if err != nil {
			var re *RequestError
			if !errors.As(err, &re) || re.Field == "" {
				t.Fatalf("error without a field: %v", err)
			}
			return
		}
		checkInvariants(t, resp)
		for _, e := range corpus {
			if !bytes.Contains(b, []byte(e.Secret)) {
				continue
			}
			for _, fl := range secrets.Strings(resp) {
				if strings.Contains(fl.Value, e.Secret) {
					t.Fatalf("planted secret %s reached %s: %q", e.Name, fl.Path, fl.Value)
				}
			}
		}
	})
}

// checkInvariants is what every successful translation must satisfy.
func checkInvariants(t *testing.T, resp *errsvcv1.TranslateResponse) {
	t.Helper()
	if err := schemas.ValidateResponse(resp); err != nil {
		t.Fatalf("schema: %v", err)
	}
	if a := resp.GetAgentError(); a != nil {
		if n := utf8.RuneCountInString(a.GetMessage()); n == 0 || n > AgentMessageCap {
			t.Fatalf("agent message of %d characters", n)
		}
	}
	if c := resp.GetClassification(); c != nil {
		if c.Recognized == nil || c.GetRecognized() != Classes.Has(c.GetClass()) {
			t.Fatalf("classification %v: recognized disagrees with the closed set", c)
		}
	}
	if s := resp.GetGrpcStatus(); s != nil && len(s.GetDetails()) == 0 {
		t.Fatal("grpc_status without an ErrorInfo")
	}
	for _, n := range resp.GetNotes() {
		if !NoteCodes.Has(n.GetCode()) || !utf8.ValidString(n.GetMessage()) {
			t.Fatalf("note %v", n)
		}
	}
}

func protoName(s string) protoreflect.Name { return protoreflect.Name(s) }
