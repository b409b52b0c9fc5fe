package server

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/version"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/grpc/metadata"
)

// TestMetricsLint runs promtool's `check metrics` linter (promlint, the
// code promtool calls) over /metrics after traffic on both transports.
// deploy/promtool_test.go runs promtool itself.
func TestMetricsLint(t *testing.T) {
	r := start(t, Options{})
	_, _ = r.client.Translate(context.Background(), validRequest())
	r.post(t, "/v1/translate", `{"agent_error":{"code":"TIMEOUT"}}`)
	_, body := r.get(t, "/metrics")
	problems, err := promlint.New(strings.NewReader(string(body))).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
}

// TestAlertingSeriesBeforeTraffic: what the documented alerts and
// dashboards read (docs/OPERATIONS.md) exists at zero before the first
// call, for every RPC on each transport that serves it, and the build is
// named.
func TestAlertingSeriesBeforeTraffic(t *testing.T) {
	r := start(t, Options{})
	_, body := r.get(t, "/metrics")
	metrics := string(body)
	b := version.Get()
	want := []string{
		fmt.Sprintf(`errsvc_build_info{go_version=%q,revision=%q,version=%q} 1`, b.GoVersion, b.Revision, b.Version),
		`errsvc_limit_exceeded_total{limit="concurrent_requests"} 0`,
	}
	for transport, rpcs := range translationRPCs() {
		for _, rpc := range rpcs {
			want = append(want,
				fmt.Sprintf(`errsvc_panics_total{rpc=%q,transport=%q} 0`, rpc, transport),
				fmt.Sprintf(`errsvc_requests_total{code="Internal",rpc=%q,transport=%q} 0`, rpc, transport),
				fmt.Sprintf(`errsvc_requests_total{code="OK",rpc=%q,transport=%q} 0`, rpc, transport),
				fmt.Sprintf(`errsvc_errors_total{code="Unavailable",rpc=%q,scope="call",transport=%q} 0`, rpc, transport),
				fmt.Sprintf(`errsvc_request_duration_seconds_count{rpc=%q,transport=%q} 0`, rpc, transport),
			)
		}
	}
	if n := len(translationRPCs()[transportGRPC]); n != 4 {
		t.Errorf("%d gRPC methods of TranslationService, want 4", n)
	}
	for _, w := range want {
		if !strings.Contains(metrics, w) {
			t.Errorf("/metrics before any call lacks %s", w)
		}
	}
}

// TestLabelSetsAgree: the same calls over gRPC and REST make the same
// series, label for label, in every family that has a transport label:
// REST names the real method everywhere, never "unknown".
func TestLabelSetsAgree(t *testing.T) {
	r := start(t, Options{})
	ctx := context.Background()
	batch := []*errsvcv1.TranslateRequest{validRequest(), {}, {Source: &errsvcv1.TranslateRequest_AgentError{AgentError: &errsvcv1.AgentError{Code: "TIMEOUT"}}}}
	_, _ = r.client.Translate(ctx, validRequest())
	_, _ = r.client.Translate(ctx, &errsvcv1.TranslateRequest{})
	_, _ = r.client.TranslateBatch(ctx, &errsvcv1.TranslateBatchRequest{Requests: batch})
	_, _ = r.client.ListVocabularies(ctx, &errsvcv1.ListVocabulariesRequest{})
	r.post(t, "/v1/translate", `{"labby_error":{"kind":"rate_limited","message":"slow down"}}`)
	r.post(t, "/v1/translate", `{}`)
	r.post(t, "/v1/translate:batch", `{"requests":[{"labby_error":{"kind":"rate_limited","message":"slow down"}},{},{"agent_error":{"code":"TIMEOUT"}}]}`)
	r.get(t, "/v1/vocabularies")

	families, err := r.srv.opts.Metrics.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	restRPCs := translationRPCs()[transportHTTP]
	checked := 0
	for _, f := range families {
		sets := map[string][]string{}
		for _, m := range f.GetMetric() {
			transport, key := labelKey(m, restRPCs)
			if transport == "" {
				continue
			}
			sets[transport] = append(sets[transport], key)
		}
		if len(sets) == 0 {
			continue
		}
		checked++
		g, h := sets[transportGRPC], sets[transportHTTP]
		sort.Strings(g)
		sort.Strings(h)
		if !slices.Equal(g, h) {
			t.Errorf("%s: gRPC and REST series differ\n grpc: %v\n http: %v", f.GetName(), g, h)
		}
		for _, k := range h {
			if strings.Contains(k, "unknown") {
				t.Errorf("%s: REST series %s", f.GetName(), k)
			}
		}
	}
	if checked < 5 {
		t.Errorf("only %d families with a transport label", checked)
	}
}

