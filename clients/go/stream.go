package errsvcclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Bounds of TranslateAll.
const (
	// streamWindow is how many requests TranslateAll keeps unanswered at once.
	streamWindow = 64
	// streamItemAttempts bounds how often one request is sent after the
	// server refused it over the stream's rate.
	streamItemAttempts = 10
	// maxStreamPace caps the interval between two sends that refusals set.
	maxStreamPace = time.Second
)

// TranslateAll translates every request over one TranslateStream, sending
// while it receives, and returns the answers in the order of reqs. A
// malformed request's answer carries its own Error, as in a batch.
//
// errsvc limits the messages per second of a stream: a message over the
// rate is answered with RESOURCE_EXHAUSTED and a google.rpc.RetryInfo. When
// that happens TranslateAll sends the refused request again and from then
// on paces its sends by the delay the server asked for, so a large input
// ends up flowing at the server's rate; a request refused
// streamItemAttempts times keeps the refusal as its answer.
func (c *Client) TranslateAll(ctx context.Context, reqs []*errsvcv1.TranslateRequest) ([]*errsvcv1.TranslateResponse, error) {
	out := make([]*errsvcv1.TranslateResponse, len(reqs))
	if len(reqs) == 0 {
		return out, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s, err := c.Stream(ctx)
	if err != nil {
		return nil, err
	}
	p := &pacer{
		queue:    make([]int, len(reqs)),
		attempts: make([]int, len(reqs)),
		wake:     make(chan struct{}, 1),
		total:    len(reqs),
	}
	for i := range p.queue {
		p.queue[i] = i
	}

	sendErr := make(chan error, 1)
	go func() { sendErr <- p.send(ctx, s, reqs) }()

	for {
		p.mu.Lock()
		finished := p.done == p.total
		p.mu.Unlock()
		if finished {
			break
		}
		resp, err := s.Recv()
		if err != nil {
			cancel()
			<-sendErr
			if errors.Is(err, io.EOF) {
				p.mu.Lock()
				done := p.done
				p.mu.Unlock()
				return nil, fmt.Errorf("errsvcclient: stream ended after %d of %d answers", done, p.total)
			}
			return nil, err
		}
		if err := p.received(resp, out); err != nil {
			cancel()
			<-sendErr
			return nil, err
		}
	}
	if err := <-sendErr; err != nil {
		return nil, err
	}
	// Every answer is in; the server ends the stream after CloseSend.
	if _, err := s.Recv(); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return out, nil
}

// pacer is the shared state of TranslateAll's sender and receiver.
type pacer struct {
	mu       sync.Mutex
	queue    []int // indices still to send; a refused one goes first
	inFlight []int // indices sent and not yet answered, in order
	attempts []int
	done     int
	total    int
	interval time.Duration // least time between two sends
	next     time.Time     // no send before
	wake     chan struct{} // the receiver changed something the sender waits on
}

func (p *pacer) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// send sends queued requests, at most streamWindow unanswered and no faster
// than the pace, until every request is answered; then it closes the
// sending side.
func (p *pacer) send(ctx context.Context, s *Stream, reqs []*errsvcv1.TranslateRequest) error {
	for {
		p.mu.Lock()
		if p.done == p.total {
			p.mu.Unlock()
			return s.CloseSend()
		}
		if len(p.queue) == 0 || len(p.inFlight) >= streamWindow {
			p.mu.Unlock()
			select {
			case <-p.wake:
				continue
			case <-ctx.Done():
				return nil // the receiver reports why
			}
		}
		if wait := time.Until(p.next); wait > 0 {
			p.mu.Unlock()
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil
			}
			continue
		}
		i := p.queue[0]
		p.queue = p.queue[1:]
		p.inFlight = append(p.inFlight, i)
		p.attempts[i]++
		p.next = time.Now().Add(p.interval)
		p.mu.Unlock()
		// Sent outside the lock; the receiver only reads inFlight's head,
		// which was appended before the message left.
		if err := s.Send(reqs[i]); err != nil {
			return nil // io.EOF: the stream broke; Recv reports why
		}
	}
}

// received files one answer under the request it answers, or queues the
// request again when the stream's rate refused it.
func (p *pacer) received(resp *errsvcv1.TranslateResponse, out []*errsvcv1.TranslateResponse) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	defer p.signal()
	if len(p.inFlight) == 0 {
		return errors.New("errsvcclient: stream answered more messages than were sent")
	}
	i := p.inFlight[0]
	p.inFlight = p.inFlight[1:]
	if delay, ok := rateRefusal(resp); ok && p.attempts[i] < streamItemAttempts {
		p.queue = append([]int{i}, p.queue...)
		p.interval = min(max(p.interval, delay), maxStreamPace)
		if t := time.Now().Add(min(delay, maxStreamPace)); t.After(p.next) {
			p.next = t
		}
		return nil
	}
	out[i] = resp
	p.done++
	return nil
}

// rateRefusal reports whether an item was refused for the stream's rate (a
// RESOURCE_EXHAUSTED with a RetryInfo), and the wait it asks for.
func rateRefusal(resp *errsvcv1.TranslateResponse) (time.Duration, bool) {
	e := resp.GetError()
	if e == nil || codes.Code(e.GetCode()) != codes.ResourceExhausted {
		return 0, false
	}
	for _, d := range status.FromProto(e).Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			return max(ri.GetRetryDelay().AsDuration(), 0), true
		}
	}
	return 0, false
}
