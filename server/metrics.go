package server

import (
	"net/http"
	"reflect"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/version"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Transport label values.
const (
	transportGRPC = "grpc"
	transportHTTP = "http"
)

// Limit label values of errsvc_limit_exceeded_total, also logged as "limit".
const (
	limitRequestBytes       = "request_bytes"
	limitBatchItems         = "batch_items"
	limitConcurrentRequests = "concurrent_requests"
	limitConcurrentStreams  = "concurrent_streams"
	limitStreamRate         = "stream_rate"
	limitHealthWatches      = "health_watches"
	limitReceiveBuffer      = "receive_buffer"
	limitReceiveTimeout     = "receive_timeout"
	limitJSONDepth          = "json_depth"
	limitJSONValues         = "json_values"
	limitWriteTimeout       = "write_timeout"
)

// allLimits are the limit label values, exposed at 0 from the start.
var allLimits = []string{limitRequestBytes, limitBatchItems, limitConcurrentRequests, limitConcurrentStreams,
	limitStreamRate, limitHealthWatches, limitReceiveBuffer, limitReceiveTimeout, limitJSONDepth, limitJSONValues, limitWriteTimeout}

// Scope label values of errsvc_errors_total.
const (
	scopeCall = "call" // the whole call failed
	scopeItem = "item" // one batch item or stream message carries the error
)

// Metrics is a private Prometheus registry rather than the global one, so
// several servers in one process (tests, embedders) never collide on
// registration.
//
// Every call is counted exactly once: REST calls reach the service in
// process (see gateway.go), never through the gRPC port, so the gRPC
// interceptors see only gRPC calls and the gateway middleware only REST
// calls. The transport label tells them apart; rpc is the full gRPC method
// name on both, so they can be summed.
//
// Every label value comes from a fixed set (transport, method names
// registered on the server, gRPC code names, the TranslateRequest oneof
// members, the four classes): nothing a caller or an upstream wrote ever
// becomes a label.
type Metrics struct {
	// policy serves the operator policy's series (policy.go).
	policy       *policyCollector
	registry     *prometheus.Registry
	requests     *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	translations *prometheus.CounterVec
	translateDur *prometheus.HistogramVec
	errors       *prometheus.CounterVec
	limits       *prometheus.CounterVec
	panics       *prometheus.CounterVec
	inFlight     prometheus.Gauge
	streams      prometheus.Gauge
	watches      prometheus.Gauge
	receiving    prometheus.Gauge
	buildInfo    *prometheus.GaugeVec

	// The answer caches (answer_cache.go), by transport.
	answerLookups   *prometheus.CounterVec
	answerStores    *prometheus.CounterVec
	answerEvictions *prometheus.CounterVec
	answerRefusals  *prometheus.CounterVec
	answerEntries   *prometheus.GaugeVec
	answerBytes     *prometheus.GaugeVec

	// The children of the per-call observations, kept once resolved
	// (metrics_series.go); series is read-only after NewMetrics.
	series        map[rpcKey]*rpcSeries
	translateDurs []keptObserver
}

// Label values of the answer cache series.
const (
	cacheHit        = "hit"
	cacheMiss       = "miss"
	refusedClock    = "clock"
	refusedTooLarge = "too_large"
	refusedFirst    = "first_seen"
)

// answerCacheTransports are the transports with an answer cache.
var answerCacheTransports = []string{transportGRPC, transportHTTP, transportConnect}

// latencyBuckets resolve the range errsvc's calls live in: a call takes
// some tens to hundreds of microseconds end to end, so the classic buckets
// go 1-2-5 from 10 µs to 100 ms, then coarsely to 5 s for what waits on a
// limit or a slow client. Scrapers that negotiate the protobuf format also
// get a native histogram (factor 1.1, about 10 % resolution everywhere).
var latencyBuckets = []float64{
	10e-6, 20e-6, 50e-6, 100e-6, 200e-6, 500e-6,
	1e-3, 2e-3, 5e-3, 10e-3, 20e-3, 50e-3, 100e-3,
	250e-3, 1, 5,
}

// coreBuckets resolve the translation core alone, which takes 0.5–3 µs
// for a usual request and tens of microseconds for a large one: under
// latencyBuckets every core observation would sit in the first bucket, and
// a scraper reading the text format would learn nothing from them. They go
// 1-2-5 from 0.25 µs to 100 µs, then coarsely to 100 ms (a 1 MiB text
// through the sanitiser takes a few milliseconds).
var coreBuckets = []float64{
	0.25e-6, 0.5e-6, 1e-6, 2e-6, 5e-6, 10e-6, 20e-6, 50e-6, 100e-6,
	1e-3, 10e-3, 100e-3,
}

// histogramOver is a histogram with buckets and errsvc's native histogram.
func histogramOver(name, help string, buckets []float64) prometheus.HistogramOpts {
	return prometheus.HistogramOpts{
		Name: name, Help: help, Buckets: buckets,
		NativeHistogramBucketFactor:     1.1,
		NativeHistogramMaxBucketNumber:  160,
		NativeHistogramMinResetDuration: time.Hour,
	}
}

// NewMetrics returns an empty registry with errsvc's collectors, the Go
// runtime collector and the process collector (RSS, CPU, open files).
func NewMetrics() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "errsvc_requests_total",
			Help: "Calls handled, by transport, full RPC method and gRPC status code.",
		}, []string{"transport", "rpc", "code"}),
		latency: prometheus.NewHistogramVec(histogramOver(
			"errsvc_request_duration_seconds", "Call latency, by transport and full RPC method.",
			latencyBuckets,
		), []string{"transport", "rpc"}),
		translations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "errsvc_translations_total",
			Help: "Translation requests (a unary call, each batch item, each stream message), by transport, RPC, " +
				"source vocabulary (none when absent), resulting class (transient, permanent, auth_required, " +
				"context_overflow, other for an unrecognised class, none when absent) and gRPC code of the item.",
		}, []string{"transport", "rpc", "source", "class", "code"}),
		translateDur: prometheus.NewHistogramVec(histogramOver(
			"errsvc_translation_duration_seconds", "Time spent in the translation core for one request, by source vocabulary.",
			coreBuckets,
		), []string{"source"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "errsvc_errors_total",
			Help: "Errors answered, by transport, RPC, gRPC code and scope (call: the whole call failed; " +
				"item: one batch item or stream message carries its own error).",
		}, []string{"transport", "rpc", "code", "scope"}),
		limits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "errsvc_limit_exceeded_total",
			Help: "Requests refused by a limit: request_bytes, batch_items, concurrent_requests, concurrent_streams, stream_rate, " +
				"health_watches, receive_buffer, receive_timeout, json_depth.",
		}, []string{"limit"}),
		panics: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "errsvc_panics_total",
			Help: "Panics recovered and answered as INTERNAL, by transport and RPC.",
		}, []string{"transport", "rpc"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "errsvc_in_flight_requests",
			Help: "Unary calls (gRPC and REST) being handled now; a gRPC call counts from its headers, while its message arrives.",
		}),
		watches: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "errsvc_health_watches",
			Help: "grpc.health.v1 Watch streams open now.",
		}),
		receiving: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "errsvc_receiving_messages",
			Help: "gRPC request messages being received now (each holds MaxRequestBytes of the receive buffer budget).",
		}),
		streams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "errsvc_active_streams",
			Help: "Streaming gRPC calls open now.",
		}),
		buildInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "errsvc_build_info",
			Help: "Always 1: the version, VCS revision and Go version errsvc was built with.",
		}, []string{"version", "revision", "go_version"}),
	}
	m.series, m.translateDurs = newSeries(), make([]keptObserver, len(sourceLabels))
	m.answerLookups = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "errsvc_answer_cache_lookups_total",
		Help: "Translate calls looked up in the transport's answer cache, by transport and result (hit: answered from the cache; miss: translated).",
	}, []string{"transport", "result"})
	m.answerStores = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "errsvc_answer_cache_stores_total",
		Help: "Answers stored in the transport's answer cache, by transport.",
	}, []string{"transport"})
	m.answerEvictions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "errsvc_answer_cache_evictions_total",
		Help: "Answers removed from the transport's answer cache to stay within its bounds (or replaced), by transport.",
	}, []string{"transport"})
	m.answerRefusals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "errsvc_answer_cache_refusals_total",
		Help: "Successful answers not stored in the transport's answer cache, by transport and reason (clock: a wait counted " +
			"from the clock, e.g. an HTTP-date Retry-After without received_at; too_large: over the entry size limit; first_seen: request bytes not seen before, stored when they come again).",
	}, []string{"transport", "reason"})
	m.answerEntries = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "errsvc_answer_cache_entries",
		Help: "Answers held in the transport's answer cache now, by transport.",
	}, []string{"transport"})
	m.answerBytes = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "errsvc_answer_cache_bytes",
		Help: "Bytes held in the transport's answer cache now (requests, answers and per-entry overhead), by transport.",
	}, []string{"transport"})
	m.policy = newPolicyCollector()
	m.registry.MustRegister(m.policy)
	m.registry.MustRegister(m.requests, m.latency, m.translations, m.translateDur, m.errors, m.limits,
		m.panics, m.inFlight, m.streams, m.watches, m.receiving, m.buildInfo,
		m.answerLookups, m.answerStores, m.answerEvictions, m.answerRefusals, m.answerEntries, m.answerBytes,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	build := version.Get()
	m.buildInfo.WithLabelValues(build.Version, build.Revision, build.GoVersion).Set(1)
	m.initSeries()
	return m
}

