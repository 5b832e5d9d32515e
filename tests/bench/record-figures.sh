#!/bin/bash
# SPDX-License-Identifier: MIT
# Figures, not a test: what `slubtrace record` with its default buffers
# writes and loses on the bundled workload (examples/slub-workload, default
# arguments: 4 groups x 4+4 threads, 3 rounds), on a 32-thread pipeline
# (hackbench -g 4 -f 4 -Q -l 6000) and on the same pipeline five times as
# long (-l 30000: event-dense, 2.5M events), per build: events, discarded
# events, trace bytes, bytes per event, wall seconds, and the program's own
# time (hackbench's "Time:") beside its untraced time on the shim.  Give two
# builds (say, before and after a change of record's defaults or of the
# wire format) to compare them; the workload programs come from the first
# build.  The last rows are the LTTng libc wrapper (lttng_ust_libc:*, the
# same contexts) on the same workloads, for its bytes per event (its
# discarded events "?" where lttng reports the count as not known).
#
#   record-figures.sh [-r RUNS] BUILD [BUILD...]
#
# Each build directory must hold src/cli/slubtrace and the libraries it
# finds next to it.  slubtrace record starts a session daemon when none
# answers (as root: the global one; run as a user to keep it private).
set -u
runs=3
while getopts "r:" o; do
	case $o in
	r) runs=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: $0 [-r RUNS] BUILD [BUILD...]"; exit 2; }
first=$(readlink -f "$1")
workloads=(
	"bundled workload|$first/examples/slub-workload"
	"32-thread pipeline|$first/tests/bench/hackbench -g 4 -f 4 -Q -l 6000"
	"event-dense pipeline|$first/tests/bench/hackbench -g 4 -f 4 -Q -l 30000"
)
wrapper=$(ls /usr/lib/*/liblttng-ust-libc-wrapper.so.1 2>/dev/null | head -1)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/record-figures.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| build | workload | events (median) | discarded (each run) | trace bytes | bytes/event | wall s | program s (untraced) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for b in "$@"; do
	b=$(readlink -f "$b")
	for w in "${workloads[@]}"; do
		label=${w%%|*} cmd=${w#*|}
		ev=() disc=() bytes=() wall=() prog=() bare=()
		for r in $(seq 1 "$runs"); do
			rm -rf "$tmp/t"
			t0=$(date +%s.%N)
			out=$("$b/src/cli/slubtrace" record -o "$tmp/t" -- $cmd 2>&1)
			t1=$(date +%s.%N)
			prog+=("$(sed -n 's/^Time: //p' <<<"$out" | tail -1)")
			[[ -n ${prog[-1]} ]] && bare+=("$(LD_PRELOAD=$b/src/shim/libslub-malloc.so $cmd \
				2>&1 | sed -n 's/^Time: //p' | tail -1)")
			line=$(grep -o 'events: [0-9]* recorded, [0-9]* discarded' <<<"$out" | tail -1)
			ev+=("$(awk '{ print $2 }' <<<"$line")")
			disc+=("$(awk '{ print $4 }' <<<"$line")")
			bytes+=("$(du -sb "$tmp/t" | cut -f1)")
			wall+=("$(echo "$t1 - $t0" | bc)")
		done
		e=$(med "${ev[@]}") by=$(med "${bytes[@]}") wl=$(med "${wall[@]}")
		pt="-"
		[[ -n ${prog[0]} ]] && pt="$(med "${prog[@]}") ($(med "${bare[@]}"))"
		printf '| %s | %s | %s | %s | %s | %.1f | %.2f | %s |\n' "$(basename "$(dirname "$b")")/$(basename "$b")" \
			"$label" "$e" "${disc[*]}" "$by" "$(echo "$by / $e" | bc -l)" "$wl" "$pt"
	done
done

# The libc wrapper on the same workloads, in a session like record's.
[[ -n $wrapper ]] && command -v lttng >/dev/null || exit 0
started=0
if ! lttng list >/dev/null 2>&1; then
	lttng-sessiond --no-kernel --daemonize >/dev/null 2>&1 && started=1
	for _ in $(seq 50); do lttng list >/dev/null 2>&1 && break; sleep 0.1; done
fi
for w in "${workloads[@]}"; do
	label=${w%%|*} cmd=${w#*|}
	ev=() disc=() bytes=() wall=() prog=()
	for r in $(seq 1 "$runs"); do
		s=figures-$$-$r
		rm -rf "$tmp/t"
		lttng create "$s" --output="$tmp/t" >/dev/null &&
			lttng enable-channel -u --session="$s" --subbuf-size=4M --num-subbuf=8 c >/dev/null &&
			lttng enable-event -u --session="$s" --channel=c 'lttng_ust_libc:*' >/dev/null &&
			lttng add-context -u --session="$s" --channel=c -t vpid -t vtid >/dev/null &&
			lttng start "$s" >/dev/null || { lttng destroy "$s" >/dev/null 2>&1; continue; }
		t0=$(date +%s.%N)
		out=$(LD_PRELOAD=$wrapper $cmd 2>&1)
		t1=$(date +%s.%N)
		lttng stop "$s" >/dev/null
		# a count of 19 digits or more is lttng's "not known" (-1 as unsigned)
		d=$(lttng list "$s" | grep -o 'Discarded events: [0-9]*' |
			awk '{ if (length($3) > 18) u = 1; else s += $3 }
			     END { if (u) print "?"; else printf "%d\n", s }')
		lttng destroy "$s" >/dev/null
		ev+=("$(babeltrace2 "$tmp/t" 2>/dev/null | wc -l)")
		disc+=("$d")
		bytes+=("$(du -sb "$tmp/t" | cut -f1)")
		wall+=("$(echo "$t1 - $t0" | bc)")
		prog+=("$(sed -n 's/^Time: //p' <<<"$out" | tail -1)")
	done
	[[ ${#ev[@]} -gt 0 ]] || continue
	e=$(med "${ev[@]}") by=$(med "${bytes[@]}") wl=$(med "${wall[@]}")
	pt="-"
	[[ -n ${prog[0]} ]] && pt=$(med "${prog[@]}")
	printf '| libc-wrap | %s | %s | %s | %s | %.1f | %.2f | %s |\n' "$label" "$e" "${disc[*]}" \
		"$by" "$(echo "$by / $e" | bc -l)" "$wl" "$pt"
done
if ((started)); then
	pf=${LTTNG_HOME:-$HOME}/.lttng/lttng-sessiond.pid
	[[ $(id -u) == 0 ]] && pf=/var/run/lttng/lttng-sessiond.pid
	[[ -f $pf ]] && kill "$(cat "$pf")" 2>/dev/null
fi
