#!/usr/bin/env bash
# bench/peer/throughput.sh: the peer figure of docs/BENCHMARKS.md
# (classifications per second and CPU per classification of LiteLLM's
# exception_type in-process against errsvc from the Python SDK), in one run.
#
# Run by bench/run.sh; by hand: bash bench/peer/throughput.sh [OUT.json]
# (default bench/out/peer-throughput.json, a Markdown table beside it).
# Builds errsvc, installs LiteLLM (requirements.txt, pinned, from PyPI) and
# the SDK of clients/python into bench/peer/.venv, then throughput.py starts
# errsvc on free loopback ports and measures each system for PEER_SECONDS
# (default 4) after PEER_WARMUP (default 1) seconds. About a minute and a
# half on 2 cores; nothing leaves 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
PEER=$ROOT/bench/peer
OUT_JSON=${1:-$ROOT/bench/out/peer-throughput.json}
mkdir -p "$PEER/out" "$(dirname "$OUT_JSON")"

echo "== errsvc"
go build -o "$PEER/out/errsvc" ./cmd/errsvc

echo "== python venv (litellm, errsvc-client)"
if [ ! -x "$PEER/.venv/bin/python" ]; then
	python3 -m venv "$PEER/.venv"
fi
"$PEER/.venv/bin/pip" install -q --disable-pip-version-check -r "$PEER/requirements.txt"
# The SDK from this tree; its runtime dependencies are pinned in requirements.txt.
"$PEER/.venv/bin/pip" install -q --disable-pip-version-check --no-deps --force-reinstall "$ROOT/clients/python"

echo "== measuring"
ERRSVC_BIN="$PEER/out/errsvc" "$PEER/.venv/bin/python" "$PEER/throughput.py" --out "$OUT_JSON"