// alertCodes are the codes of the documented error-ratio alert
// (docs/OPERATIONS.md), whose series exist from the start.
var alertCodes = []codes.Code{codes.OK, codes.Internal, codes.Unknown, codes.DataLoss, codes.Unavailable}

// initSeries exposes zeros for every series an alert or dashboard reads,
// for each RPC of TranslationService on each transport that serves it,
// so rate() and increase() evaluate before the first call (a counter
// that appears at its first increment loses that increment to rate()).
func (m *Metrics) initSeries() {
	for _, l := range allLimits {
		m.limits.WithLabelValues(l)
	}
	for _, t := range answerCacheTransports {
		m.answerCache(t)
	}
	for transport, rpcs := range translationRPCs() {
		for _, rpc := range rpcs {
			m.panics.WithLabelValues(transport, rpc)
			m.latency.WithLabelValues(transport, rpc)
			for _, code := range alertCodes {
				m.requests.WithLabelValues(transport, rpc, code.String())
				if code != codes.OK {
					m.errors.WithLabelValues(transport, rpc, code.String(), scopeCall)
				}
			}
		}
	}
}

// translationRPCs are the full method names of TranslationService by
// transport, from its service descriptor: every method on gRPC, the unary
// ones (each has an HTTP rule) on REST.
func translationRPCs() map[string][]string {
	desc := errsvcv1.TranslationService_ServiceDesc
	out := map[string][]string{}
	for _, md := range desc.Methods {
		rpc := "/" + desc.ServiceName + "/" + md.MethodName
		out[transportGRPC] = append(out[transportGRPC], rpc)
		out[transportHTTP] = append(out[transportHTTP], rpc)
	}
	for _, sd := range desc.Streams {
		out[transportGRPC] = append(out[transportGRPC], "/"+desc.ServiceName+"/"+sd.StreamName)
	}
	return out
}

