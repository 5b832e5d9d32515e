#!/bin/bash
# SPDX-License-Identifier: MIT
# Figures, not a test: wall time and peak resident set of the real-program
# workloads (workloads.sh) under glibc malloc, jemalloc, mimalloc and
# slubtrace, side by side, as a markdown table.
#
#   real-programs-bench.sh [-r RUNS] [-d] [-t SLUBTRACE] LIBSLUB_MALLOC [WORKLOAD...]
#
#   -r RUNS   runs per cell; the median wall time and the median peak RSS
#             are shown (default 3)
#   -d        also a slubtrace column with SLUBTRACE_DEBUG=FZP
#   -t SLUBTRACE  also two traced columns: `SLUBTRACE record` (transition
#             events, its default buffers) and glibc with LTTng's libc
#             wrapper (lttng_ust_libc:*, a session set up here with the same
#             contexts vpid, vtid, 4M x 8 buffers per CPU);
#             wall time and trace size, then the time each tracer adds to
#             its untraced run (slubtrace, glibc) and their ratio
#
# Traced cells time the workload alone (/usr/bin/time inside the session),
# not the session set-up; they need a session daemon, started here when
# none answers (run as a user to keep it private: as root it is the
# global one).
# Peak RSS is /usr/bin/time's %M: the largest resident set of any process of
# the workload (the programs run one after the other).  An allocator whose
# library is missing gets "n/a".
set -u

runs=3
debug=0
slubtrace=""
while getopts "r:dt:" o; do
	case $o in
	r) runs=$OPTARG ;;
	d) debug=1 ;;
	t) slubtrace=$(readlink -f "$OPTARG") ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: $0 [-r RUNS] [-d] [-t SLUBTRACE] LIBSLUB_MALLOC [WORKLOAD...]"; exit 2; }
shim=$(readlink -f "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)
. "$here/workloads.sh"
workloads=${*:-$SHIM_WORKLOADS}
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)"; exit 2; }

libdir=/usr/lib/x86_64-linux-gnu
names=(glibc jemalloc mimalloc slubtrace)
preloads=("" "$libdir/libjemalloc.so.2" "$libdir/libmimalloc.so.2" "$shim")
envs=("" "" "" "")
if [ $debug = 1 ]; then
	names+=("slubtrace FZP")
	preloads+=("$shim")
	envs+=("SLUBTRACE_DEBUG=FZP")
fi

