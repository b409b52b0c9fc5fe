package adapters

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// maxErrorBody bounds the error body read for translation.
const maxErrorBody = 1 << 20

// RoundTripper retries calls to a model provider as errsvc decides: each
// answer of status 400 or more is translated (a ProviderResponse) and the
// call made again only when the answer is retryable, after the wait it
// states. A streamed 200 is passed on as it is: an error after output began
// is the caller's (repeating the call repeats the output; the decision for
// it is DecideStreamError).
//
//	client := &http.Client{Transport: &adapters.RoundTripper{Provider: "openai"}}
type RoundTripper struct {
	Policy
	// Base makes the calls; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Provider is the provider family errsvc reads the answers as (openai,
	// anthropic, gemini, bedrock); empty means guessed from the path and
	// the body (/v1/messages or an Anthropic error body: anthropic).
	Provider string
	// Reauthenticate, when set, is called once when errsvc says the
	// credential must be re-established; it returns the request to make
	// instead (with the new credential). Unset, the 401 is returned.
	Reauthenticate func(*http.Request) (*http.Request, error)
}

var _ http.RoundTripper = (*RoundTripper)(nil)

func (rt *RoundTripper) base() http.RoundTripper {
	if rt.Base == nil {
		return http.DefaultTransport
	}
	return rt.Base
}

// RoundTrip implements http.RoundTripper.
func (rt *RoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := replayableBody(req)
	if err != nil {
		return nil, err
	}
	reauthed := false
	for attempt := 1; ; attempt++ {
		resp, err := rt.base().RoundTrip(req)
		if err != nil || resp.StatusCode < 400 {
			return resp, err
		}
		orig := resp.Body
		raw, err := io.ReadAll(io.LimitReader(orig, maxErrorBody))
		if err != nil {
			orig.Close()
			return nil, err
		}
		// The caller reads the answer whole: what was read, then the rest
		// of a body longer than the translation reads.
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(raw), orig), orig}
		ev := rt.decide(req.Context(), rt.request(req, resp, raw), attempt, idempotentMethod(req.Method), req.Method+" "+req.URL.Path)
		next := req
		switch {
		case ev.Fallback:
			return resp, nil
		case ev.Decision.Reauthenticate && rt.Reauthenticate != nil && !reauthed:
			reauthed = true
			if next, err = rt.Reauthenticate(req); err != nil {
				return resp, nil
			}
		case !ev.Retry:
			return resp, nil
		default:
			if err := rt.sleep(req.Context(), ev.Wait); err != nil {
				return resp, nil
			}
		}
		orig.Close()
		if req, err = rewind(next, body); err != nil {
			return nil, err
		}
	}
}

// request is the TranslateRequest of one provider answer.
func (rt *RoundTripper) request(req *http.Request, resp *http.Response, body []byte) *errsvcv1.TranslateRequest {
	headers := make(map[string]string, len(resp.Header))
	for k, v := range resp.Header {
		headers[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	return &errsvcv1.TranslateRequest{
		Source: &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: &errsvcv1.ProviderResponse{
			Provider:   guessProvider(rt.Provider, req.URL.Path, body),
			Status:     int32(resp.StatusCode),
			Headers:    headers,
			Body:       string(body),
			ReceivedAt: timestamppb.New(time.Now()),
		}},
		Context: &errsvcv1.TranslateContext{Upstream: req.URL.Host},
	}
}

// guessProvider is the configured family, else anthropic for its paths and
// error bodies, else openai (the shape most gateways answer in).
func guessProvider(configured, path string, body []byte) string {
	switch {
	case configured != "":
		return configured
	case strings.HasSuffix(path, "/messages"), bytes.Contains(body, []byte(`"type":"error"`)), bytes.Contains(body, []byte(`"type": "error"`)):
		return "anthropic"
	}
	return "openai"
}

// idempotentMethod: the methods RFC 9110 calls idempotent.
func idempotentMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// replayableBody returns a way to make the body again: nil (no retry)
// when the request has a body that cannot be replayed.
func replayableBody(req *http.Request) (func() (io.ReadCloser, error), error) {
	switch {
	case req.Body == nil || req.Body == http.NoBody:
		return func() (io.ReadCloser, error) { return http.NoBody, nil }, nil
	case req.GetBody != nil:
		return req.GetBody, nil
	}
	raw, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("errsvc adapter: reading the request body: %w", err)
	}
	req.Body = io.NopCloser(bytes.NewReader(raw))
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil }, nil
}

func rewind(req *http.Request, body func() (io.ReadCloser, error)) (*http.Request, error) {
	r := req.Clone(req.Context())
	b, err := body()
	if err != nil {
		return nil, err
	}
	r.Body = b
	return r, nil
}

// DecideStreamError is the decision for an error event a provider sent
// after a 200 had begun streaming: the caller holds the partial output, so
// errsvc's answer says whether a retry helps and what it repeats
// (same_arguments discouraged once output began). provider as in
// RoundTripper.Provider; events is the stream as received up to and
// including the error event.
func DecideStreamError(ctx context.Context, p *Policy, provider string, events []byte) (Event, error) {
	req := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: &errsvcv1.ProviderResponse{
		Provider: guessProvider(provider, "", events),
		Status:   http.StatusOK,
		Headers:  map[string]string{"content-type": "text/event-stream"},
		Body:     string(events),
	}}}
	ev := p.decide(ctx, req, 1, false, "stream")
	if ev.Fallback {
		return ev, ev.Err
	}
	// Never repeated behind the caller's back: the output it already has
	// would be generated again.
	ev.Retry = ev.Retry && ev.Decision.SameArgumentsSafe
	return ev, nil
}
