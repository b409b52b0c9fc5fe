package translate

import (
	"slices"

	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	// The detail types a google.rpc.Status carries, registered for the
	// JSON form of google_error's details and for reading grpc_status.
	_ "google.golang.org/genproto/googleapis/rpc/errdetails"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate/provider"
)

// The provider-shaped answers a gateway sends to clients built for one
// provider's SDK. Each carries the status, the headers of http_headers
// (x-should-retry, and a wait only with a transient answer) and the body
// exactly in the provider's shape. The message in every body is the
// agent-safe message of agent_error: templated from the matrix, never the
// upstream's text.

// gatewayRow is the first GatewayAnswer row that matches the answer.
func gatewayRow(m *model) *errsvcv1.GatewayAnswerRow {
	class := ""
	if m.hasClass && m.recognized {
		class = m.class
	}
	for _, t := range GatewayAnswers.Terms {
		r := t.Row.(*errsvcv1.GatewayAnswerRow)
		if r.GetClass() != class ||
			len(r.GetAgentCodes()) > 0 && !slices.Contains(r.GetAgentCodes(), m.agentCode) ||
			len(r.GetKinds()) > 0 && !slices.Contains(r.GetKinds(), m.kind) ||
			m.httpStatus < r.GetMinHttpStatus() {
			continue
		}
		return r
	}
	// The last row matches everything; the matrix test pins that.
	return GatewayAnswers.Terms[len(GatewayAnswers.Terms)-1].Row.(*errsvcv1.GatewayAnswerRow)
}

func statusOr(s, fallback int32) int32 {
	if s != 0 {
		return s
	}
	return fallback
}

func nullOr(s string) *structpb.Value {
	if s == "" {
		return structpb.NewNullValue()
	}
	return structpb.NewStringValue(s)
}

func object(fields map[string]*structpb.Value) *structpb.Value {
	return structpb.NewStructValue(&structpb.Struct{Fields: fields})
}

// encodeOpenAIError writes {"error": {"message", "type", "param", "code"}}.
// param is null: errsvc never knows which request parameter was at fault.
func encodeOpenAIError(m *model, resp *errsvcv1.TranslateResponse) {
	r := gatewayRow(m)
	resp.OpenaiError = &errsvcv1.HttpAnswer{
		Status:  statusOr(r.GetOpenaiStatus(), m.httpStatus),
		Headers: retryHeaders(m),
		Body: &structpb.Struct{Fields: map[string]*structpb.Value{
			"error": object(map[string]*structpb.Value{
				"message": structpb.NewStringValue(agentMessage(m)),
				"type":    structpb.NewStringValue(openaiType(m, r.GetOpenaiType())),
				"param":   structpb.NewNullValue(),
				"code":    nullOr(r.GetOpenaiCode()),
			}),
		}},
	}
}

// encodeAnthropicError writes {"type": "error", "error": {"type", "message"}}.
func encodeAnthropicError(m *model, resp *errsvcv1.TranslateResponse) {
	r := gatewayRow(m)
	resp.AnthropicError = &errsvcv1.HttpAnswer{
		Status:  statusOr(r.GetAnthropicStatus(), m.httpStatus),
		Headers: retryHeaders(m),
		Body: &structpb.Struct{Fields: map[string]*structpb.Value{
			"type": structpb.NewStringValue("error"),
			"error": object(map[string]*structpb.Value{
				"type":    structpb.NewStringValue(r.GetAnthropicType()),
				"message": structpb.NewStringValue(agentMessage(m)),
			}),
		}},
	}
}

// encodeGoogleError writes AIP-193's HTTP JSON shape: {"error": {"code":
// <HTTP status>, "message", "status": "<gRPC code name>", "details"}}, the
// details being grpc_status's (the ErrorInfo and, with a wait, RetryInfo)
// in their JSON form. The status is grpc_status's code, and error.code and
// the HTTP status are that code's HTTP mapping (google/rpc/code.proto), as
// every Google API answers: a client maps error.code back to the same code.
func encodeGoogleError(m *model, resp *errsvcv1.TranslateResponse) {
	var scratch errsvcv1.TranslateResponse
	encodeGRPCStatus(m, &scratch)
	st := scratch.GetGrpcStatus()
	details := []any{}
	for _, d := range st.GetDetails() {
		b, err := protojson.Marshal(d)
		if err != nil {
			continue // cannot happen: errsvc writes only registered types
		}
		v := &structpb.Value{}
		if protojson.Unmarshal(b, v) == nil {
			details = append(details, v.AsInterface())
		}
	}
	name := code.Code_name[st.GetCode()]
	httpStatus := httpStatusForCode(name)
	body, _ := structpb.NewStruct(map[string]any{"error": map[string]any{
		"code":    float64(httpStatus),
		"message": st.GetMessage(),
		"status":  name,
		"details": details,
	}})
	resp.GoogleError = &errsvcv1.HttpAnswer{Status: httpStatus, Headers: retryHeaders(m), Body: body}
}

// openaiType is the row's OpenAI error type, except that a rate limit on
// tokens says "tokens": OpenAI's own 429s name the limit hit, "requests"
// (per minute or day) or "tokens", and the limit facet knows which.
func openaiType(m *model, rowType string) string {
	if rowType != provider.DimRequests || m.limit == nil {
		return rowType
	}
	switch m.limit.dimension {
	case provider.DimTokens, provider.DimInputTokens, provider.DimOutputTokens:
		return provider.DimTokens
	}
	return rowType
}
