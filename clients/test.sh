#!/usr/bin/env bash
# Runs every SDK's tests against a live errsvc:
#   1. builds errsvc (go build -o into a temp dir) and starts it on free
#      loopback ports, waiting for GET /readyz;
#   2. Go:         go test ./clients/go/...           (ERRSVC_GRPC_ADDR/ERRSVC_HTTP_ADDR set)
#   3. TypeScript: npm ci (when the lock changed) && npm test   in clients/typescript
#   4. Python:     pip install clients/python into its venv, then pytest
#                  (exit 5, no tests collected, is a failure like any other non-zero);
#                  then the same on the lowest Python the package claims
#                  (requires-python; PY_MIN_VERSION in scripts/lib.sh), in
#                  its own venv; a missing interpreter fails under CI;
#   5. Java:       mvn -q -B test in clients/java (JUnit 5 through Surefire;
#                  the stubs are generated from proto/ by the build);
#   6. the docs' snippets in that SDK (docs/TUTORIAL.md, docs/RECIPES.md):
#      internal/docsrun's TestSDKSnippets, compiled once, given the SDK as
#      built above (ERRSVC_DOCS_TYPESCRIPT, ERRSVC_DOCS_PYTHON,
#      ERRSVC_DOCS_JAVA_CLASSPATH); all of one language in one process,
#      against an errsvc of its own; a result line "<sdk>-docs" each (Go's
#      snippets run in go test, make gotest);
#   7. every suite writes its decision helpers' answers for every golden
#      vector to $ERRSVC_DECISIONS_DIR/<sdk>.json; with all four suites run,
#      scripts/compare_decisions.py fails unless the four agree;
#   8. stops errsvc (trap) and exits non-zero if any suite failed.
#
#   bash clients/test.sh [go|typescript|python|java]...   (default: all four)
#
# Needs only Go, Node/npm, Python 3 with venv/pip and a JDK 17 with Maven;
# everything else is installed, pinned, from the package registries (see
# clients/scripts/lib.sh).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/scripts/lib.sh"
cd "$ROOT"

ALL_SUITES=(go typescript python java)
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=("${ALL_SUITES[@]}")
for s in "${suites[@]}"; do
	case "$s" in
	go | typescript | python | java) ;;
	*)
		echo "usage: $0 [go|typescript|python|java]..." >&2
		exit 2
		;;
	esac
done

