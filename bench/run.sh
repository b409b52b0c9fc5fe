#!/usr/bin/env bash
# bench/run.sh: reproduces docs/BENCHMARKS.md and its appendix in one run (about 45 minutes).
#
# Builds bench/cmd/benchserver (the errsvc stack plus an empty gRPC RPC, an
# empty REST route and two canned-answer diagnostics on the same server) and bench/cmd/loadgen, runs the core
# benchmarks and the reference workload (bench/internal/machine: the machine's
# speed against the previous report's run, with errsvc's own benchmarks when
# their code is unchanged since that report), starts the benchserver on loopback, drives scenarios a–g (the
# ratio goals' in ROUNDS interleaved rounds, each verdict their median), the stream and batch, the
# light load (1, 2 and 4 callers against the floors) and a
# 5-minute RSS run against it, profiles it, measures the peer figure
# (bench/peer/throughput.sh: LiteLLM against errsvc from the Python SDK), and
# measures the growth (the second secrets layer and the limit facet) by
# ablation, in the core and at service level (bench/ab.sh), and
# writes docs/BENCHMARKS.md (one screen) and its appendix docs/BENCHMARKS-DETAIL.md.
# All load goes to 127.0.0.1; every scenario is bounded in time and stops by
# itself. Overridable (for a quick smoke run only): DURATION, WARMUP,
# RSS_DURATION, COUNT, ROUNDS.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/bench/out
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-2s}
RSS_DURATION=${RSS_DURATION:-5m}
COUNT=${COUNT:-5}
ROUNDS=${ROUNDS:-3}
GRPC_ADDR=127.0.0.1:19090
HTTP_ADDR=127.0.0.1:18080
PPROF_ADDR=127.0.0.1:16060
rm -rf "$OUT" && mkdir -p "$OUT"
: >"$OUT/commands.txt"

# An errsvc left on these ports (an earlier run, a manual benchserver)
# would answer /readyz in place of this run's benchserver, which could not
# bind, and every scenario would measure the old one.
if curl -fsS -o /dev/null "http://$HTTP_ADDR/readyz" 2>/dev/null; then
	echo "something already answers on $HTTP_ADDR: stop it first" >&2
	exit 1
fi

# run records a command in commands.txt (as written, relative to the repo)
# and runs it.
run() {
	echo "$*" | sed "s#$ROOT/##g" >>"$OUT/commands.txt"
	"$@"
}

# wrk from Debian, installed once.
if ! command -v wrk >/dev/null; then
	echo "== installing wrk (apt-get)"
	apt-get update -qq && apt-get install -y -qq wrk >/dev/null
fi

echo "== machine"
{
	echo "nproc:      $(nproc)"
	echo "CPU:        $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
	echo "memory:     $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
	echo "kernel:     $(uname -sr)"
	echo "Go:         $(go version)"
	echo "wrk:        $(wrk -v 2>&1 | head -1)"
	echo "GOMAXPROCS: default (= nproc)"
} | tee "$OUT/machine.txt"

echo "== build"
(cd bench && run go build -o "$OUT/benchserver" ./cmd/benchserver && run go build -o "$OUT/loadgen" ./cmd/loadgen)

# At errsvc's own GC target (server.DefaultGCPercent, which cmd/errsvc sets),
# then every source again at Go's default, for comparison.
echo "== core benchmarks (count $COUNT)"
run env GOGC=400 go test ./translate/... ./codec/... -run '^$' -bench . -benchmem -count "$COUNT" | tee "$OUT/core.txt"
run env GOGC=100 go test ./translate/ -run '^$' -bench '^BenchmarkTranslate$' -benchmem -count "$COUNT" | tee "$OUT/core-gogc100.txt"
# The reference workload (standard library only): the machine's speed
# against the run of the report this one replaces.
run go -C bench test ./internal/machine -run '^$' -bench . -count "$COUNT" | tee -a "$OUT/core.txt"
if (cd bench && go build -o "$OUT/benchstat" golang.org/x/perf/cmd/benchstat) 2>/dev/null ||
	GOFLAGS=-mod=mod go install golang.org/x/perf/cmd/benchstat@latest 2>/dev/null; then
	BENCHSTAT=$OUT/benchstat
	[ -x "$BENCHSTAT" ] || BENCHSTAT=$(go env GOPATH)/bin/benchstat
	echo "go run golang.org/x/perf/cmd/benchstat@latest bench/out/core.txt" >>"$OUT/commands.txt"
	"$BENCHSTAT" "$OUT/core.txt" | tee "$OUT/benchstat.txt" || true
