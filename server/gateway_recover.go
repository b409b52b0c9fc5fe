package server

import (
	"context"
	"log/slog"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// recoveringService gives REST the panic recovery that gRPC gets from its
// interceptors, which in-process gateway calls bypass. Recovering here
// rather than in HTTP middleware keeps the gateway's annotated context, so
// the INTERNAL answer is written and counted under the right RPC.
type recoveringService struct {
	*Service
	logger *slog.Logger
}

func (s recoveringService) Translate(ctx context.Context, req *errsvcv1.TranslateRequest) (resp *errsvcv1.TranslateResponse, err error) {
	defer recoverAsInternal(ctx, s.logger, errsvcv1.TranslationService_Translate_FullMethodName, &err)
	return s.Service.Translate(ctx, req)
}

func (s recoveringService) TranslateBatch(ctx context.Context, req *errsvcv1.TranslateBatchRequest) (resp *errsvcv1.TranslateBatchResponse, err error) {
	defer recoverAsInternal(ctx, s.logger, errsvcv1.TranslationService_TranslateBatch_FullMethodName, &err)
	return s.Service.TranslateBatch(ctx, req)
}

func (s recoveringService) ListVocabularies(ctx context.Context, req *errsvcv1.ListVocabulariesRequest) (resp *errsvcv1.ListVocabulariesResponse, err error) {
	defer recoverAsInternal(ctx, s.logger, errsvcv1.TranslationService_ListVocabularies_FullMethodName, &err)
	return s.Service.ListVocabularies(ctx, req)
}
