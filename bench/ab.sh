#!/usr/bin/env bash
# bench/ab.sh: the service-level A/B of two revisions, as issue 42 asks of a
# fast path ("stays with a measurement in the service-level figures showing
# it earns at least 3% of a or c"). A microbenchmark shows what a change
# saves in the core; this shows what it saves a caller.
#
#   bash bench/ab.sh BASE [CHANGED] [ROUNDS]
#
# BASE and CHANGED are git revisions (CHANGED defaults to the work tree,
# committed or not; a BASE of "-" is the work tree too). Each is built
# into its own benchserver; the load
# generator (bench/cmd/loadgen, from the work tree unless ERRSVC_AB_LOADGEN
# says otherwise, below) then drives scenarios a,
# b*, c and d* at 16 and 64 callers against each in turn, ROUNDS times
# (default 3), interleaved so that a drift of the machine falls on both.
# It prints the medians and ranges of the rounds: calls/s of a and c, and
# a/b* and c/d*, whose floors are measured against the same server in the same
# round. About 80 s per revision and round; load goes to 127.0.0.1 only and
# every scenario stops by itself. Nothing is written outside bench/out/ab.
#
# a and c rotate the Labby, agent, classified and MCP sources, never a
# provider answer. ERRSVC_BENCH_PROVIDER_MIX=1 in the environment adds one
# (a fifth of the calls; both revisions' benchservers and the load
# generator read it, see bench/internal/floors): the way to judge a fast
# path of the provider source. Both revisions must know the variable
# (bench/internal/floors from the commit that added it on).
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${1:?usage: bench/ab.sh BASE [CHANGED] [ROUNDS]}
CHANGED=${2:-}
ROUNDS=${3:-3}
OUT=$PWD/bench/out/ab
GRPC_ADDR=127.0.0.1:19190
HTTP_ADDR=127.0.0.1:18180
PPROF_ADDR=127.0.0.1:16160
rm -rf "$OUT" && mkdir -p "$OUT"
command -v wrk >/dev/null || { echo "bench/ab.sh needs wrk (bench/run.sh installs it)" >&2; exit 1; }

# ERRSVC_AB_BASE_TAGS builds BASE with these Go build tags, and runs its
# benchserver with ERRSVC_ABLATION=growth-off: bench/run.sh's growth
# ablation (internal/ablation) is `ERRSVC_AB_BASE_TAGS=errsvc_ablate_growth
# bash bench/ab.sh -`, the work tree without the growth against itself.
BASE_TAGS=${ERRSVC_AB_BASE_TAGS:-}

# ERRSVC_AB_LOADGEN=each builds the load generator from each revision too,
# and drives each revision with its own: the way to judge a path of the
# client's side (the codec's decoding of answers, which the Go SDK shares).
# Client and server share the machine, so a and b* then show both sides'
# change; c and d* are driven by wrk either way.
LOADGEN_EACH=
[ "${ERRSVC_AB_LOADGEN:-}" = each ] && LOADGEN_EACH=1

# ERRSVC_AB_BATCH=1 adds TranslateBatch (100 items a call, 16 callers) to
# each round: the way to judge a path only large answers take (the codec's
# pooled encode buffers). About 10 s more per revision and round.
ONLY='a,b*,c,d*'
EXTRA=()
if [ "${ERRSVC_AB_BATCH:-}" = 1 ]; then
	ONLY="$ONLY,batch"
	EXTRA=(-batch-conc 16)
fi

# build REV NAME [TAGS]: the benchserver of a revision ("" or "-" is the
# work tree), built with TAGS, and its load generator with LOADGEN_EACH.
build() {
	local rev=$1 name=$2 tags=${3:-} src=$PWD
	[ "$rev" = - ] && rev=
	if [ -n "$rev" ]; then
		src=$OUT/src-$name
		git worktree add --detach -q "$src" "$rev"
	fi
	(cd "$src/bench" && go build -tags "$tags" -o "$OUT/$name/benchserver" ./cmd/benchserver)
	if [ -n "$LOADGEN_EACH" ]; then
		(cd "$src/bench" && go build -o "$OUT/$name/loadgen" ./cmd/loadgen)
	fi
	if [ -n "$rev" ]; then
		git worktree remove --force "$src"
	fi
}
echo "== build"
build "$BASE" base "$BASE_TAGS"
build "$CHANGED" changed
(cd bench && go build -o "$OUT/loadgen" ./cmd/loadgen)

