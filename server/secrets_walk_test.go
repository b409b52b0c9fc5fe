package server

import (
	"context"
	"net/http"
	"os"
	"regexp"
	"testing"
	"time"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/secrets"
	"github.com/errsvc/errsvc/translate"
)

// The reflective secrets test over the wire: every corpus secret planted in
// every request position (translate's TestSecretsNeverReachAResponse has
// the in-process run), sent over REST and over gRPC to a real server; every
// string of every answer, ErrorInfo metadata included, read back by
// reflection, and the server's own log lines searched too. One round of
// the plan covers every position and every corpus entry on each transport.
func TestSecretsNeverReachAnAnswerOverTheWire(t *testing.T) {
	corpus, err := secrets.LoadSample(5)
	if err != nil {
		t.Fatal(err)
	}
	positions := secrets.Positions()
	plan := secrets.Plan(len(positions), len(corpus), 1)
	if os.Getenv("ERRSVC_SECRETS_EXHAUSTIVE") == "1" {
		plan = plan[:0] // every position with every entry, run by hand
		for p := range positions {
			for e := range corpus {
				plan = append(plan, [2]int{p, e})
			}
		}
	}
	r := start(t, Options{})
	connectClient := connectClients(r)["connect"]
	check := func(transport string, e secrets.Entry, p secrets.Position, m proto.Message) {
		t.Helper()
		if path, w, ok := secrets.LeakInAnswer(m, e.Secret, func() proto.Message {
			base, _ := translate.Translate(p.Build(e.Without()))
			return base
		}); ok {
			t.Errorf("%s: %s: %q leaked into %s", transport, secrets.Describe(e, p), w, path)
		}
	}
	for _, pe := range plan {
		p, e := positions[pe[0]], corpus[pe[1]]
		req := p.Build(e.Text)

		// REST.
		body, err := protojson.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		code, out := r.post(t, "/v1/translate", string(body))
		if w, ok := secrets.Leaks(string(out), e.Secret); ok {
			t.Errorf("REST: %s: %q in the raw answer", secrets.Describe(e, p), w)
		}
		if code == http.StatusOK {
			resp := &errsvcv1.TranslateResponse{}
			decodeJSON(t, out, resp)
			check("REST", e, p, resp)
		} else {
			st := &spb.Status{}
			decodeJSON(t, out, st)
			check("REST error", e, p, st)
		}

		// Connect (the Connect protocol over JSON; gRPC-Web shares its
		// handler).
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		cresp, cerr := connectClient.Translate(cctx, req)
		ccancel()
		if cerr != nil {
			if w, ok := secrets.Leaks(cerr.Error(), e.Secret); ok {
				t.Errorf("Connect error: %s: %q", secrets.Describe(e, p), w)
			}
		} else {
			check("Connect", e, p, cresp)
		}

		// gRPC.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		resp, err := r.client.Translate(ctx, req)
		cancel()
		if err != nil {
			check("gRPC error", e, p, status.Convert(err).Proto())
			continue
		}
		check("gRPC", e, p, resp)
	}
	// The server's own output beside the answers: its log lines (JSON at
	// DEBUG, every call) and what /metrics exposes.
	// The fields the server writes from its own clock are left out: a
	// timestamp's nanoseconds hold 8-digit runs, which a token's digits
	// (xoxp-<digits>-...) match by chance once in a few hundred runs.
	logs := ownClockFields.ReplaceAllString(r.logs.String(), "$1")
	_, metrics := r.get(t, "/metrics")
	for _, e := range corpus {
		if w, ok := secrets.Leaks(logs, e.Secret); ok {
			t.Errorf("logs: %s: %q", e.Name, w)
		}
		if w, ok := secrets.Leaks(string(metrics), e.Secret); ok {
			t.Errorf("/metrics: %s: %q", e.Name, w)
		}
	}
	t.Logf("%d planted requests per transport over REST, Connect and gRPC (%d positions, %d corpus entries)", len(plan), len(positions), len(corpus))
}

// ownClockFields are the log fields made from the server's clock.
var ownClockFields = regexp.MustCompile(`("(?:time|duration_ms)":)(?:"[^"]*"|[0-9.e+-]+)`)
