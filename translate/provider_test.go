package translate

import (
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Every provider fixture, through the whole engine: the classification
// errsvc answers is the class and wait the fixture expects, and the
// provider's text never reaches the agent message.
func TestProviderFixturesThroughEngine(t *testing.T) {
	fixtures := providerFixtures()
	if len(fixtures) < 120 {
		t.Fatalf("%d provider fixtures, want at least 120", len(fixtures))
	}
	for _, fx := range fixtures {
		if fx.Want.Class == "" {
			continue
		}
		req := mustProviderRequest(t, fx)
		resp := mustTranslate(t, fx.Name, req)
		c := resp.GetClassification()
		if c.GetClass() != fx.Want.Class {
			t.Errorf("%s: class %q, want %q", fx.Name, c.GetClass(), fx.Want.Class)
		}
		if (c.RetryAfterSecs == nil) != (fx.Want.RetryAfterSecs == nil) || c.RetryAfterSecs != nil && c.GetRetryAfterSecs() != *fx.Want.RetryAfterSecs {
			t.Errorf("%s: retry_after_secs %v, want %v", fx.Name, c.RetryAfterSecs, fx.Want.RetryAfterSecs)
		}
		if fx.Want.Kind != "" && resp.GetLabbyError().GetKind() != fx.Want.Kind {
			t.Errorf("%s: kind %q, want %q", fx.Name, resp.GetLabbyError().GetKind(), fx.Want.Kind)
		}
	}
}

func mustProviderRequest(t *testing.T, fx providerFixture) *errsvcv1.TranslateRequest {
	t.Helper()
	p := &errsvcv1.ProviderResponse{
		Provider: fx.Answer.Provider,
		Status:   int32(fx.Answer.Status),
		Headers:  fx.Answer.Headers,
		Body:     fx.Answer.Body,
	}
	received := fx.Answer.ReceivedAt
	if received == "" {
		received = fx.Now
	}
	ts, err := parseRFC3339(received)
	if err != nil {
		t.Fatalf("%s: %v", fx.Name, err)
	}
	p.ReceivedAt = timestamppb.New(ts)
	return &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: p}}
}

func parseRFC3339(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }

// An error after streamed output keeps its class, but the envelope says a
// retry repeats content: same_arguments at most discouraged, a
// partial_output note, detail.after_output; an error before output says
// none of that. A wait over an hour passes whole, with a long_wait note.
func TestProviderAfterOutputAndLongWaits(t *testing.T) {
	after, before, long := 0, 0, 0
	for _, fx := range providerFixtures() {
		if fx.Want.Class == "" {
			continue
		}
		resp := mustTranslate(t, fx.Name, mustProviderRequest(t, fx))
		notes := map[string]bool{}
		for _, n := range resp.GetNotes() {
			notes[n.GetCode()] = true
		}
		le := resp.GetLabbyError()
		flagged := le.GetDetail().GetFields()["after_output"].GetBoolValue()
		if fx.Want.AfterOutput != nil && *fx.Want.AfterOutput {
			after++
			if !flagged || !notes["partial_output"] {
				t.Errorf("%s: after output, yet detail.after_output %v, notes %v", fx.Name, flagged, notes)
			}
			if sa := le.GetRecovery().GetSameArguments(); sa == "safe" || sa == "conditional" {
				t.Errorf("%s: after output, same_arguments %q", fx.Name, sa)
			}
			if resp.GetClassification().GetClass() != fx.Want.Class {
				t.Errorf("%s: the class must stay the error's", fx.Name)
			}
		} else {
			before++
			if flagged || notes["partial_output"] {
				t.Errorf("%s: no output before the error, yet flagged", fx.Name)
			}
		}
		if w := fx.Want.RetryAfterSecs; w != nil && *w > 3600 {
			long++
			if resp.GetClassification().GetRetryAfterSecs() != *w || !(notes["long_wait"] || notes["wait_rounded"]) {
				t.Errorf("%s: wait %d, notes %v; want %d passed whole with a note", fx.Name, resp.GetClassification().GetRetryAfterSecs(), notes, *w)
			}
		}
	}
	if after < 15 || before < 100 || long < 8 {
		t.Errorf("after output %d, before %d, long waits %d: the fixtures lost coverage", after, before, long)
	}
}
