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
# events per second of CPU time (user + system: on a shared machine wall
# time mostly measures the other jobs) and of wall time, peak RSS
# (/usr/bin/time -v), and each rate as a share of the dummy sink's.  Each
# command runs RUNS times (default 3), interleaved; the smallest times are
# kept (other load only ever adds time) and the largest peak RSS.
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

# measure NAME CMD...: prints "NAME wall_s cpu_s peak_rss_kib"
measure() {
	name=$1
	shift
	/usr/bin/time -v -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || true
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":");
		s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$work/time")
	cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$work/time")
	rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/time")
	echo "$name $wall $cpu $rss"
}

if [ -z "$traces" ]; then
	for n in $targets; do
		traces="$traces $(record "$n")"
	done
fi

printf '%-10s %-9s %8s %8s %12s %7s %12s %7s %8s\n' events command wall_s cpu_s \
	ev/s_cpu %dummy ev/s_wall %dummy rss_MiB
for t in $traces; do
	events=$(count_events "$t")
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
	awk -v e="$events" '
		{ if (!($1 in w) || $2 < w[$1]) w[$1] = $2
		  if (!($1 in c) || $3 < c[$1]) c[$1] = $3
		  if ($4 > r[$1]) r[$1] = $4 }
		END {
			n = split("dummy check timeline", k, " ")
			for (i = 1; i <= n; i++) {
				s = k[i]
				rc = (c[s] > 0) ? e / c[s] : 0
				rw = (w[s] > 0) ? e / w[s] : 0
				if (s == "dummy") { dc = rc; dw = rw }
				printf "%-10s %-9s %8.2f %8.2f %12.0f %7.0f %12.0f %7.0f %8.1f\n", e, s,
					w[s], c[s], rc, ((dc > 0) ? 100 * rc / dc : 0), rw,
					((dw > 0) ? 100 * rw / dw : 0), r[s] / 1024
			}
		}' "$work/runs"
done
