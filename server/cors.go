package server

import (
	"net/http"
	"slices"
	"strings"

	connectcors "connectrpc.com/cors"
	"github.com/rs/cors"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// restRoutes is the REST mapping (proto/errsvc/v1/errsvc_gateway.yaml) as
// the HTTP layer needs it: which RPC a path names before routing, and which
// methods an OPTIONS or a 405 lists in Allow. TestRESTRoutesMatchOpenAPI
// holds it to the generated OpenAPI document.
var restRoutes = []struct {
	path, method, rpc string
}{
	{"/v1/translate", http.MethodPost, errsvcv1.TranslationService_Translate_FullMethodName},
	{"/v1/translate:batch", http.MethodPost, errsvcv1.TranslationService_TranslateBatch_FullMethodName},
	{"/v1/vocabularies", http.MethodGet, errsvcv1.TranslationService_ListVocabularies_FullMethodName},
}

// restAllow is the Allow header of a REST path ("" for an unknown one):
// its methods, plus OPTIONS, which every route answers.
func restAllow(path string) string {
	var methods []string
	for _, r := range restRoutes {
		if r.path == path {
			methods = append(methods, r.method)
		}
	}
	if len(methods) == 0 {
		return ""
	}
	return strings.Join(append(methods, http.MethodOptions), ", ")
}

// restOptions answers OPTIONS on a REST route with 204 and its Allow
// header (RFC 9110, 9.3.7). A CORS preflight from an allowed origin is
// answered before it, by withCORS, with the Access-Control headers.
func restOptions(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			if allow := restAllow(r.URL.Path); allow != "" {
				w.Header().Set("Allow", allow)
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// withCORS lets browsers on the allowed origins call every API on the HTTP
// port: REST, Connect and gRPC-Web, with the request headers those
// protocols send and the response headers their clients read (grpc-status,
// grpc-message, grpc-status-details-bin, Retry-After...). No origin, the
// default, sends no CORS header at all, so browsers keep their same-origin
// rule (the playground at / is same-origin). Entries are exact origins
// ("https://app.example.com") or one wildcard ("https://*.example.com");
// credentials are never allowed: errsvc authenticates nobody.
func withCORS(h http.Handler, origins []string) http.Handler {
	if len(origins) == 0 {
		return h
	}
	return cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: slices.Compact(slices.Sorted(slices.Values(append(connectcors.AllowedMethods(),
			http.MethodGet, http.MethodPost, http.MethodHead)))),
		AllowedHeaders: append(connectcors.AllowedHeaders(), "Accept-Encoding"),
		ExposedHeaders: append(connectcors.ExposedHeaders(), "Retry-After", "Content-Encoding"),
		// Browsers cap it (Chromium at 2 hours); it saves a preflight per call.
		MaxAge: 7200,
	}).Handler(h)
}
