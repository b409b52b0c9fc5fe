# errsvc: one entry point for running, regenerating and testing.
# Everything installs from the registries on first use (Go module proxy).

BUF := go tool -modfile=tools/buf/go.mod buf
RELEASE_IMAGE := releases/errsvc-v1.binpb
GENERATED := gen server/playground/vectors.json docs/VOCABULARIES.md docs/PROVIDERS.md policy/schema.json docs/POLICY.md clients/typescript/src/gen clients/python/src/errsvc_client/gen

.PHONY: run build test generate docs golden lint breaking check-generated vet gotest conformance sdk web-check fuzz mutate release-image

# The build's version and revision (errsvc --version, the start log,
# errsvc_build_info, /openapi.json): from git, else go run's build info.
# Untagged trees get a semver pre-release of the VERSION file: v0.2.0-dev.<short hash>.
VERSION ?= $(shell git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null || echo v$$(cat VERSION)-dev$$(git rev-parse --short HEAD 2>/dev/null | sed 's/^/./'))
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS := -X github.com/errsvc/errsvc/internal/version.version=$(VERSION) \
	-X github.com/errsvc/errsvc/internal/version.revision=$(REVISION)

## run: start errsvc on its defaults (gRPC 127.0.0.1:9090, HTTP 127.0.0.1:8080)
run:
	go run -ldflags '$(LDFLAGS)' ./cmd/errsvc

## build: bin/errsvc, stamped with VERSION and REVISION
build:
	CGO_ENABLED=0 go build -trimpath -ldflags '-s -w $(LDFLAGS)' -o bin/errsvc ./cmd/errsvc

## test: the whole suite, as CI runs it
test: lint check-generated breaking vet gotest conformance sdk web-check

## generate: regenerate every generated file (code, docs, SDK code)
generate:
	$(BUF) generate
	go run ./internal/openapigen -in gen/openapi/errsvc.swagger.json -out gen/openapi/errsvc.openapi.json
	go test ./server -run 'TestPlaygroundVectorsAreCurrent' -update
	$(MAKE) docs
	bash clients/generate.sh

## docs: regenerate docs/VOCABULARIES.md and docs/PROVIDERS.md from the contract and the fixtures,
## and the policy schema's enums (policy/schema.json) and reference (docs/POLICY.md) from the contract
docs:
	go test ./translate -run 'TestVocabulariesDocIsCurrent' -update
	go test ./translate/provider -run 'TestProvidersDoc' -update
	go test ./policy -run 'TestPolicySchemaEnums' -update
	go test ./policy -run 'TestPolicyDocs' -update

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
	cd bench && go vet ./...
	# bench/run.sh's growth ablation builds these with the tag; keep them building.
	go vet -tags errsvc_ablate_growth ./internal/ablation ./translate/...
	cd bench && go vet -tags errsvc_ablate_growth ./cmd/benchserver
	python3 tools/plant/run.py --check

# The first run builds promtool and a kubernetes-validate venv into the user
# cache for deploy/'s tests (several minutes on a small machine), hence the
# timeout above go test's default of 10 minutes.
# The hostile tests (TestHostile*) time a well-behaved caller while an
# attack runs; beside the other packages' tests on 2 cores, the CPU they
# share made a 60 ms wait 1.4 s, so they run after them, one package at a time.
gotest:
	go test -race -count=1 -timeout 30m -skip '^TestHostile' ./...
	go test -race -count=1 -timeout 10m -p 1 -run '^TestHostile' ./...
	cd bench && go test -count=1 ./...

## sdk: the Go, TypeScript, Python and Java clients against a live errsvc
sdk:
	bash clients/test.sh

## web-check: the HTTP port as outside clients see it: buf curl over Connect and
## gRPC-Web, schemathesis against /openapi.json, openapi-typescript, and the
## playground and a connect-web client in headless Chromium (web/check.sh)
web-check:
	bash web/check.sh

## conformance: the Code Mode tool error contract's JavaScript rules (points 5 and 6), with Node's
## test runner; the provider-shaped answers held to the real openai, anthropic and google-api-core clients;
## the MCP server (errsvc mcp over stdio, /mcp over streamable HTTP) held to the MCP inspector's CLI
conformance:
	node --test conformance/codemode-js/
	bash conformance/provider-clients/run.sh
	bash conformance/mcp-inspector/run.sh

## fuzz: run every fuzz target for FUZZTIME each (default 30s)
FUZZTIME ?= 30s
fuzz:
	@# Every fuzz target of every package, found by go test -list, so a new one cannot be left out.
	for pkg in $$(grep -rl --include='*_test.go' --exclude-dir=node_modules --exclude-dir=.venv '^func Fuzz' . | xargs -n1 dirname | sort -u); do \
		for t in $$(go test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$pkg $$t"; go test $$pkg -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) || exit 1; done; done

## mutate: mutation testing of translate/ with gremlins (slow: outside CI; see docs/TESTING.md).
## MUTATE_EXCLUDE='provider/|sanitize/' limits it to the core package's files.
GREMLINS := go run github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
MUTATE_WORKERS ?= 2
MUTATE_EXCLUDE ?=
mutate:
	ERRSVC_SHARED_DIR=$${ERRSVC_SHARED_DIR:-$(CURDIR)/../shared} $(GREMLINS) unleash \
		--workers $(MUTATE_WORKERS) --test-cpu 1 --timeout-coefficient 5 \
		$(if $(MUTATE_EXCLUDE),-E '$(MUTATE_EXCLUDE)') --threshold-efficacy 90 ./translate

## scorecard: every classifier (errsvc, LiteLLM, the openai, anthropic, google-api-core and Vercel AI SDK clients) scored over testdata/providers; not in test (see scorecard/README.md)
.PHONY: scorecard
scorecard: ; bash scorecard/run.sh

## release-image: snapshot the contract as the baseline for buf breaking
release-image:
	$(BUF) build proto --exclude-source-info -o $(RELEASE_IMAGE)
