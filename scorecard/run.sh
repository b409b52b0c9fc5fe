#!/usr/bin/env bash
# The scorecard, regenerated: every classifier over the provider fixtures
# (testdata/providers), its answers into scorecard/answers/, the table onto
# stdout and into docs/SCORECARD.md.
#
#   bash scorecard/run.sh
#
# The first run installs the pinned Python packages into venvs under
# ~/.cache/errsvc/scorecard (one per pin set) and the pinned npm packages
# into scorecard/vercel/node_modules (npm ci); later runs are offline.
set -euo pipefail
cd "$(dirname "$0")/.."
SC=scorecard
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/errsvc/scorecard"
PYTHON="${PYTHON:-python3}"
mkdir -p "$CACHE" "$SC/answers"

# venv NAME REQUIREMENTS: a venv in the cache, rebuilt when the pins or Python change.
venv() {
	local dir="$CACHE/$1-venv" want
	want="$( { cat "$2"; "$PYTHON" -c 'import sys; print(sys.version)'; } | sha256sum | cut -d' ' -f1)"
	if [ "$(cat "$dir/.errsvc-installed" 2>/dev/null || true)" != "$want" ]; then
		echo "==> pip install ($2)" >&2
		rm -rf "$dir"
		"$PYTHON" -m venv "$dir"
		"$dir/bin/pip" install --quiet --disable-pip-version-check -r "$2"
		printf '%s\n' "$want" >"$dir/.errsvc-installed"
	fi
}
venv clients "$SC/python/requirements-clients.txt"
venv litellm "$SC/python/requirements-litellm.txt"
lock="$(sha256sum "$SC/vercel/package-lock.json" | cut -d' ' -f1)"
if [ "$(cat "$SC/vercel/node_modules/.errsvc-installed" 2>/dev/null || true)" != "$lock" ]; then
	echo "==> npm ci ($SC/vercel)" >&2
	(cd "$SC/vercel" && npm ci --no-audit --no-fund --loglevel=error)
	printf '%s\n' "$lock" >"$SC/vercel/node_modules/.errsvc-installed"
fi

echo "==> errsvc" >&2
rev="$(git describe --tags --match 'v[0-9]*' 2>/dev/null || echo "v0.0.0-dev.$(git rev-parse --short HEAD)")"
go run ./scorecard/errsvc -version "errsvc $rev" >"$SC/answers/errsvc.json"
echo "==> LiteLLM" >&2
LITELLM_LOCAL_MODEL_COST_MAP=True "$CACHE/litellm-venv/bin/python" "$SC/python/litellm_runner.py" "$SC/answers/litellm.json"
echo "==> openai, anthropic, google-api-core" >&2
"$CACHE/clients-venv/bin/python" "$SC/python/clients.py" "$SC/answers"
echo "==> Vercel AI SDK" >&2
node "$SC/vercel/isretryable.mjs" "$SC/answers/vercel-ai.json"

"$PYTHON" "$SC/score.py" --doc docs/SCORECARD.md \
	"$SC/answers/errsvc.json" "$SC/answers/litellm.json" "$SC/answers/openai.json" \
	"$SC/answers/anthropic.json" "$SC/answers/google-api-core.json" "$SC/answers/vercel-ai.json"
