#!/usr/bin/env bash
# errsvc's openai_error, anthropic_error and google_error answers held to the
# real clients that read them (check.py says how). Installs the pinned
# clients from PyPI into a venv in the user cache (once per pin set), writes
# errsvc's answers with `go run ./conformance/provider-clients/answers`, and
# runs check.py over them.
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR=conformance/provider-clients
VENV="${XDG_CACHE_HOME:-$HOME/.cache}/errsvc/provider-clients-venv"
PYTHON="${PYTHON:-python3}"
want="$( { cat "$DIR/requirements.txt"; "$PYTHON" -c 'import sys; print(sys.version)'; } | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$VENV/.errsvc-installed" 2>/dev/null || true)" != "$want" ]; then
	echo "==> pip install ($DIR/requirements.txt)" >&2
	rm -rf "$VENV"
	"$PYTHON" -m venv "$VENV"
	"$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$DIR/requirements.txt"
	printf '%s\n' "$want" >"$VENV/.errsvc-installed"
fi
answers="$(mktemp "${TMPDIR:-/tmp}/errsvc-answers.XXXXXX")"
trap 'rm -f "$answers"' EXIT
go run ./conformance/provider-clients/answers >"$answers"
"$VENV/bin/python" "$DIR/check.py" "$answers"