// answerCache is transport's answer cache series (created at 0 if new).
func (m *Metrics) answerCache(transport string) answerCacheMetrics {
	return answerCacheMetrics{
		hits:         m.answerLookups.WithLabelValues(transport, cacheHit),
		misses:       m.answerLookups.WithLabelValues(transport, cacheMiss),
		stores:       m.answerStores.WithLabelValues(transport),
		evictions:    m.answerEvictions.WithLabelValues(transport),
		refusedClock: m.answerRefusals.WithLabelValues(transport, refusedClock),
		refusedSize:  m.answerRefusals.WithLabelValues(transport, refusedTooLarge),
		refusedFirst: m.answerRefusals.WithLabelValues(transport, refusedFirst),
		entries:      m.answerEntries.WithLabelValues(transport),
		bytes:        m.answerBytes.WithLabelValues(transport),
	}
}

// Handler serves the registry in the Prometheus text format, in
// OpenMetrics (with exemplars) to scrapers that ask for it, and in the
// protobuf format (with native histograms) to those that ask for that.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry, EnableOpenMetrics: true})
}

// exemplar is the trace id of a sampled span as exemplar labels, or nil.
// Unsampled traces are not exported anywhere, so they make no exemplar.
func exemplar(sp trace.Span) prometheus.Labels {
	if sp == nil {
		return nil
	}
	sc := sp.SpanContext()
	if !sc.IsSampled() {
		return nil
	}
	return prometheus.Labels{"trace_id": sc.TraceID().String()}
}

