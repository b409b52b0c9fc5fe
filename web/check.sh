#!/usr/bin/env bash
# The HTTP port as outside clients see it (make web-check, part of make test):
#  - buf curl over Connect and gRPC-Web calls every unary RPC and prints what
#    buf curl over gRPC prints for the gRPC port;
#  - schemathesis (PyPI) against /openapi.json: positive and negative data,
#    every check, a bounded number of examples;
#  - openapi-typescript: {} and two sources do not type-check;
#  - headless Chromium (Debian's package, installed when missing): the
#    playground and a connect-web client (web/test/browser.mjs).
# Every server binds 127.0.0.1 on a free port.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT
BUF="go tool -modfile=tools/buf/go.mod buf"
EXAMPLES=${SCHEMATHESIS_EXAMPLES:-50}

go build -o "$WORK/errsvc" ./cmd/errsvc
go run ./internal/descset -o "$WORK/errsvc.binpb"

# start_errsvc LOG [flags...]: runs errsvc on free loopback ports and sets
# HTTP_ADDR and GRPC_ADDR from its "errsvc listening" line.
start_errsvc() {
	local log=$1; shift
	"$WORK/errsvc" --grpc-addr 127.0.0.1:0 --http-addr 127.0.0.1:0 "$@" 2>"$log" &
	PIDS+=($!)
	for _ in $(seq 100); do
		if line=$(grep -m1 '"errsvc listening"' "$log" 2>/dev/null); then
			HTTP_ADDR=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["http_addr"])' "$line")
			GRPC_ADDR=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["grpc_addr"])' "$line")
			return 0
		fi
		sleep 0.1
	done
	echo "errsvc did not start:"; cat "$log"; exit 1
}
start_errsvc "$WORK/errsvc.log"

normalize() {
	python3 -c '
import json, sys
def drop(v):
    if isinstance(v, dict):
        return {k: drop(x) for k, x in v.items() if k != "debug"}
    if isinstance(v, list):
        return [drop(x) for x in v]
    return v
print(json.dumps(drop(json.load(open(sys.argv[1]))), indent=1, sort_keys=True))' "$1"
}

echo "== buf curl: Connect and gRPC-Web on the HTTP port against gRPC on the gRPC port"
calls=(
	'Translate|{"agent_error":{"code":"RATE_LIMITED","message":"slow down","details":{"retryAfterMs":2000}}}'
	'Translate|{"provider_response":{"provider":"anthropic","status":529,"body":"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"}}'
	'Translate|{}'
	'TranslateBatch|{"requests":[{"labby_error":{"kind":"timeout","message":"took too long"}},{}]}'
	'TranslateBatch|{}'
	'ListVocabularies|{}'
)
for c in "${calls[@]}"; do
	rpc=${c%%|*}; data=${c#*|}
	$BUF curl --protocol grpc --http2-prior-knowledge --schema "$WORK/errsvc.binpb" --data "$data" \
		"http://$GRPC_ADDR/errsvc.v1.TranslationService/$rpc" >"$WORK/want" 2>&1 || true
	for proto in connect grpcweb; do
		$BUF curl --protocol "$proto" --schema "$WORK/errsvc.binpb" --data "$data" \
			"http://$HTTP_ADDR/errsvc.v1.TranslationService/$rpc" >"$WORK/got" 2>&1 || true
		# Connect errors carry each detail's JSON as "debug" too; the rest
		# must be byte for byte what gRPC prints.
		if ! diff <(normalize "$WORK/want") <(normalize "$WORK/got") >/dev/null; then
			echo "buf curl --protocol $proto $rpc $data differs from gRPC:"; diff <(normalize "$WORK/want") <(normalize "$WORK/got") | head -20; exit 1
		fi
	done
	echo "  $rpc $(head -c 60 <<<"$data")…: connect = grpcweb = grpc ($(wc -c <"$WORK/want") bytes)"
done

echo "== schemathesis against /openapi.json"
VENV=${SCHEMATHESIS_VENV:-$ROOT/web/.out/venv}
if [ ! -x "$VENV/bin/schemathesis" ]; then
	python3 -m venv "$VENV"
	"$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==4.32.5"
fi
# From $WORK, where it leaves its cache. The seed is fixed so a CI run is
# reproducible; SCHEMATHESIS_SEED=<n> explores other cases by hand.
(cd "$WORK" && "$VENV/bin/schemathesis" run "http://$HTTP_ADDR/openapi.json" --checks all --mode all \
	--max-examples "$EXAMPLES" --workers 1 --no-color --suppress-health-check all \
	--seed "${SCHEMATHESIS_SEED:-20261201}")

echo "== openapi-typescript"
(cd web && { [ -d node_modules ] || npm ci --no-audit --no-fund; } && node test/openapi-types.mjs)

echo "== headless Chromium: playground and connect-web"
if ! [ -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
	SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium
fi
(cd web && ERRSVC_BIN="$WORK/errsvc" node test/browser.mjs)
