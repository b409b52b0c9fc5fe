package server

import (
	"reflect"
	"sync/atomic"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/codes"
)

// Every call makes four to six observations into labelled vectors, and
// WithLabelValues validates the label values, hashes them and takes the
// vector's lock each time: about a microsecond per call. So the children
// the per-call observations use are resolved once per label tuple and kept,
// in arrays indexed by the bounded label values themselves (transport and
// RPC of TranslationService, gRPC code, source, class). A child is still
// created by WithLabelValues, at its first observation, and a vector hands
// out the same child for the same labels every time (errsvc never deletes
// one), so /metrics shows exactly the series, values and exemplars it
// showed before. Label values outside the tables (a health check, a code
// without a name) take WithLabelValues every time, as before.
//
// What the kept children earn a caller (issue 42): alone, within the noise
// (a -1.2% / -1.8%, c -0.8% / -2.1%, 3 rounds); as one of the set of five
// in docs/TESTING.md, a +5.2% / +6.7% and c +4.0% / +4.2% for the set
// (bench/ab.sh, 5 interleaved rounds, 2026-12-05).

// numCodes is the number of gRPC codes with a name (OK..Unauthenticated).
const numCodes = int(codes.Unauthenticated) + 1

// classLabels are the values of the class label.
var classLabels = []string{labelNone, labelOther, "transient", "permanent", "auth_required", "context_overflow"}

// sourceLabels are the values of the source label: none, then the members
// of the TranslateRequest oneof in field order (from the compiled
// descriptor); sourceTypes[i] is the Go type of the oneof wrapper of
// sourceLabels[i+1], so that sourceLabel needs no reflection on the message.
var sourceLabels, sourceTypes = func() ([]string, []reflect.Type) {
	labels := []string{labelNone}
	var types []reflect.Type
	fields := sourceOneof.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		req := &errsvcv1.TranslateRequest{}
		m := req.ProtoReflect()
		m.Set(fd, m.NewField(fd))
		labels = append(labels, string(fd.Name()))
		types = append(types, reflect.TypeOf(req.Source))
	}
	return labels, types
}()

// labelIndex is the position of v in table, or -1.
func labelIndex(table []string, v string) int {
	for i, t := range table {
		if t == v {
			return i
		}
	}
	return -1
}

// kept holds a resolved child (a prometheus.Counter or Observer), nil
// until the first observation of its label tuple. Two callers that
// resolve one at once get the same child from the vector, so either may
// store it.
type kept[T any] struct{ p atomic.Pointer[T] }

func (k *kept[T]) get() (T, bool) {
	if p := k.p.Load(); p != nil {
		return *p, true
	}
	var zero T
	return zero, false
}

func (k *kept[T]) keep(c T) T {
	k.p.Store(&c)
	return c
}

type (
	keptCounter  = kept[prometheus.Counter]
	keptObserver = kept[prometheus.Observer]
)

// rpcSeries are the kept children of one transport and RPC.
type rpcSeries struct {
	transport, rpc string
	requests       [numCodes]keptCounter // errsvc_requests_total by code
	callErrors     [numCodes]keptCounter // errsvc_errors_total{scope="call"} by code
	itemErrors     [numCodes]keptCounter // errsvc_errors_total{scope="item"} by code
	latency        keptObserver          // errsvc_request_duration_seconds
	// errsvc_translations_total by source, class and code (translationAt).
	translations []keptCounter
}

func translationAt(source, class int, code codes.Code) int {
	return (source*len(classLabels)+class)*numCodes + int(code)
}

type rpcKey struct{ transport, rpc string }

// seriesTransports are the transports that serve TranslationService.
var seriesTransports = []string{transportGRPC, transportHTTP, transportConnect, transportGRPCWeb}