// labelKey is a series' labels but transport, for the RPCs REST serves
// (gRPC also serves the stream, health and reflection), with its count
// for counters so that the same traffic must give the same numbers too.
func labelKey(m *dto.Metric, rpcs []string) (transport, key string) {
	var parts []string
	rpc := ""
	for _, l := range m.GetLabel() {
		switch l.GetName() {
		case "transport":
			transport = l.GetValue()
		case "rpc":
			rpc = l.GetValue()
			parts = append(parts, "rpc="+rpc)
		default:
			parts = append(parts, l.GetName()+"="+l.GetValue())
		}
	}
	// A family without an rpc label (the answer caches) is compared as a
	// whole.
	if transport == "" || rpc != "" && !slices.Contains(rpcs, rpc) && !(transport == transportHTTP) {
		return "", ""
	}
	switch {
	case m.GetCounter() != nil:
		parts = append(parts, fmt.Sprint("=", m.GetCounter().GetValue()))
	case m.GetHistogram() != nil:
		parts = append(parts, fmt.Sprint("count=", m.GetHistogram().GetSampleCount()))
	}
	return transport, strings.Join(parts, ",")
}

// TestLatencyBucketsResolve: the classic buckets, as a scrape reads them,
// split each histogram's range finely enough to read p50 and p90:
// neighbours at most 2.5x apart from 20 µs to 100 ms for a call, and from
// 0.5 µs to 100 µs for the translation core, which takes 0.5–3 µs for a
// usual request (in call-sized buckets it would all sit in the first).
func TestLatencyBucketsResolve(t *testing.T) {
	ranges := map[string][2]float64{
		"errsvc_request_duration_seconds":     {20e-6, 100e-3},
		"errsvc_translation_duration_seconds": {0.5e-6, 100e-6},
	}
	r := start(t, Options{})
	for range 20 {
		_, _ = r.client.Translate(context.Background(), validRequest())
	}
	families, _ := r.srv.opts.Metrics.registry.Gather()
	seen := map[string]bool{}
	for _, f := range families {
		span, ok := ranges[f.GetName()]
		if !ok {
			continue
		}
		for _, m := range f.GetMetric() {
			h := m.GetHistogram()
			if h.GetSampleCount() == 0 {
				continue
			}
			seen[f.GetName()] = true
			var bounds []float64
			for _, b := range h.GetBucket() {
				bounds = append(bounds, b.GetUpperBound())
			}
			if !slices.Contains(bounds, span[0]) || !slices.Contains(bounds, span[1]) {
				t.Errorf("%s: buckets %v do not bound %g and %g s", f.GetName(), bounds, span[0], span[1])
			}
			for i := 1; i < len(bounds); i++ {
				if lo, hi := bounds[i-1], bounds[i]; lo >= span[0] && hi <= span[1] && hi/lo > 2.5+1e-9 {
					t.Errorf("%s: buckets %g and %g are %.1fx apart", f.GetName(), lo, hi, hi/lo)
				}
			}
			// The observations spread over more than one bucket, or at
			// least not all land in the first.
			if first := h.GetBucket()[0].GetCumulativeCount(); first == h.GetSampleCount() {
				t.Errorf("%s: all %d observations in the first bucket (≤ %g s)", f.GetName(), first, h.GetBucket()[0].GetUpperBound())
			}
		}
	}
	if len(seen) != len(ranges) {
		t.Errorf("of %d histograms, only %v observed 20 translations", len(ranges), seen)
	}
}

// TestExemplars: a scrape that negotiates OpenMetrics gets the sampled
// caller's trace id as exemplar of its call's counter and latency bucket;
// the plain text format has none.
func TestExemplars(t *testing.T) {
	r := start(t, Options{})
	ct := newCallerTrace(7)
	ctx := metadata.AppendToOutgoingContext(context.Background(), "traceparent", ct.header())
	if _, err := r.client.Translate(ctx, validRequest()); err != nil {
		t.Fatal(err)
	}
	r.postTraced(t, "/v1/translate", `{"agent_error":{"code":"TIMEOUT"}}`, newCallerTrace(8).header())

	req, _ := http.NewRequest(http.MethodGet, r.base+"/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0; charset=utf-8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	_, _ = fmt.Fprint(&sb, "")
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	om := sb.String()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/openmetrics-text") {
		t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
	}
	for _, tid := range []string{ct.traceID.String(), newCallerTrace(8).traceID.String()} {
		ex := fmt.Sprintf(`# {trace_id="%s"}`, tid)
		for _, family := range []string{"errsvc_requests_total{", "errsvc_request_duration_seconds_bucket{", "errsvc_translations_total{"} {
			found := false
			for _, line := range strings.Split(om, "\n") {
				found = found || strings.HasPrefix(line, family) && strings.Contains(line, ex)
			}
			if !found {
				t.Errorf("no %s line with exemplar %s", family, ex)
			}
		}
	}
	_, plain := r.get(t, "/metrics")
	if strings.Contains(string(plain), "trace_id") {
		t.Error("exemplars in the plain text format")
	}
}
