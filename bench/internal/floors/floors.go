// Package floors holds what the benchmark's server and load generator share:
// the request bodies, and the floors errsvc is measured against.
//
// Two floors are the goals' denominators (an empty gRPC RPC and an empty
// REST route, see cmd/benchserver). Two more are diagnostics that answer
// errsvc's own answer without translating: Canned (gRPC) decodes the
// TranslateRequest like Translate does and returns the answer errsvc
// computed for that body at start-up; CannedREST reads the body and writes
// the JSON errsvc gives for it. Between the empty floor and the canned one
// lies the cost of carrying a full answer; between the canned floor and
// Translate, the translation and (for REST) the JSON codec.
package floors

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
)

// Sources are real request bodies, one per source vocabulary (the same as
// translate/bench_test.go). Load rotates through them.
var Sources = []string{
	`{"labby_error":{"kind":"rate_limited","message":"slow down"}}`,
	`{"agent_error":{"code":"TIMEOUT","message":"timed out","retry":"no","details":{"timeoutMs":30000,"idempotent":false}}}`,
	`{"classified_error":{"code":"account_selection_refused","message":"no account","detail":{"routing_code":"account_hold","retry_after_secs":12}}}`,
	`{"mcp_tool_result":{"tool":"github::create_issue","is_error":true,"content":[{"type":"text","text":"{\"kind\":\"upstream_error\",\"message\":\"backend 502\"}"}]}}`,
}

// sourceKeys are the JSON keys that tell the Sources apart, in order.
var sourceKeys = []string{`"labby_error"`, `"agent_error"`, `"classified_error"`, `"mcp_tool_result"`}

// ProviderMixEnv, set to 1 in the environment of both the benchserver and
// the load generator, adds a provider answer (a real-shaped OpenAI 429, as
// translate/bench_test.go's) to Sources, so that a fifth of the load is
// the provider source, the costliest to translate. bench/run.sh's goals
// are measured without it; bench/ab.sh passes it through, to judge a fast
// path of the provider source, which the four Sources never reach.
const ProviderMixEnv = "ERRSVC_BENCH_PROVIDER_MIX"

const providerSource = `{"provider_response":{"provider":"openai","status":429,"headers":{"content-type":"application/json","retry-after":"20","x-ratelimit-remaining-requests":"0","x-ratelimit-reset-requests":"20s","x-request-id":"req_123"},"body":"{\"error\":{\"message\":\"Rate limit reached for gpt-4o in organization org-abc on requests per min (RPM): Limit 500, Used 500, Requested 1.\",\"type\":\"requests\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}"}}`

func init() {
	if os.Getenv(ProviderMixEnv) == "1" {
		addProviderSource()
	}
}

func addProviderSource() {
	Sources = append(Sources, providerSource)
	sourceKeys = append(sourceKeys, `"provider_response"`)
}

// AllSources is Sources with the provider answer, whether or not the
// environment mixes it into the load (bench/cmd/footprint reads each).
func AllSources() []string {
	if os.Getenv(ProviderMixEnv) == "1" {
		return Sources
	}
	return append(Sources[:len(Sources):len(Sources)], providerSource)
}

// Requests decodes Sources.
func Requests() ([]*errsvcv1.TranslateRequest, error) {
	out := make([]*errsvcv1.TranslateRequest, len(Sources))
	for i, s := range Sources {
		out[i] = &errsvcv1.TranslateRequest{}
		if err := protojson.Unmarshal([]byte(s), out[i]); err != nil {
			return nil, fmt.Errorf("source %d: %w", i, err)
		}
	}
	return out, nil
}

// The cold path and the storm path (issue "Performance"). errsvc keeps a
// bounded cache of encoded answers, and Translate is a pure function of the
// request bytes, so rotating four bodies would measure the cache. The cold
// path makes every request distinct: Sources[i%4] with its own
// context.service ("svc-<i>"; the envelope carries it, so the answers
// differ too), over a pool far larger than the cache. The storm path is a
// rate-limit storm: nine requests in ten are one of the four Sources as
// they are (identical bytes, as a fleet's repeated 429s are), the tenth is
// distinct.

// ColdPool is the number of distinct cold requests the gRPC load cycles
// through: 64× errsvc's default cache entries, so an LRU never hits.
const ColdPool = 1 << 16

// StormHotShare is the share of storm requests that repeat a hot body, in tenths.
const StormHotShare = 9

// ColdTemplate is Sources[i] with a "%d" where the distinct number goes.
func ColdTemplate(i int) string {
	return `{"context":{"service":"svc-%d"},` + Sources[i][1:]
}

// ColdBody is cold request n.
func ColdBody(n int) string {
	return fmt.Sprintf(ColdTemplate(n%len(Sources)), n)
}

// StormBody is storm request n.
func StormBody(n int) string {
	if n%10 < StormHotShare {
		return Sources[n%len(Sources)]
	}
	return ColdBody(n)
}