fi
echo "== core profile (Labby)"
run env GOGC=400 go test ./translate/ -run '^$' -bench '^BenchmarkTranslate$/^labby$' -benchtime 3s \
	-cpuprofile "$OUT/core.pprof" -o "$OUT/translate.test" >/dev/null
run go tool pprof -top -nodecount 25 "$OUT/translate.test" "$OUT/core.pprof" 2>/dev/null | sed -n '4,40p' >"$OUT/top-core.txt"
echo "== core profile (a raw provider answer)"
run env GOGC=400 go test ./translate/ -run '^$' -bench '^BenchmarkTranslate$/^provider$' -benchtime 3s \
	-cpuprofile "$OUT/core-provider.pprof" -o "$OUT/translate.test" >/dev/null

# The growth ablation's core half: the per-source translations with the
# second secrets layer and the limit facet (internal/ablation) and without
# them, two test binaries run in turn COUNT times, so a drift of the
# machine falls on both.
echo "== growth ablation: core (count $COUNT, interleaved)"
run go test -c -o "$OUT/translate-growth-on.test" ./translate
run go test -c -tags errsvc_ablate_growth -o "$OUT/translate-growth-off.test" ./translate
for _ in $(seq 1 "$COUNT"); do
	(cd translate && GOGC=400 "$OUT/translate-growth-on.test" -test.run '^$' -test.bench '^BenchmarkTranslate$' \
		-test.benchmem) | grep '^Benchmark' >>"$OUT/core-growth-on.txt"
	(cd translate && GOGC=400 ERRSVC_ABLATION=growth-off "$OUT/translate-growth-off.test" -test.run '^$' \
		-test.bench '^BenchmarkTranslate$' -test.benchmem) | grep '^Benchmark' >>"$OUT/core-growth-off.txt"
done
echo "(then translate-growth-on.test and translate-growth-off.test in turn, COUNT times: -test.bench '^BenchmarkTranslate\$' -test.benchmem, at GOGC=400)" >>"$OUT/commands.txt"

echo "== benchserver"
echo "$OUT/benchserver --grpc-addr $GRPC_ADDR --http-addr $HTTP_ADDR --pprof-addr $PPROF_ADDR --stream-rate -1 &" | sed "s#$ROOT/##g" >>"$OUT/commands.txt"
"$OUT/benchserver" --grpc-addr "$GRPC_ADDR" --http-addr "$HTTP_ADDR" --pprof-addr "$PPROF_ADDR" --stream-rate -1 \
	2>"$OUT/benchserver.log" &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do
	curl -fsS "http://$HTTP_ADDR/readyz" >/dev/null 2>&1 && break
	sleep 0.2
done
curl -fsS "http://$HTTP_ADDR/readyz" >/dev/null
kill -0 "$SERVER_PID" 2>/dev/null || { echo "benchserver exited:" >&2; cat "$OUT/benchserver.log" >&2; exit 1; }

echo "== load scenarios and RSS run"
run "$OUT/loadgen" run -grpc "$GRPC_ADDR" -http "$HTTP_ADDR" -server-pid "$SERVER_PID" \
	-warmup "$WARMUP" -duration "$DURATION" -rounds "$ROUNDS" -conc 16,64 -conns 4 -stream-conc 4,16 -window 32 \
	-batch-items 100 -batch-conc 4,16 -light-conc 1,2,4 -rss-duration "$RSS_DURATION" -rss-interval 10s \
	-rss-grpc-conc 32 -rss-http-conc 16 -workdir "$OUT" \
	-profile-url "http://$PPROF_ADDR/debug/pprof/profile" -profile-out "$OUT/cpu" -profile-seconds 8 \
	-out "$OUT/results.json"

