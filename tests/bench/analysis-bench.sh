#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Figures of the offline analysis (never pass/fail):
#
#   analysis-bench.sh [-b BUILD_DIR] [-e EVENTS]... [-r RUNS] [-k] [TRACE_DIR...]
#
# For each trace (given, or recorded here from examples/slub-workload with
# about EVENTS events each: default 1M and 5M), in the same run:
#   - babeltrace2 TRACE -c sink.utils.dummy   (decoding alone)
#   - slubtrace check TRACE
#   - slubtrace timeline --json TRACE >/dev/null
# events per second (events / wall time), peak RSS (/usr/bin/time -v) and
# check's rate as a share of the dummy sink's.  Each command runs RUNS times
# (default 3), interleaved; the shortest wall time is kept (the machine's
# other load only ever adds time) and the largest peak RSS.
#
# Recording needs a session daemon: as root, run this as another user (the
# global one would be used), or give traces recorded beforehand.  -k keeps
# the recorded traces (their directory is printed).
set -eu

build=build
keep=0
runs=3
targets=""
traces=""
while [ $# -gt 0 ]; do
	case "$1" in
	-b) build=$2; shift 2 ;;
	-e) targets="$targets $2"; shift 2 ;;
	-k) keep=1; shift ;;
	-r) runs=$2; shift 2 ;;
	-h|--help) sed -n '3,22p' "$0"; exit 0 ;;
	*) traces="$traces $1"; shift ;;
	esac
done
[ -n "$targets" ] || targets="1000000 5000000"
slubtrace=$build/src/cli/slubtrace
workload=$build/examples/slub-workload
for tool in babeltrace2 /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "$tool is needed" >&2; exit 2; }
done
[ -x "$slubtrace" ] || { echo "no $slubtrace: build first" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/slubtrace-abench-XXXXXX")
if [ "$keep" = 1 ]; then
	echo "traces kept in $work" >&2
else
	trap 'rm -rf "$work"' EXIT
fi

count_events() {
	babeltrace2 "$1" -c sink.utils.counter -p 'step=+0' 2>/dev/null |
		awk '/ Event messages/ { n = $1 } END { gsub(",", "", n); print n + 0 }'
}

# One slub-workload message is about 3.4 trace events with the default
# record options (measured here; the figure only sizes the run).
record() {
	want=$1
	dir=$work/trace-$want
	msgs=$(( want * 10 / 34 / 16 / 3 ))
	"$slubtrace" record --no-check --buffer-size 64M -o "$dir" -- \
		"$workload" -g 4 -t 4 -m "$msgs" -r 3 >"$work/record-$want.log" 2>&1 || {
		cat "$work/record-$want.log" >&2
		exit 2
	}
	echo "$dir"
}

# run NAME CMD...: prints "NAME wall_s peak_rss_kib"
measure() {
	name=$1
	shift
	/usr/bin/time -v -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || true
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":");
		s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$work/time")
	rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/time")
	echo "$name $wall $rss"
}

if [ -z "$traces" ]; then
	for n in $targets; do
		traces="$traces $(record "$n")"
	done
fi

printf '%-10s %-34s %10s %9s %12s %9s %7s\n' events command wall_s "" events/s rss_MiB "%dummy"
for t in $traces; do
	events=$(count_events "$t")
	dummy_rate=0
	: >"$work/runs"
	i=0
	while [ "$i" -lt "$runs" ]; do
		for spec in dummy check timeline; do
			case $spec in
			dummy) set -- babeltrace2 "$t" -c sink.utils.dummy ;;
			check) set -- "$slubtrace" check "$t" ;;
			timeline) set -- "$slubtrace" timeline --json "$t" ;;
			esac
			measure "$spec" "$@" >>"$work/runs"
		done
		i=$((i + 1))
	done
	for spec in dummy check timeline; do
		awk -v s="$spec" '$1 == s { if (w == "" || $2 < w) w = $2; if ($3 > r) r = $3 }
			END { print s, w, r }' "$work/runs" >"$work/m"
		read -r name wall rss <"$work/m"
		rate=$(awk -v e="$events" -v w="$wall" 'BEGIN { printf "%.0f", (w > 0 ? e / w : 0) }')
		[ "$spec" = dummy ] && dummy_rate=$rate
		share=$(awk -v r="$rate" -v d="$dummy_rate" 'BEGIN { printf "%.0f", (d > 0 ? 100 * r / d : 0) }')
		printf '%-10s %-34s %10s %9s %12s %9s %7s\n' "$events" "$spec" "$wall" "" "$rate" \
			"$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')" "$share"
	done
done