// Pool is one of the request pools the gRPC load cycles through: request
// n is the body ColdBody(n) (the cold path) or StormBody(n) (the storm
// path) stands for, built when it is sent, as a caller builds its request
// (TestPoolsAreTheBodies holds them to protojson's reading of the bodies).
// The requests share their source message, one per Source, and own only
// their context: 65536 decoded requests kept alive would be some 80 MiB
// of pointers for the load generator's collector to rescan, a cost of the
// harness that no caller has. Each call still encodes its request.
type Pool struct {
	hot      []*errsvcv1.TranslateRequest
	services []string
	storm    bool
	targets  []string
}

// ColdRequests is the cold path's pool.
func ColdRequests() (*Pool, error) { return newPool(false) }

// StormRequests is the storm path's pool: the hot requests are the same
// four messages, so they encode to the same bytes.
func StormRequests() (*Pool, error) { return newPool(true) }

func newPool(storm bool) (*Pool, error) {
	hot, err := Requests()
	if err != nil {
		return nil, err
	}
	p := &Pool{hot: hot, services: make([]string, ColdPool), storm: storm}
	for n := range p.services {
		p.services[n] = fmt.Sprintf("svc-%d", n)
	}
	return p, nil
}

// WithTargets is the pool whose requests ask only for targets.
func (p *Pool) WithTargets(targets ...string) *Pool {
	q := *p
	q.targets = targets
	return &q
}

// Request is request n of the pool (n modulo ColdPool).
func (p *Pool) Request(n int) *errsvcv1.TranslateRequest {
	n %= ColdPool
	hot := p.hot[n%len(p.hot)]
	if p.storm && n%10 < StormHotShare && p.targets == nil {
		return hot
	}
	r := &errsvcv1.TranslateRequest{Source: hot.Source, Targets: p.targets}
	if !p.storm || n%10 >= StormHotShare {
		r.Context = &errsvcv1.TranslateContext{Service: p.services[n]}
	}
	return r
}

// CannedMethod is the full gRPC method name of the canned floor.
const CannedMethod = "/errsvc.bench.v1.Canned/Translate"

// CannedPath is the REST route of the canned floor.
const CannedPath = "/v1/bench/canned"

// Canned answers, per source, what errsvc answers for Sources.
type Canned struct {
	answers []*errsvcv1.TranslateResponse
	json    [][]byte
}

// NewCanned translates every source once.
func NewCanned(marshal protojson.MarshalOptions) (*Canned, error) {
	reqs, err := Requests()
	if err != nil {
		return nil, err
	}
	c := &Canned{}
	for _, r := range reqs {
		a, err := translate.Translate(r)
		if err != nil {
			return nil, err
		}
		j, err := marshal.Marshal(a)
		if err != nil {
			return nil, err
		}
		c.answers = append(c.answers, a)
		c.json = append(c.json, j)
	}
	return c, nil
}

// answer picks the canned answer of a request by its source (in the order
// of Sources).
func (c *Canned) answer(req *errsvcv1.TranslateRequest) *errsvcv1.TranslateResponse {
	switch req.GetSource().(type) {
	case *errsvcv1.TranslateRequest_LabbyError:
		return c.answers[0]
	case *errsvcv1.TranslateRequest_AgentError:
		return c.answers[1]
	case *errsvcv1.TranslateRequest_ClassifiedError:
		return c.answers[2]
	case *errsvcv1.TranslateRequest_ProviderResponse:
		if len(c.answers) > 4 {
			return c.answers[4]
		}
	}
	return c.answers[3]
}

// RegisterGRPC adds the canned gRPC floor to s.
func (c *Canned) RegisterGRPC(s *grpc.Server) {
	s.RegisterService(&grpc.ServiceDesc{
		ServiceName: "errsvc.bench.v1.Canned",
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{
			MethodName: "Translate",
			Handler: func(srv any, ctx context.Context, dec func(any) error, ic grpc.UnaryServerInterceptor) (any, error) {
				in := &errsvcv1.TranslateRequest{}
				if err := dec(in); err != nil {
					return nil, err
				}
				h := func(_ context.Context, req any) (any, error) {
					return c.answer(req.(*errsvcv1.TranslateRequest)), nil
				}
				if ic == nil {
					return h(ctx, in)
				}
				return ic(ctx, in, &grpc.UnaryServerInfo{Server: srv, FullMethod: CannedMethod}, h)
			},
		}},
		Metadata: "bench",
	}, c)
}

// ServeREST is the canned REST floor, a grpc-gateway HandlePath handler.
func (c *Canned) ServeREST(w http.ResponseWriter, r *http.Request, _ map[string]string) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "body", http.StatusRequestEntityTooLarge)
		return
	}
	answer := c.json[len(c.json)-1]
	for i, k := range sourceKeys {
		if bytes.Contains(body, []byte(k)) {
			answer = c.json[i]
			break
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(answer)
}
