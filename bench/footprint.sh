#!/usr/bin/env bash
# bench/footprint.sh: the code and data one translation touches, counted by
# callgrind's cache simulator on a model of this machine's caches (sizes
# from sysfs). A
# microbenchmark times a translation on a core that ran nothing else; in
# the service the transport, the scheduler and other processes run
# between two translations, and what the translation then fetches anew is
# its footprint (docs/BENCHMARKS-DETAIL.md, "Light load").
#
#   bash bench/footprint.sh [SOURCE ...]     (default: labby provider)
#
# For each source, bench/cmd/footprint translates the source's benchmark
# request (bench/internal/floors) four times under callgrind, which counts
# only inside the translation and dumps before each one; the fourth dump
# (the third translation: the first runs start-up paths) is one
# translation's:
#   - back to back: its instructions, the distinct 64-byte lines of code
#     they come from (the code a core runs for it), and its L1i misses
#     (code that does not stay in the L1i from one translation to the next);
#   - with 8 MiB written before each translation (-evict), as other work
#     would between two calls: the data and code lines it fetched from
#     beyond the L2. The writes touch no code, so code that fits the L1i
#     stays there.
# Needs valgrind (Debian: apt-get install valgrind); asynchronous
# preemption is off (its signals trip callgrind). About 20 s per run under
# valgrind; writes only bench/out/footprint.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "bench/footprint.sh needs valgrind (apt-get install valgrind)" >&2; exit 1; }
OUT=$PWD/bench/out/footprint
rm -rf "$OUT" && mkdir -p "$OUT"
(cd bench && go build -o "$OUT/footprint" ./cmd/footprint)
SOURCES=("$@")
[ ${#SOURCES[@]} -gt 0 ] || SOURCES=(labby provider)

# cache LEVEL TYPE DEFAULT: cachegrind's size,ways,line for cpu0's cache of
# that level and type, or DEFAULT when sysfs does not say.
cache() {
	local d
	for d in /sys/devices/system/cpu/cpu0/cache/index*; do
		if [ "$(cat "$d/level" 2>/dev/null)" = "$1" ] && [ "$(cat "$d/type" 2>/dev/null)" = "$2" ]; then
			echo "$(($(sed 's/K$//' "$d/size") * 1024)),$(cat "$d/ways_of_associativity"),$(cat "$d/coherency_line_size")"
			return
		fi
	done
	echo "$3"
}
I1=$(cache 1 Instruction 32768,8,64)
D1=$(cache 1 Data 49152,12,64)
LL=$(cache 2 Unified 2097152,16,64)
LINE=${I1##*,}

# measure SOURCE MODE: one translation's "Ir distinct-code-lines I1mr ILmr
# DLmr+DLmw" (MODE evict: after 8 MiB written).
measure() {
	local f=$OUT/callgrind.$1.$2 flag=
	[ "$2" = evict ] && flag=-evict
	GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 GOGC=off valgrind --tool=callgrind --cache-sim=yes \
		--I1="$I1" --D1="$D1" --LL="$LL" --dump-instr=yes --dump-line=no --compress-pos=no --compress-strings=no \
		--toggle-collect='github.com/errsvc/errsvc/translate.translateInto' \
		--dump-before='github.com/errsvc/errsvc/translate.translateInto' \
		--callgrind-out-file="$f" "$OUT/footprint" -source "$1" -n 4 $flag 2>>"$OUT/valgrind.log"
	# Events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw. A cost line
	# ("0x<address> <events>") after a "calls=" line is the call's
	# inclusive cost: its address counts as code run, its events not.
	awk -v line="$LINE" '
		function hex(s,   n, i) { n = 0; for (i = 3; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return n }
		/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i }
		/^summary:/ { for (k in col) sum[k] = $(col[k]) }
		/^calls=/ { call = 1; next }
		/^0x/ { seen[int(hex($1) / line)] = 1; call = 0 }
		END { for (k in seen) n++; print sum["Ir"], n, sum["I1mr"], sum["ILmr"], sum["DLmr"] + sum["DLmw"] }' "$f.4"
}

echo "caches: L1i $I1, L1d $D1, L2 (callgrind's last level) $LL (size,ways,line)"
echo
echo "| source | instructions | code they run | L1i misses back to back | after 8 MiB: code fetched | data fetched |"
echo "|---|---:|---:|---:|---:|---:|"
for src in "${SOURCES[@]}"; do
	read -r ir code i1 _ _ <<<"$(measure "$src" hot)"
	read -r _ _ _ il dl <<<"$(measure "$src" evict)"
	awk -v src="$src" -v line="$LINE" -v ir="$ir" -v code="$code" -v i1="$i1" -v il="$il" -v dl="$dl" 'BEGIN {
		printf "| %s | %d | %d lines (%.0f KiB) | %d lines | %d lines (%.0f KiB) | %d lines (%.0f KiB) |\n",
			src, ir, code, code * line / 1024, i1, il, il * line / 1024, dl, dl * line / 1024
	}'
done