TMP="$(mktemp -d "${TMPDIR:-/tmp}/errsvc-clients.XXXXXX")"
SERVER_PID=""
cleanup() {
	local rc=$?
	if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
		kill -TERM "$SERVER_PID" 2>/dev/null || true
		for _ in $(seq 1 50); do
			kill -0 "$SERVER_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
	fi
	if [ "$rc" -ne 0 ] && [ -s "$TMP/errsvc.log" ]; then
		echo "---- errsvc log (last 40 lines) ----" >&2
		tail -n 40 "$TMP/errsvc.log" >&2 || true
	fi
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log "go build -o $TMP/errsvc ./cmd/errsvc"
go build -o "$TMP/errsvc" ./cmd/errsvc

# free_ports N: N distinct free loopback ports (bound together, then released).
free_ports() {
	"$PYTHON" - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks:
    s.close()
PY
}

# wait_ready URL PID: polls URL until it answers 200, while PID lives.
wait_ready() {
	"$PYTHON" - "$1" "$2" <<'PY'
import os, sys, time, urllib.request
url, pid = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("errsvc exited before it was ready")
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            if r.status == 200:
                sys.exit(0)
    except Exception:
        pass
    time.sleep(0.1)
sys.exit("errsvc was not ready after 60s")
PY
}

start_server() {
	local attempt
	for attempt in 1 2 3; do
		read -r GRPC_PORT HTTP_PORT <<<"$(free_ports 2)"
		export ERRSVC_GRPC_ADDR="127.0.0.1:$GRPC_PORT" ERRSVC_HTTP_ADDR="127.0.0.1:$HTTP_PORT"
		log "starting errsvc: gRPC $ERRSVC_GRPC_ADDR, HTTP $ERRSVC_HTTP_ADDR (attempt $attempt)"
		"$TMP/errsvc" --grpc-addr "$ERRSVC_GRPC_ADDR" --http-addr "$ERRSVC_HTTP_ADDR" >"$TMP/errsvc.log" 2>&1 &
		SERVER_PID=$!
		if wait_ready "http://$ERRSVC_HTTP_ADDR/readyz" "$SERVER_PID"; then
			return 0
		fi
		kill -KILL "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
		SERVER_PID=""
	done
	echo "errsvc did not start" >&2
	return 1
}

start_server
# The TypeScript and Python suites fail, rather than skip, without a server.
export ERRSVC_REQUIRE_SERVER=1
export ERRSVC_DECISIONS_DIR="$TMP/decisions"
mkdir -p "$ERRSVC_DECISIONS_DIR"

run_go() {
	go test -count=1 ./clients/go/...
}

run_typescript() {
	ensure_node_modules || return 1
	(cd "$TS_DIR" && npm test)
}

# pytest_in VENV: installs the package into VENV and runs pytest with it.
pytest_in() {
	local venv="$1"
	# Test the package as installed (wheel layout, generated code included),
	# not the source tree.
	"$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q \
		--no-deps --no-build-isolation --force-reinstall "$PY_DIR" || return 1
	local rc=0
	(cd "$PY_DIR" && "$venv/bin/python" -m pytest -q) || rc=$?
	if [ "$rc" -eq 5 ]; then
		echo "pytest collected no tests (exit 5): counted as a failure" >&2
	fi
	return "$rc"
}

run_python() {
	ensure_venv || return 1
	log "pytest on $("$PY_VENV/bin/python" --version)"
	pytest_in "$PY_VENV" || return 1
	local min
	if ! min="$(find_min_python)"; then
		echo "no Python $PY_MIN_VERSION found (the lowest the SDK claims); set PYTHON_MIN" >&2
		[ -z "${CI:-}" ] || return 1
		echo "not under CI: the $PY_MIN_VERSION run is left out" >&2
		return 0
	fi
	ensure_venv "$PY_MIN_VENV" "$min" || return 1
	log "pytest on $("$PY_MIN_VENV/bin/python" --version) (the lowest requires-python allows)"
	# Its decision records would overwrite the first run's: compare them too.
	ERRSVC_DECISIONS_SDK=python-min pytest_in "$PY_MIN_VENV"
}

# The Java snippets of the docs compile against the SDK's classes and its
# runtime dependencies: the same Maven run writes that class path.
JAVA_CLASSPATH_FILE="$TMP/java.classpath"
run_java() {
	(cd "$JAVA_DIR" && "$MVN" -q -B test \
		org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
		-Dmdep.outputFile="$JAVA_CLASSPATH_FILE" -Dmdep.includeScope=runtime)
}

# run_docs SDK: the SDK's snippets of the docs (internal/docsrun's
# TestSDKSnippets/SDK, which starts its own errsvc in process), given the
# SDK as its suite built it. It fails unless the test ran and passed; a
# toolchain the test finds missing skips it outside CI and fails under CI.
DOCSRUN_TEST=""
DOCS_SKIPPED=0
run_docs() {
	local sdk="$1" var value out rc=0
	case "$sdk" in
	typescript) var=ERRSVC_DOCS_TYPESCRIPT value="$TS_DIR" ;;
	python) var=ERRSVC_DOCS_PYTHON value="$PY_VENV/bin/python" ;;
	java)
		if [ ! -s "$JAVA_CLASSPATH_FILE" ]; then
			echo "no Java class path (the Java suite did not write $JAVA_CLASSPATH_FILE)" >&2
			return 1
		fi
		var=ERRSVC_DOCS_JAVA_CLASSPATH value="$JAVA_DIR/target/classes:$(cat "$JAVA_CLASSPATH_FILE")"
		;;
	esac
	if [ -z "$DOCSRUN_TEST" ]; then
		go test -c -o "$TMP/docsrun.test" ./internal/docsrun || return 1
		DOCSRUN_TEST="$TMP/docsrun.test"
	fi
	out="$(cd "$ROOT/internal/docsrun" &&
		env "$var=$value" "$DOCSRUN_TEST" -test.run "^TestSDKSnippets\$/^$sdk\$" -test.v -test.count=1 2>&1)" || rc=$?
	printf '%s\n' "$out" | grep -v -e '^=== ' -e '^PASS$' >&2 || true
	if [ "$rc" -ne 0 ]; then
		return "$rc"
	fi
	if grep -q -- "--- SKIP: TestSDKSnippets/$sdk " <<<"$out"; then
		echo "the $sdk doc snippets were skipped (not under CI)" >&2
		DOCS_SKIPPED=1
		return 0
	fi
	grep -q -- "--- PASS: TestSDKSnippets/$sdk " <<<"$out" || {
		echo "TestSDKSnippets/$sdk did not run" >&2
		return 1
	}
}

# ran_all: every SDK's suite is among the ones run.
ran_all() {
	local want s found
	for want in "${ALL_SUITES[@]}"; do
		found=0
		for s in "${suites[@]}"; do
			[ "$s" != "$want" ] || found=1
		done
		[ "$found" -eq 1 ] || return 1
	done
}

results=()
failed=0
for s in "${suites[@]}"; do
	log "$s SDK tests"
	start=$SECONDS
	if "run_$s"; then
		results+=("$(printf '%-16s ok (%ss)' "$s" $((SECONDS - start)))")
	else
		results+=("$(printf '%-16s FAILED (%ss)' "$s" $((SECONDS - start)))")
		failed=1
	fi
	if [ "$s" != go ]; then
		log "$s snippets of the docs"
		start=$SECONDS
		DOCS_SKIPPED=0
		if run_docs "$s"; then
			if [ "$DOCS_SKIPPED" -eq 1 ]; then
				results+=("$(printf '%-16s SKIPPED, toolchain missing (not CI)' "$s-docs")")
			else
				results+=("$(printf '%-16s ok (%ss)' "$s-docs" $((SECONDS - start)))")
			fi
		else
			results+=("$(printf '%-16s FAILED (%ss)' "$s-docs" $((SECONDS - start)))")
			failed=1
		fi
	fi
	if ! kill -0 "$SERVER_PID" 2>/dev/null; then
		echo "errsvc died during the $s suite" >&2
		failed=1
		break
	fi
done

# The four SDKs' decision helpers must agree on every vector.
if ran_all && [ "$failed" -eq 0 ]; then
	if "$PYTHON" "$ROOT/clients/scripts/compare_decisions.py" "$ERRSVC_DECISIONS_DIR"; then
		results+=("decisions        agree")
	else
		results+=("decisions        DISAGREE")
		failed=1
	fi
fi

echo
echo "clients/test.sh summary:"
for r in "${results[@]}"; do
	echo "  $r"
done
exit "$failed"