SERVER_PID=
trap '[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true' EXIT
for r in $(seq 1 "$ROUNDS"); do
	for name in base changed; do
		ablation=
		[ "$name" = base ] && [ -n "$BASE_TAGS" ] && ablation=growth-off
		ERRSVC_ABLATION=$ablation "$OUT/$name/benchserver" --grpc-addr "$GRPC_ADDR" --http-addr "$HTTP_ADDR" --pprof-addr "$PPROF_ADDR" \
			--stream-rate -1 2>"$OUT/$name/server-$r.log" &
		SERVER_PID=$!
		for _ in $(seq 1 50); do
			curl -fsS "http://$HTTP_ADDR/readyz" >/dev/null 2>&1 && break
			sleep 0.2
		done
		kill -0 "$SERVER_PID" 2>/dev/null || { echo "benchserver $name exited:" >&2; cat "$OUT/$name/server-$r.log" >&2; exit 1; }
		loadgen=$OUT/loadgen
		[ -n "$LOADGEN_EACH" ] && loadgen=$OUT/$name/loadgen
		"$loadgen" run -grpc "$GRPC_ADDR" -http "$HTTP_ADDR" -server-pid "$SERVER_PID" -warmup 2s -duration 8s \
			-conc 16,64 -conns 4 -rss-duration 0 -only "$ONLY" "${EXTRA[@]}" -workdir "$OUT" \
			-out "$OUT/$name/round-$r.json" >"$OUT/$name/loadgen-$r.log" 2>&1
		kill "$SERVER_PID" && wait "$SERVER_PID" 2>/dev/null || true
		SERVER_PID=
		echo "round $r $name done"
	done
done
trap - EXIT

BASE_NAME=$BASE
[ "$BASE" = - ] && BASE_NAME="work tree"
[ -n "$BASE_TAGS" ] && BASE_NAME="$BASE_NAME (tags $BASE_TAGS)"
python3 - "$OUT" "$ROUNDS" "$BASE_NAME" "${CHANGED:-work tree}" <<'PY'
import json, os, statistics, sys
out, rounds, base, changed = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rows, batch = {}, {}
for name in ("base", "changed"):
    for r in range(1, rounds + 1):
        d = json.load(open(f"{out}/{name}/round-{r}.json"))
        s = {(x["id"], x["concurrency"]): x["calls_per_sec"] for x in d["scenarios"]}
        if ("e", 16) in s:
            batch.setdefault(name, []).append(s[("e", 16)])
        for c in (16, 64):
            rows.setdefault((name, c), []).append(
                (s[("a", c)], s[("a", c)] / s[("b*", c)], s[("c", c)], s[("c", c)] / s[("d*", c)]))
mix = " with the provider mix" if os.environ.get("ERRSVC_BENCH_PROVIDER_MIX") == "1" else ""
if os.environ.get("ERRSVC_AB_LOADGEN") == "each":
    mix += ", each with its own load generator"
print(f"base {base}, changed {changed}{mix}: medians of {rounds} interleaved rounds (the rounds' range in brackets)")
print("| callers | revision | a calls/s | a/b* | c calls/s | c/d* |")
print("|---:|---|---:|---:|---:|---:|")
for c in (16, 64):
    med = {}
    for name in ("base", "changed"):
        cols = list(zip(*rows[(name, c)]))
        med[name] = [statistics.median(col) for col in cols]
        a, ab, cc, cd = cols
        print(f"| {c} | {name} | {med[name][0]:.0f} [{min(a):.0f}–{max(a):.0f}] | {med[name][1]:.3f} [{min(ab):.3f}–{max(ab):.3f}]"
              f" | {med[name][2]:.0f} [{min(cc):.0f}–{max(cc):.0f}] | {med[name][3]:.3f} [{min(cd):.3f}–{max(cd):.3f}] |")
    da = 100 * (med["changed"][0] / med["base"][0] - 1)
    dc = 100 * (med["changed"][2] / med["base"][2] - 1)
    print(f"| {c} | change | {da:+.1f}% | | {dc:+.1f}% | |")
# The same, for bench/run.sh's report (bench/cmd/loadgen, report_growth.go):
# per callers and revision, each column's rounds in order.
names = ("a", "a/b*", "c", "c/d*")
summary = {"base": base, "changed": changed, "rounds": rounds, "mix": mix.strip(", "),
           "rows": [{"callers": c, "revision": name, **{k: list(col) for k, col in zip(names, zip(*rows[(name, c)]))}}
                    for c in (16, 64) for name in ("base", "changed")]}
json.dump(summary, open(f"{out}/summary.json", "w"), indent=1)
if batch:
    med = {name: statistics.median(v) for name, v in batch.items()}
    print()
    print("| TranslateBatch ×100, 16 callers | calls/s |")
    print("|---|---:|")
    for name in ("base", "changed"):
        print(f"| {name} | {med[name]:.0f} [{min(batch[name]):.0f}–{max(batch[name]):.0f}] |")
    print(f"| change | {100 * (med['changed'] / med['base'] - 1):+.1f}% |")
PY
