# Shared by clients/generate.sh and clients/test.sh (sourced, not run).
# The functions return non-zero on failure even where `set -e` is off (as in
# an `if` condition), and record an install only once it has succeeded.
# Installs each SDK's pinned toolchain from the package registries, and
# skips the install when the pins have not changed since the last one.
#
# Needs: go, node + npm, python3 (>= 3.9) with venv + pip. Override the
# interpreter with PYTHON=/path/to/python3.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TS_DIR="$ROOT/clients/typescript"
PY_DIR="$ROOT/clients/python"
PY_VENV="$PY_DIR/.venv"
PYTHON="${PYTHON:-python3}"

log() { printf '==> %s\n' "$*" >&2; }

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum | cut -d' ' -f1
	else
		shasum -a 256 | cut -d' ' -f1
	fi
}

# ensure_node_modules: npm ci from package-lock.json unless node_modules was
# installed from this very lock file by this node/npm.
ensure_node_modules() {
	local want have stamp="$TS_DIR/node_modules/.errsvc-installed"
	want="$( { cat "$TS_DIR/package-lock.json"; node --version; npm --version; } | sha256)"
	have="$(cat "$stamp" 2>/dev/null || true)"
	if [ "$want" != "$have" ] || [ ! -x "$TS_DIR/node_modules/.bin/protoc-gen-es" ]; then
		log "npm ci (clients/typescript)"
		(cd "$TS_DIR" && npm ci --no-audit --no-fund --loglevel=error) || return 1
		printf '%s\n' "$want" >"$stamp"
	fi
}

# ensure_venv: a fresh venv with requirements.txt unless the venv was built
# from this very file by this interpreter.
ensure_venv() {
	local want have stamp="$PY_VENV/.errsvc-installed"
	want="$( { cat "$PY_DIR/requirements.txt"; "$PYTHON" -c 'import sys; print(sys.version)'; } | sha256)"
	have="$(cat "$stamp" 2>/dev/null || true)"
	if [ "$want" != "$have" ] || [ ! -x "$PY_VENV/bin/python" ]; then
		log "python venv + pip install -r requirements.txt (clients/python)"
		rm -rf "$PY_VENV"
		"$PYTHON" -m venv "$PY_VENV" || return 1
		"$PY_VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q \
			-r "$PY_DIR/requirements.txt" || return 1
		printf '%s\n' "$want" >"$stamp"
	fi
}
