package translate

// Tests written to kill mutants that `make mutate` left alive (see
// docs/TESTING.md): each pins a branch no other test reached.

import (
	"testing"

	"google.golang.org/protobuf/proto"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// A caller's evidence with more than 16 blocks keeps 16 and adds the rest
// to the omitted count it already had (the Code Mode evidence cap).
func TestCallerEvidenceBeyondTheBlockCap(t *testing.T) {
	var blocks []*errsvcv1.EvidenceBlock
	for i := 0; i < maxEvidenceBlocks+5; i++ {
		blocks = append(blocks, &errsvcv1.EvidenceBlock{Type: "text", Text: "line"})
	}
	resp := mustTranslate(t, "evidence", &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{
		Kind: "tool_error", Message: "m", Evidence: &errsvcv1.Evidence{Content: blocks, OmittedContentBlocks: proto.Uint32(3)}}}})
	ev := resp.GetLabbyError().GetEvidence()
	if len(ev.GetContent()) != maxEvidenceBlocks || ev.GetOmittedContentBlocks() != 3+5 {
		t.Errorf("kept %d blocks, omitted %d; want %d and 8", len(ev.GetContent()), ev.GetOmittedContentBlocks(), maxEvidenceBlocks)
	}
}

// A status the table does not list falls to its class: 4xx
// FAILED_PRECONDITION, anything else INTERNAL.
func TestGRPCCodeOfAnUnlistedStatus(t *testing.T) {
	for status, want := range map[int32]string{418: "FAILED_PRECONDITION", 451: "FAILED_PRECONDITION", 499: "CANCELLED",
		507: "INTERNAL", 399: "INTERNAL", 0: "INTERNAL", 600: "INTERNAL", 429: "RESOURCE_EXHAUSTED"} {
		if got := grpcCodeByHTTP(status); got != want {
			t.Errorf("grpcCodeByHTTP(%d) = %s, want %s", status, got, want)
		}
	}
}
