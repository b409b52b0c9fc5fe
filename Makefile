# errsvc: one entry point for running, regenerating and testing.
# Everything installs from the registries on first use (Go module proxy).

BUF := go tool -modfile=tools/buf/go.mod buf
RELEASE_IMAGE := releases/errsvc-v1.binpb
GENERATED := gen server/playground/vectors.json docs/VOCABULARIES.md docs/PROVIDERS.md clients/typescript/src/gen clients/python/src/errsvc_client/gen

.PHONY: run test generate docs golden lint breaking check-generated vet gotest conformance sdk web-check fuzz release-image

## run: start errsvc on its defaults (gRPC 127.0.0.1:9090, HTTP 127.0.0.1:8080)
run:
	go run ./cmd/errsvc

## test: the whole suite, as CI runs it
test: lint check-generated breaking vet gotest conformance sdk web-check

## generate: regenerate every generated file (code, docs, golden vectors)
generate:
	$(BUF) generate
	go run ./internal/openapigen -in gen/openapi/errsvc.swagger.json -out gen/openapi/errsvc.openapi.json
	go test ./server -run 'TestPlaygroundVectorsAreCurrent' -update
	go test ./translate -run 'TestVocabulariesDocIsCurrent' -update
	go test ./translate/provider -run 'TestProvidersDoc' -update
	bash clients/generate.sh

## golden: rewrite testdata/golden from the engine (review the diff!)
golden:
	go test ./translate -run 'TestGolden' -update

lint:
	$(BUF) lint

## check-generated: regenerate and fail on any difference from what is committed
check-generated: generate
	@if [ -n "$$(git status --porcelain -- $(GENERATED))" ]; then \
		echo "generated files drifted from their sources; run make generate and commit:"; \
		git status --porcelain -- $(GENERATED); git --no-pager diff --stat -- $(GENERATED); exit 1; fi

## breaking: buf breaking against the image of the last release
breaking:
	$(BUF) breaking proto --against $(RELEASE_IMAGE)

vet:
	go vet ./...

gotest:
	go test -race -count=1 ./...

## sdk: the Go, TypeScript and Python clients against a live errsvc
sdk:
	bash clients/test.sh

## web-check: the HTTP port as outside clients see it: buf curl over Connect and
## gRPC-Web, schemathesis against /openapi.json, openapi-typescript, and the
## playground and a connect-web client in headless Chromium (web/check.sh)
web-check:
	bash web/check.sh

## conformance: the Code Mode JavaScript contract (seed 001, points 5 and 6), with Node's test runner
conformance:
	node --test conformance/codemode-js/

## fuzz: run every fuzz target for FUZZTIME each (default 30s)
FUZZTIME ?= 30s
fuzz:
	for t in FuzzLabbySource FuzzAgentSource FuzzClassifiedSource FuzzToolResultSource FuzzRequest FuzzIsCodeModeTool; do \
		go test ./translate -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) || exit 1; done
	go test ./translate/provider -run '^$$' -fuzz '^FuzzClassify$$' -fuzztime $(FUZZTIME)
	for t in FuzzText FuzzValue; do \
		go test ./translate/sanitize -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) || exit 1; done
	for t in FuzzServerDecode FuzzClientDecode; do \
		go test ./codec -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) || exit 1; done

## release-image: snapshot the contract as the baseline for buf breaking
release-image:
	$(BUF) build proto --exclude-source-info -o $(RELEASE_IMAGE)