func inc(c prometheus.Counter, ex prometheus.Labels) {
	if ex != nil {
		c.(prometheus.ExemplarAdder).AddWithExemplar(1, ex)
		return
	}
	c.Inc()
}

func observe(o prometheus.Observer, v float64, ex prometheus.Labels) {
	if ex != nil {
		o.(prometheus.ExemplarObserver).ObserveWithExemplar(v, ex)
		return
	}
	o.Observe(v)
}

// observeCall counts one finished call.
func (m *Metrics) observeCall(c *call) {
	ex := exemplar(c.span)
	s := m.seriesOf(c)
	inc(m.requestsOf(s, c), ex)
	observe(m.latencyOf(s, c), time.Since(c.start).Seconds(), ex)
	if c.code != codes.OK {
		m.errorsOf(s, c.transport, c.rpc, c.code, scopeCall).Inc()
	}
	if c.limit != "" {
		m.limits.WithLabelValues(c.limit).Inc()
	}
	if c.panicked {
		m.panics.WithLabelValues(c.transport, c.rpc).Inc()
	}
}

// observeItem counts one translation request inside a call. For a unary
// Translate the call's own error is counted by observeCall; items of a batch
// or a stream count their errors here.
func (m *Metrics) observeItem(c *call, source, class string, code codes.Code, item bool, limit string) {
	transport, rpc := transportGRPC, "unknown"
	var sp trace.Span
	var s *rpcSeries
	if c != nil {
		transport, rpc, sp, s = c.transport, c.rpc, c.span, m.seriesOf(c)
	}
	inc(m.translationsOf(s, transport, rpc, source, class, code), exemplar(sp))
	traceItem(sp, source, class, code, item)
	if item && code != codes.OK {
		m.errorsOf(s, transport, rpc, code, scopeItem).Inc()
		if limit != "" {
			m.limits.WithLabelValues(limit).Inc()
		}
	}
}

// Source and class label values.
const (
	labelNone  = "none"
	labelOther = "other"
)

var sourceOneof = (&errsvcv1.TranslateRequest{}).ProtoReflect().Descriptor().Oneofs().ByName(sourceField)

// sourceLabel names the request's source oneof member, from the compiled
// descriptor (sourceLabels), so the value set is the contract's and nothing
// else.
func sourceLabel(req *errsvcv1.TranslateRequest) string {
	if req == nil || req.Source == nil {
		return labelNone
	}
	t := reflect.TypeOf(req.Source)
	for i, st := range sourceTypes {
		if st == t {
			return sourceLabels[i+1]
		}
	}
	// Not reached: every wrapper type is in the table.
	var fd protoreflect.FieldDescriptor = req.ProtoReflect().WhichOneof(sourceOneof)
	if fd == nil {
		return labelNone
	}
	return string(fd.Name())
}

// knownClasses are the four classes of the Error Class Contract v1.
var knownClasses = map[string]bool{
	"transient": true, "permanent": true, "auth_required": true, "context_overflow": true,
}

// classLabel maps the response's class onto a bounded set: the class when it
// is one of the four, "other" for anything passed through verbatim, "none"
// when the response carries no class.
func classLabel(resp *errsvcv1.TranslateResponse) string {
	cl := resp.GetClassification()
	switch {
	case cl == nil || cl.GetClass() == "":
		return labelNone
	case knownClasses[cl.GetClass()]:
		return cl.GetClass()
	}
	return labelOther
}