kill "$SERVER_PID" && wait "$SERVER_PID" 2>/dev/null || true
trap - EXIT

# The peer figure (bench/peer/throughput.sh: a venv from PyPI, errsvc on free
# loopback ports, about a minute and a half). A failure leaves the rest of
# the report standing; the section then says it was not run.
echo "== peer figure (LiteLLM in-process against errsvc from the Python SDK)"
echo "bash bench/peer/throughput.sh bench/out/peer-throughput.json" >>"$OUT/commands.txt"
if ! bash bench/peer/throughput.sh "$OUT/peer-throughput.json" >"$OUT/peer-throughput.log" 2>&1; then
	echo "peer figure failed (bench/out/peer-throughput.log):" && tail -5 "$OUT/peer-throughput.log"
	rm -f "$OUT/peer-throughput.json"
fi
[ -f "$OUT/peer-throughput.md" ] && cat "$OUT/peer-throughput.md"

# The growth ablation's service half: a, b*, c and d* against this work
# tree's benchserver without the growth and with it, ROUNDS interleaved
# rounds (bench/ab.sh, about 80 s per server and round).
echo "== growth ablation: service ($ROUNDS interleaved rounds)"
run env ERRSVC_AB_BASE_TAGS=errsvc_ablate_growth bash bench/ab.sh - "" "$ROUNDS" | tee "$OUT/growth-ab.txt"
cp bench/out/ab/summary.json "$OUT/growth-ab.json"

for s in a c; do
	run go tool pprof -top -nodecount 30 "$OUT/benchserver" "$OUT/cpu-$s.pprof" 2>/dev/null | sed -n '4,40p' >"$OUT/top-$s.txt" || true
done

# The commit of the report this run replaces, when the code the core
# benchmarks run (the non-test Go files of translate/, codec/ and gen/,
# go.mod, go.sum) is unchanged since, committed or not: the report then
# compares errsvc's own benchmarks with that run's. That commit is the one
# that brought the report's run (its "in one run (<date>)"): a later commit
# that only re-renders or reshapes the same run's figures is not the run.
SAME_CODE=
CODE=(translate codec gen go.mod go.sum ':(exclude)*_test.go')
runOf() { grep -o -m1 'in one run ([^)]*)' || true; }
PREV_REV=
if RUN=$(runOf <docs/BENCHMARKS.md) && [ -n "$RUN" ]; then
	for rev in $(git log --format=%h -- docs/BENCHMARKS.md 2>/dev/null); do
		[ "$(git show "$rev:docs/BENCHMARKS.md" | runOf)" = "$RUN" ] || break
		PREV_REV=$rev
	done
fi
if [ -n "$PREV_REV" ] && git diff --quiet "$PREV_REV" -- "${CODE[@]}" &&
	[ -z "$(git ls-files --others --exclude-standard -- "${CODE[@]}")" ]; then
	SAME_CODE=$PREV_REV
fi

echo "== report"
(cd bench && go run ./cmd/loadgen report -results "$OUT/results.json" -core "$OUT/core.txt" -core-gogc100 "$OUT/core-gogc100.txt" \
	-benchstat "$OUT/benchstat.txt" -machine "$OUT/machine.txt" -commands "$OUT/commands.txt" \
	-profiles "$OUT/cpu" -profile-core "$OUT/core.pprof" -profile-provider "$OUT/core-provider.pprof" \
	-top-a "$OUT/top-a.txt" -top-c "$OUT/top-c.txt" -top-core "$OUT/top-core.txt" \
	-peer "$OUT/peer-throughput.json" \
	-growth-core-on "$OUT/core-growth-on.txt" -growth-core-off "$OUT/core-growth-off.txt" -growth-ab "$OUT/growth-ab.json" \
	-same-code-as "$SAME_CODE" -out "$ROOT/docs/BENCHMARKS.md" -detail-out "$ROOT/docs/BENCHMARKS-DETAIL.md")
echo "wrote docs/BENCHMARKS.md and docs/BENCHMARKS-DETAIL.md"
