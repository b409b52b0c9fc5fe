package translate

import (
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// TEMPORARY: replaced by calls into translate/sanitize once it lands.

const (
	causeCap    = 4096
	evidenceCap = 8192
	shortCap    = 256
)

func sanitizeCause(s string) string                            { return s }
func sanitizeShort(s string) string                            { return s }
func sanitizeStruct(s *structpb.Struct) *structpb.Struct       { return s }
func sanitizeEvidence(e *errsvcv1.Evidence) *errsvcv1.Evidence { return e }

func sanitizeEvidenceText(s string) string            { return s }
func sanitizeValue(v *structpb.Value) *structpb.Value { return v }
