// Package adapters plugs errsvc's decision helpers into the places a Go
// program already decides whether to retry: an http.RoundTripper for calls
// to model providers (RoundTripper) and grpc-go client interceptors
// (UnaryClientInterceptor, StreamClientInterceptor). Each translates the
// failed answer in process (errsvcclient.NewInProcess, no network) unless
// given another Translator, and does what errsvcclient.Decide says: retry
// after the stated wait, or not at all (a billing 429, a context overflow, a
// 401: the Error Class Contract's non-transient classes are never
// retried). When the Translator fails (a remote errsvc cannot be reached)
// the adapter logs it and falls back to what the call would have done
// without it: the answer or error is passed on unchanged.
//
// See docs/INTEGRATIONS.md ("Retry adapters").
package adapters

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	errsvcclient "github.com/errsvc/errsvc/clients/go"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Defaults of Policy.
const (
	DefaultMaxRetries = 2
	// DefaultBackoff is the first wait when the answer is retryable but
	// states no wait; it doubles per retry (with jitter), up to MaxWait.
	DefaultBackoff = 500 * time.Millisecond
)

// Policy is what every adapter shares: who translates, how often and how
// long it may retry, and how it waits and logs.
type Policy struct {
	// Translator translates the failed answer; nil means in process
	// (errsvcclient.NewInProcess()).
	Translator errsvcclient.Translator
	// MaxRetries is how many more calls are made at most; 0 means
	// DefaultMaxRetries, a negative value none.
	MaxRetries int
	// MaxWait caps a stated wait: a longer one fails at once (fail fast);
	// 0 means errsvcclient.DefaultMaxWait.
	MaxWait time.Duration
	// Backoff is the first wait when none is stated; 0 means DefaultBackoff.
	Backoff time.Duration
	// Sleep waits d or until ctx ends; nil means a timer. Tests pass a
	// scaled one.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logger receives the fallback line (errsvc unreachable) and one line
	// per decision at debug level; nil means slog.Default().
	Logger *slog.Logger
	// OnDecision, when set, is told every decision the adapter acts on.
	OnDecision func(Event)
}

// Event is one decision an adapter acted on.
type Event struct {
	// Attempt is the 1-based number of the call that failed.
	Attempt  int
	Decision errsvcclient.Decision
	Response *errsvcv1.TranslateResponse
	// Retry says the adapter makes the call again, after Wait.
	Retry bool
	Wait  time.Duration
	// Fallback says errsvc could not be asked (Err) and the framework's
	// own behaviour applies.
	Fallback bool
	Err      error
}

func (p *Policy) translator() errsvcclient.Translator {
	if p.Translator == nil {
		p.Translator = errsvcclient.NewInProcess()
	}
	return p.Translator
}

func (p *Policy) maxRetries() int {
	switch {
	case p.MaxRetries == 0:
		return DefaultMaxRetries
	case p.MaxRetries < 0:
		return 0
	}
	return p.MaxRetries
}

func (p *Policy) maxWait() time.Duration {
	if p.MaxWait == 0 {
		return errsvcclient.DefaultMaxWait
	}
	return p.MaxWait
}

func (p *Policy) logger() *slog.Logger {
	if p.Logger == nil {
		return slog.Default()
	}
	return p.Logger
}

func (p *Policy) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// decide translates req and returns the event for the failed attempt
// (1-based): whether to retry, and after how long.
func (p *Policy) decide(ctx context.Context, req *errsvcv1.TranslateRequest, attempt int, idempotent bool, what string) Event {
	resp, err := p.translator().Translate(ctx, req)
	if err != nil {
		ev := Event{Attempt: attempt, Fallback: true, Err: err}
		p.logger().Warn("errsvc adapter: errsvc could not be reached; falling back to the framework's own retry behaviour", "call", what, "error", err)
		p.tell(ev)
		return ev
	}
	d := errsvcclient.Decide(resp, p.maxWait(), idempotent)
	ev := Event{Attempt: attempt, Decision: d, Response: resp}
	if d.Retryable && d.RetryAfterOK && attempt <= p.maxRetries() {
		ev.Retry = true
		ev.Wait = d.RetryAfter
		if ev.Wait == 0 {
			ev.Wait = p.backoff(attempt)
		}
	}
	p.logger().Debug("errsvc adapter: decision", "call", what, "attempt", attempt,
		"class", resp.GetClassification().GetClass(), "action", resp.GetLabbyError().GetRecovery().GetAction(),
		"retry", ev.Retry, "wait", ev.Wait, "reauthenticate", d.Reauthenticate)
	p.tell(ev)
	return ev
}

func (p *Policy) tell(ev Event) {
	if p.OnDecision != nil {
		p.OnDecision(ev)
	}
}

// backoff is the wait before retry n (1-based) when the answer states none:
// Backoff doubled per retry, with up to 25% jitter, capped at MaxWait.
func (p *Policy) backoff(n int) time.Duration {
	b := p.Backoff
	if b <= 0 {
		b = DefaultBackoff
	}
	d := b << (n - 1)
	if mw := p.maxWait(); mw > 0 && d > mw {
		d = mw
	}
	return d - time.Duration(rand.Float64()*0.25*float64(d))
}
