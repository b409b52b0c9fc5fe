#!/usr/bin/env bash
# errsvc's MCP server (`errsvc mcp` over stdio, /mcp over streamable HTTP) held to
# the MCP inspector's CLI. Installs the inspector pinned in package-lock.json with
# `npm ci` into the user cache (once per lock file and Node version: offline after
# that), builds errsvc, and runs inspector.test.mjs with Node's test runner.
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR=conformance/mcp-inspector
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/errsvc/mcp-inspector"
want="$( { cat "$DIR/package.json" "$DIR/package-lock.json"; node --version; } | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$CACHE/.errsvc-installed" 2>/dev/null || true)" != "$want" ]; then
	echo "==> npm ci ($DIR/package-lock.json)" >&2
	rm -rf "$CACHE"
	mkdir -p "$CACHE"
	cp "$DIR/package.json" "$DIR/package-lock.json" "$CACHE/"
	# --ignore-scripts: the inspector's one install script installs its
	# clients' dependencies in a source checkout and does nothing here.
	(cd "$CACHE" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
	printf '%s\n' "$want" >"$CACHE/.errsvc-installed"
fi
bin="$(mktemp -d "${TMPDIR:-/tmp}/errsvc-mcp.XXXXXX")"
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/errsvc" ./cmd/errsvc
ERRSVC_BIN="$bin/errsvc" \
	INSPECTOR="$CACHE/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js" \
	node --test "$DIR/inspector.test.mjs"