// newSeries is the table of every transport and RPC of
// TranslationService, all children unresolved; read-only afterwards.
func newSeries() map[rpcKey]*rpcSeries {
	desc := errsvcv1.TranslationService_ServiceDesc
	var rpcs []string
	for _, md := range desc.Methods {
		rpcs = append(rpcs, "/"+desc.ServiceName+"/"+md.MethodName)
	}
	for _, sd := range desc.Streams {
		rpcs = append(rpcs, "/"+desc.ServiceName+"/"+sd.StreamName)
	}
	out := map[rpcKey]*rpcSeries{}
	for _, t := range seriesTransports {
		for _, rpc := range rpcs {
			out[rpcKey{t, rpc}] = &rpcSeries{transport: t, rpc: rpc,
				translations: make([]keptCounter, len(sourceLabels)*len(classLabels)*numCodes)}
		}
	}
	return out
}

// seriesOf is the kept children of c's transport and RPC, or nil when they
// are not in the table. The call record keeps them, and looks again when
// its RPC changed (REST names it once routed).
func (m *Metrics) seriesOf(c *call) *rpcSeries {
	if s := c.series; s != nil && s.rpc == c.rpc && s.transport == c.transport {
		return s
	}
	c.series = m.series[rpcKey{c.transport, c.rpc}]
	return c.series
}

// requestsOf is errsvc_requests_total{transport, rpc, code} of c.
func (m *Metrics) requestsOf(s *rpcSeries, c *call) prometheus.Counter {
	if s == nil || int(c.code) >= numCodes {
		return m.requests.WithLabelValues(c.transport, c.rpc, c.code.String())
	}
	k := &s.requests[c.code]
	if ctr, ok := k.get(); ok {
		return ctr
	}
	return k.keep(m.requests.WithLabelValues(c.transport, c.rpc, c.code.String()))
}

// latencyOf is errsvc_request_duration_seconds{transport, rpc} of c.
func (m *Metrics) latencyOf(s *rpcSeries, c *call) prometheus.Observer {
	if s == nil {
		return m.latency.WithLabelValues(c.transport, c.rpc)
	}
	if o, ok := s.latency.get(); ok {
		return o
	}
	return s.latency.keep(m.latency.WithLabelValues(c.transport, c.rpc))
}

// errorsOf is errsvc_errors_total{transport, rpc, code, scope}.
func (m *Metrics) errorsOf(s *rpcSeries, transport, rpc string, code codes.Code, scope string) prometheus.Counter {
	if s == nil || int(code) >= numCodes {
		return m.errors.WithLabelValues(transport, rpc, code.String(), scope)
	}
	k := &s.callErrors[code]
	if scope == scopeItem {
		k = &s.itemErrors[code]
	}
	if ctr, ok := k.get(); ok {
		return ctr
	}
	return k.keep(m.errors.WithLabelValues(transport, rpc, code.String(), scope))
}

// translationsOf is errsvc_translations_total{transport, rpc, source, class, code}.
func (m *Metrics) translationsOf(s *rpcSeries, transport, rpc, source, class string, code codes.Code) prometheus.Counter {
	si, ci := labelIndex(sourceLabels, source), labelIndex(classLabels, class)
	if s == nil || si < 0 || ci < 0 || int(code) >= numCodes {
		return m.translations.WithLabelValues(transport, rpc, source, class, code.String())
	}
	k := &s.translations[translationAt(si, ci, code)]
	if ctr, ok := k.get(); ok {
		return ctr
	}
	return k.keep(m.translations.WithLabelValues(transport, rpc, source, class, code.String()))
}

// translateDurOf is errsvc_translation_duration_seconds{source}.
func (m *Metrics) translateDurOf(source string) prometheus.Observer {
	i := labelIndex(sourceLabels, source)
	if i < 0 || i >= len(m.translateDurs) {
		return m.translateDur.WithLabelValues(source)
	}
	k := &m.translateDurs[i]
	if o, ok := k.get(); ok {
		return o
	}
	return k.keep(m.translateDur.WithLabelValues(source))
}
