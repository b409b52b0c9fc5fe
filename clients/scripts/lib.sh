# Shared by clients/generate.sh and clients/test.sh (sourced, not run).
# The functions return non-zero on failure even where `set -e` is off (as in
# an `if` condition), and record an install only once it has succeeded.
# Installs each SDK's pinned toolchain from the package registries, and
# skips the install when the pins have not changed since the last one.
#
# Needs: go, node + npm, python3 (>= 3.10) with venv + pip, and a JDK 17+
# with Maven 3.8+ (MVN=/path/to/mvn overrides it). Override the
# interpreter with PYTHON=/path/to/python3. The Python SDK is also tested on
# the lowest version it claims (PYTHON_MIN, found by find_min_python).

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TS_DIR="$ROOT/clients/typescript"
PY_DIR="$ROOT/clients/python"
PY_VENV="$PY_DIR/.venv"
PYTHON="${PYTHON:-python3}"
# The lowest Python the SDK's requires-python claims, and its venv.
PY_MIN_VERSION=3.10
PY_MIN_VENV="$PY_DIR/.venv-min"
# The Java SDK: a Maven project; mvn installs its pinned plugins and
# dependencies (clients/java/pom.xml) from Maven Central into ~/.m2.
JAVA_DIR="$ROOT/clients/java"
MVN="${MVN:-mvn}"

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

# ensure_venv [VENV PYTHON]: a fresh venv with requirements.txt unless the
# venv was built from this very file by this interpreter (default: .venv by
# $PYTHON).
ensure_venv() {
	local venv="${1:-$PY_VENV}" python="${2:-$PYTHON}"
	local want have stamp="$venv/.errsvc-installed"
	want="$( { cat "$PY_DIR/requirements.txt"; "$python" -c 'import sys; print(sys.version)'; } | sha256)"
	have="$(cat "$stamp" 2>/dev/null || true)"
	if [ "$want" != "$have" ] || [ ! -x "$venv/bin/python" ]; then
		log "python venv ($("$python" --version 2>&1)) + pip install -r requirements.txt -> ${venv#"$ROOT"/}"
		rm -rf "$venv"
		"$python" -m venv "$venv" || return 1
		"$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q \
			-r "$PY_DIR/requirements.txt" || return 1
		printf '%s\n' "$want" >"$stamp"
	fi
}

# find_min_python: prints an interpreter of PY_MIN_VERSION (PYTHON_MIN, else
# python3.10 on PATH, else pyenv's), or fails.
find_min_python() {
	local c
	for c in "${PYTHON_MIN:-}" "python$PY_MIN_VERSION" \
		"$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")"/versions/"$PY_MIN_VERSION".*/bin/python"$PY_MIN_VERSION"; do
		[ -n "$c" ] || continue
		if command -v "$c" >/dev/null 2>&1 &&
			[ "$("$c" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" = "$PY_MIN_VERSION" ]; then
			command -v "$c"
			return 0
		fi
	done
	return 1
}
