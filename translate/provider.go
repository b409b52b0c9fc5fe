package translate

import (
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate/provider"
)

// now is the clock for an HTTP-date Retry-After with neither a Date header
// nor received_at; tests replace it.
var now = time.Now

// decodeProvider classifies a raw upstream answer at the producer (seed
// 004) and then reads the result like any classified error, so it routes
// through the same matrix. The provider's text stays untrusted: it reaches
// the envelope's message only sanitised and never the agent message.
func decodeProvider(m *model, p *errsvcv1.ProviderResponse) error {
	if s := p.GetStatus(); s < 0 || s > 599 {
		return &RequestError{Field: "provider_response.status", Description: "must be an HTTP status up to 599 (0 when the status is unknown)"}
	}
	a := provider.Answer{
		Provider: p.GetProvider(),
		Status:   int(p.GetStatus()),
		Headers:  p.GetHeaders(),
		Body:     p.GetBody(),
		Now:      now(),
	}
	if p.GetReceivedAt() != nil {
		a.ReceivedAt = p.GetReceivedAt().AsTime()
	}
	r := provider.Classify(a)
	if r.Class == "" {
		return &RequestError{Field: "provider_response", Description: "the answer carries no error (a success status without an error event); only errors translate"}
	}
	detail := map[string]any{"provider": p.GetProvider(), "status": float64(p.GetStatus()), "rule": r.Rule}
	if r.Code != "" {
		detail["provider_code"] = r.Code
	}
	if r.WaitSource != "" {
		detail["wait_source"] = r.WaitSource
	}
	if r.Stream {
		detail["stream"] = true
	}
	d, _ := structpb.NewStruct(detail)
	ce := &errsvcv1.ClassifiedError{
		Code:         r.Kind,
		Message:      r.Message,
		Class:        r.Class,
		Detail:       d,
		ProviderCode: r.Code,
	}
	if r.RetryAfterSecs != nil {
		secs := float64(*r.RetryAfterSecs)
		ce.RetryAfterSecs = &secs
	}
	if err := decodeClassified(m, ce); err != nil {
		return err
	}
	m.originalTerm = sanitizeShort(r.Code)
	if m.originalTerm == "" {
		m.originalTerm = r.Kind
	}
	return nil
}
