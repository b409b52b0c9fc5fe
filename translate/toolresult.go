package translate

import errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"

func decodeToolResult(m *model, r *errsvcv1.McpToolResult) error {
	return &RequestError{Field: "mcp_tool_result", Description: "not yet supported"}
}

func encodeCodeMode(m *model, resp *errsvcv1.TranslateResponse) {}
