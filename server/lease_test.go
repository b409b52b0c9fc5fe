package server

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/golden"
	"github.com/errsvc/errsvc/translate"
)

// The server translates into leased storage and gives it back once the
// transport has encoded the answer (translate.TranslateLeased,
// call.releaseAnswers). Given back too early, an answer would be sent
// cleared or holding another call's translation. Here callers on every
// transport translate distinct requests at once (each names its own
// context.service, which the answer carries), and every answer must be the
// core's own answer to its request.
func TestLeasedAnswersAreTheirOwn(t *testing.T) {
	reqs := golden.Requests(t)
	r := start(t, Options{})
	rest := func(t *testing.T, req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error) {
		b, err := openjson.Marshal(protojson.MarshalOptions{UseProtoNames: true}, req)
		if err != nil {
			return nil, err
		}
		code, body := r.post(t, "/v1/translate", string(b))
		if code != 200 {
			return nil, fmt.Errorf("HTTP %d: %s", code, body)
		}
		out := &errsvcv1.TranslateResponse{}
		return out, openjson.Unmarshal(body, out)
	}
	connectClient := connectClients(r)["connect"]
	transports := map[string]func(t *testing.T, reqs []*errsvcv1.TranslateRequest) ([]*errsvcv1.TranslateResponse, error){
		"grpc": func(t *testing.T, reqs []*errsvcv1.TranslateRequest) ([]*errsvcv1.TranslateResponse, error) {
			out := make([]*errsvcv1.TranslateResponse, len(reqs))
			for i, req := range reqs {
				resp, err := r.client.Translate(context.Background(), req)
				if err != nil {
					return nil, err
				}
				out[i] = resp
			}
			return out, nil
		},
		"grpc-batch": func(t *testing.T, reqs []*errsvcv1.TranslateRequest) ([]*errsvcv1.TranslateResponse, error) {
			resp, err := r.client.TranslateBatch(context.Background(), &errsvcv1.TranslateBatchRequest{Requests: reqs})
			return resp.GetResponses(), err
		},
		"grpc-stream": func(t *testing.T, reqs []*errsvcv1.TranslateRequest) ([]*errsvcv1.TranslateResponse, error) {
			s, err := r.client.TranslateStream(context.Background())
			if err != nil {
				return nil, err
			}
			out := make([]*errsvcv1.TranslateResponse, len(reqs))
			for i, req := range reqs {
				if err := s.Send(req); err != nil {
					return nil, err
				}
				if out[i], err = s.Recv(); err != nil {
					return nil, err
				}
			}
			return out, s.CloseSend()
		},
		"rest": func(t *testing.T, reqs []*errsvcv1.TranslateRequest) ([]*errsvcv1.TranslateResponse, error) {
			out := make([]*errsvcv1.TranslateResponse, len(reqs))
			for i, req := range reqs {
				var err error
				if out[i], err = rest(t, req); err != nil {
					return nil, err
				}
			}
			return out, nil
		},
		"connect": func(t *testing.T, reqs []*errsvcv1.TranslateRequest) ([]*errsvcv1.TranslateResponse, error) {
			out := make([]*errsvcv1.TranslateResponse, len(reqs))
			for i, req := range reqs {
				resp, err := connectClient.Translate(context.Background(), req)
				if err != nil {
					return nil, err
				}
				out[i] = resp
			}
			return out, nil
		},
	}
	const callers, rounds, perCall = 4, 6, 4
	var wg sync.WaitGroup
	for name, send := range transports {
		for g := range callers {
			wg.Go(func() {
				for round := range rounds {
					batch := make([]*errsvcv1.TranslateRequest, perCall)
					want := make([]*errsvcv1.TranslateResponse, perCall)
					for i := range batch {
						req := proto.Clone(reqs[(g*rounds*perCall+round*perCall+i)%len(reqs)]).(*errsvcv1.TranslateRequest)
						if req.Context == nil {
							req.Context = &errsvcv1.TranslateContext{}
						}
						req.Context.Service = fmt.Sprintf("%s-%d-%d-%d", name, g, round, i)
						batch[i] = req
						var err error
						if want[i], err = translate.Translate(req); err != nil {
							t.Errorf("core: %v", err)
							return
						}
					}
					got, err := send(t, batch)
					if err != nil {
						t.Errorf("%s: %v", name, err)
						return
					}
					for i := range want {
						if !proto.Equal(got[i], want[i]) {
							t.Errorf("%s caller %d: answer %d of round %d is not its request's:\n got %v\nwant %v", name, g, i, round, got[i], want[i])
							return
						}
					}
				}
			})
		}
	}
	wg.Wait()
}