wrapper=$libdir/liblttng-ust-libc-wrapper.so.1
if [ -n "$slubtrace" ]; then
	names+=("slubtrace traced" "libc-wrap traced")
	preloads+=("$shim" "$wrapper")
	envs+=("" "")
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/shim-bench.XXXXXX")
sessiond=""
cleanup() {
	[ -n "$sessiond" ] && kill "$sessiond" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
chmod 755 "$tmp"
if [ -n "$slubtrace" ] && ! lttng --no-sessiond list >/dev/null 2>&1; then
	lttng-sessiond --no-kernel --daemonize >/dev/null 2>&1 || { echo "lttng-sessiond failed"; exit 2; }
	for _ in $(seq 50); do
		lttng --no-sessiond list >/dev/null 2>&1 && break
		sleep 0.1
	done
	pf=${LTTNG_HOME:-$HOME}/.lttng/lttng-sessiond.pid
	[ "$(id -u)" = 0 ] && pf=/var/run/lttng/lttng-sessiond.pid
	sessiond=$(cat "$pf" 2>/dev/null)
fi

# run_traced NAME WORKLOAD -> "seconds KiB bytes" of one run, or nothing
run_traced() {
	local name=$1 wl=$2 s="shimbench-$$"
	rm -rf "$tmp/run" "$tmp/trace" && mkdir "$tmp/run"
	local inner=(/usr/bin/time -o "$tmp/t" -f "%e %M" bash -c '. "$1"; "wl_$2" "$3"' _
		"$here/workloads.sh" "$wl" "$tmp/run")
	if [ "$name" = "slubtrace traced" ]; then
		"$slubtrace" record -o "$tmp/trace" -- "${inner[@]}" >/dev/null 2>"$tmp/err" || return
	else
		{ lttng create "$s" --output="$tmp/trace" &&
		  lttng enable-channel -u --session="$s" --subbuf-size=4M --num-subbuf=8 c &&
		  lttng enable-event -u --session="$s" --channel=c 'lttng_ust_libc:*' &&
		  lttng add-context -u --session="$s" --channel=c --type=vpid --type=vtid &&
		  lttng start "$s"; } >/dev/null 2>&1 || { lttng destroy "$s" >/dev/null 2>&1; return; }
		LD_PRELOAD=$wrapper "${inner[@]}" >/dev/null 2>"$tmp/err"
		local rc=$?
		lttng destroy "$s" >/dev/null 2>&1
		[ $rc = 0 ] || return
	fi
	echo "$(tail -1 "$tmp/t") $(du -sb "$tmp/trace" | cut -f1)"
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# cell WORKLOAD INDEX -> "seconds KiB" (medians) or "n/a"
cell() {
	local wl=$1 i=$2 r pre=${preloads[$2]} extra=${envs[$2]}
	if [ -n "$pre" ] && [ ! -f "$pre" ]; then
		echo "n/a"
		return
	fi
	: >"$tmp/times"
	if [ "${names[$i]}" = "slubtrace traced" ] || [ "${names[$i]}" = "libc-wrap traced" ]; then
		for r in $(seq 1 "$runs"); do
			local one
			one=$(run_traced "${names[$i]}" "$wl")
			[ -n "$one" ] || { echo "failed"; return; }
			echo "$one" >>"$tmp/times"
		done
		echo "$(cut -d' ' -f1 "$tmp/times" | median) $(cut -d' ' -f2 "$tmp/times" | median)" \
			"$(cut -d' ' -f3 "$tmp/times" | median)"
		return
	fi
	for r in $(seq 1 "$runs"); do
		rm -rf "$tmp/run" && mkdir "$tmp/run"
		if ! /usr/bin/time -o "$tmp/t" -f "%e %M" env ${pre:+LD_PRELOAD=$pre} $extra \
			bash -c '. "$1"; "wl_$2" "$3"' _ "$here/workloads.sh" "$wl" "$tmp/run" \
			>/dev/null 2>"$tmp/err"; then
			echo "failed"
			return
		fi
		tail -1 "$tmp/t" >>"$tmp/times"
	done
	echo "$(cut -d' ' -f1 "$tmp/times" | median) $(cut -d' ' -f2 "$tmp/times" | median)"
}

echo "Real programs: median of $runs run(s), wall seconds / peak RSS MiB"
echo "($(nproc) cpus, $(uname -r), $(ldd --version | head -1 | sed 's/^ldd //'))"
echo
header="| workload |"
rule="|---|"
for n in "${names[@]}"; do
	header+=" $n |"
	rule+="---|"
done
header+=" slubtrace / glibc (time, RSS) |"
rule+="---|"
if [ -n "$slubtrace" ]; then
	header+=" added time: slubtrace traced, libc-wrap traced (wrapper / slubtrace) |"
	rule+="---|"
fi
echo "$header"
echo "$rule"
for wl in $workloads; do
	line="| $wl |"
	base=""
	ratio="-"
	declare -A t=()
	for i in "${!names[@]}"; do
		c=$(cell "$wl" "$i")
		case $c in
		n/a | failed) line+=" $c |" ;;
		*)
			set -- $c
			t[${names[$i]}]=$1
			if [ $# = 3 ]; then
				line+=" $(printf '%.2f s / %.1f MiB trace' "$1" "$(echo "$3 / 1048576" | bc -l)") |"
				continue
			fi
			line+=" $(printf '%.2f s / %.1f MiB' "$1" "$(echo "$2 / 1024" | bc -l)") |"
			[ "$i" = 0 ] && base="$1 $2"
			if [ "${names[$i]}" = slubtrace ] && [ -n "$base" ]; then
				set -- $base $c
				ratio=$(printf '%.2fx, %.2fx' "$(echo "$3 / $1" | bc -l)" \
					"$(echo "$4 / $2" | bc -l)")
			fi
			;;
		esac
	done
	line+=" $ratio |"
	if [ -n "$slubtrace" ]; then
		added="-"
		if [ -n "${t[slubtrace traced]:-}" ] && [ -n "${t[libc-wrap traced]:-}" ] &&
			[ -n "${t[slubtrace]:-}" ] && [ -n "${t[glibc]:-}" ]; then
			as=$(echo "${t[slubtrace traced]} - ${t[slubtrace]}" | bc -l)
			aw=$(echo "${t[libc-wrap traced]} - ${t[glibc]}" | bc -l)
			added=$(printf '%+.2f s, %+.2f s' "$as" "$aw")
			if [ "$(echo "$as > 0.005" | bc)" = 1 ]; then
				added+=$(printf ' (%.1fx)' "$(echo "$aw / $as" | bc -l)")
			else
				added+=" (slubtrace adds nothing measurable)"
			fi
		fi
		line+=" $added |"
	fi
	echo "$line"
	unset t
done
