package sanitize

import "testing"

func TestIdentifier(t *testing.T) {
	for _, s := range []string{
		"TEYCIag6aGsDeGoXv6YxH8A8f7L0/bsl5Kjox1k3",
		"3c954bffa4cdb0bf42241a29882d66bd1a1b0416",
		"KULsX_bO7rLHoaQXoCB9FPB_GIuMlpn30gmMFiui4ftQhH2FgerTbM8sapt6u2X-",
		"05bf238712e2b1cb62235f916756f16d",
		"HeTIiSYfr63slv", "xaYj5p0P/8xREmdwY", "OBxNna/#q9hFE8HiHo",
		"KULsXbOrLHoaQXoCBFPBGIuMlpngmMFiuiftQhH", // letters only, case changing throughout
	} {
		if got := Identifier(s, 256); got != RedactedToken {
			t.Errorf("Identifier(%q) = %q, want %q", s, got, RedactedToken)
		}
	}
	for _, s := range []string{
		"account_selection_unsupported", "oauth_scope_upgrade_required", "retryAfterMs",
		"io.modelcontextprotocol/related-task", "550e8400-e29b-41d4-a716-446655440000",
		"x_probe", "resultType", "_meta", "CONFIRMATION_INVALID", "gpt-4o-mini-2024-07-18",
		"requestId", "claude-3-5-sonnet-20241022", "trace_ref", "Qwen2.5-72B-Instruct",
		"meta-llama/Llama-3.1-70B-Instruct", "maxTokensPerRequest", "ERR_HTTP2_STREAM_ERROR",
		"text-embedding-3-large", "x-ratelimit-remaining-tokens", "ProvisionedThroughputExceededException",
	} {
		if got := Identifier(s, 256); got != s {
			t.Errorf("Identifier(%q) = %q, want it unchanged", s, got)
		}
	}
}
