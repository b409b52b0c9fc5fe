package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/errsvc/errsvc/codec"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
)

// A Connect or gRPC-Web body is bounded as a REST one is: its bytes count
// against the receive budget as they arrive (past it, resource_exhausted
// with a QuotaFailure on receive_buffer; an answered body gives its bytes
// back), and it must arrive within ReceiveTimeout, not the HTTP server's
// longer ReadTimeout (before, a trickled Connect body was answered at 12 s
// under a 2 s receive timeout, and the bytes held had no bound in all).
func TestConnectReceiveBudget(t *testing.T) {
	r := start(t, Options{MaxRequestBytes: 4096, MaxReceiveBufferBytes: 4096})
	c, err := net.Dial("tcp", r.srv.HTTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	held := `{"labbyError":{"kind":"x","message":"` + strings.Repeat("a", 3000)
	fmt.Fprintf(c, "POST /errsvc.v1.TranslationService/Translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n%s", held)
	big := validRequest()
	big.GetLabbyError().Message = strings.Repeat("b", 2000)
	ctx := context.Background()
	for name, client := range connectClients(r) {
		if strings.HasSuffix(name, "-gzip") {
			continue // the budget counts the bytes sent: this body shrinks to a few dozen
		}
		var err error
		waitFor(t, func() bool {
			_, err = client.Translate(ctx, big)
			return connect.CodeOf(err) == connect.CodeResourceExhausted
		}, name+": a body past the budget to be refused resource_exhausted")
		if subject := connectQuotaSubject(err); subject != quotaReceiveBuffer {
			t.Errorf("%s: %v: QuotaFailure subject %q, want %s", name, err, subject, quotaReceiveBuffer)
		}
	}
	_ = c.Close() // the held body ends, its bytes return
	for name, client := range connectClients(r) {
		waitFor(t, func() bool {
			_, err := client.Translate(ctx, big)
			return err == nil
		}, name+": the budget to come back")
	}
	if _, missing := r.metricsHolding(t, `errsvc_limit_exceeded_total{limit="receive_buffer"}`); len(missing) > 0 {
		t.Error("/metrics does not count the receive_buffer refusals")
	}
}

func TestConnectReceiveTimeout(t *testing.T) {
	const timeout = time.Second
	r := start(t, Options{ReceiveTimeout: timeout, MaxConcurrentRequests: 2})
	// The first bytes of each body: a JSON object's brace, or a gRPC-Web
	// message's prefix declaring 1000 bytes (under every size limit).
	for ct, first := range map[string]string{"application/json": "{", "application/grpc-web+proto": "\x00\x00\x00\x03\xe8"} {
		c, err := net.Dial("tcp", r.srv.HTTPAddr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		began := time.Now()
		fmt.Fprintf(c, "POST /errsvc.v1.TranslationService/Translate HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nContent-Length: 100000\r\n\r\n%s", ct, first)
		stop := make(chan struct{})
		go func() { // a byte every 100 ms: never idle, never done
			for {
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
					if _, err := c.Write([]byte(" ")); err != nil {
						return
					}
				}
			}
		}()
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		took := time.Since(began)
		close(stop)
		if err != nil {
			t.Fatalf("%s: trickled body: %v after %v", ct, err, took)
		}
		body, _ := io.ReadAll(resp.Body)
		t.Logf("%s: a body trickled for ever is answered after %v: %d %s %s", ct, took.Round(time.Millisecond), resp.StatusCode, resp.Header.Get("Grpc-Status"), body)
		if took > timeout+time.Second {
			t.Errorf("%s: trickled body answered after %v, want about the receive timeout (%v)", ct, took, timeout)
		}
		switch ct {
		case "application/json":
			if resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(string(body), `"deadline_exceeded"`) || !strings.Contains(string(body), `"field":"body"`) {
				t.Errorf("%s: answered %d %s, want 504 deadline_exceeded naming the body", ct, resp.StatusCode, body)
			}
		default:
			if got := resp.Header.Get("Grpc-Status"); got != "4" {
				t.Errorf("%s: grpc-status %q, want 4 (DEADLINE_EXCEEDED)", ct, got)
			}
		}
	}
	_, missing := r.metricsHolding(t, `errsvc_limit_exceeded_total{limit="receive_timeout"} 2`, `errsvc_in_flight_requests 0`)
	for _, want := range missing {
		t.Errorf("/metrics lacks %s", want)
	}
}

// connectQuotaSubject is the subject of a Connect error's QuotaFailure.
func connectQuotaSubject(err error) string {
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return ""
	}
	for _, d := range ce.Details() {
		if m, err := d.Value(); err == nil {
			if q, ok := m.(*errdetails.QuotaFailure); ok && len(q.GetViolations()) > 0 {
				return q.GetViolations()[0].GetSubject()
			}
		}
	}
	return ""
}

// A Connect JSON body refused by a JSON limit (too many values, nested too
// deep) counts under that limit in errsvc_limit_exceeded_total, as the
// same body does on REST and gRPC (before, Connect's codec marked the
// message, the interceptor answered it, and no limit was counted).
func TestConnectJSONLimits(t *testing.T) {
	// The classification reads codec.CheckJSON's descriptions: hold it to
	// them.
	deep := `{"labby_error":{"kind":"x","message":"m","detail":` + strings.Repeat(`{"a":`, codec.MaxJSONDepth+1) + "1" + strings.Repeat("}", codec.MaxJSONDepth+1) + `}}`
	wide := wideDetails(codec.MaxJSONValues + 10)
	for limit, body := range map[string]string{limitJSONDepth: deep, limitJSONValues: wide} {
		var fe *codec.FieldError
		if !errors.As(codec.CheckJSON([]byte(body), codec.MaxJSONDepth), &fe) {
			t.Fatalf("%s: codec.CheckJSON let the body through", limit)
		}
		if got := jsonLimitOf(invalidArgument(fe.Field, fe.Description)); got != limit {
			t.Errorf("%q is classified %q, want %s", fe.Description, got, limit)
		}
	}
	if got := jsonLimitOf(invalidArgument("labby_error.kind", "not valid text")); got != "" {
		t.Errorf("a fault that is no limit's is classified %q", got)
	}

	r := start(t, Options{})
	for _, path := range []string{"/errsvc.v1.TranslationService/Translate", "/errsvc.v1.TranslationService/TranslateBatch"} {
		for limit, body := range map[string]string{limitJSONDepth: deep, limitJSONValues: wide} {
			if strings.HasSuffix(path, "Batch") {
				if limit == limitJSONDepth {
					continue // one item's fault, answered per item as on REST
				}
				body = `{"requests":[` + body + `]}`
			}
			req, _ := http.NewRequest(http.MethodPost, r.base+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			answer, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(answer), `"invalid_argument"`) {
				t.Errorf("%s %s: %d %.200s; want 400 invalid_argument", path, limit, resp.StatusCode, answer)
			}
		}
	}
	_, missing := r.metricsHolding(t, `errsvc_limit_exceeded_total{limit="json_values"} 2`, `errsvc_limit_exceeded_total{limit="json_depth"} 1`)
	for _, want := range missing {
		t.Errorf("/metrics lacks %s", want)
	}
}
