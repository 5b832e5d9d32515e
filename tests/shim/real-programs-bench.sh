#!/bin/bash
# SPDX-License-Identifier: MIT
# Figures, not a test: wall time and peak resident set of the real-program
# workloads (workloads.sh) under glibc malloc, jemalloc, mimalloc and
# slubtrace, side by side, as a markdown table.
#
#   real-programs-bench.sh [-r RUNS] [-d] LIBSLUB_MALLOC [WORKLOAD...]
#
#   -r RUNS   runs per cell; the median wall time and the median peak RSS
#             are shown (default 3)
#   -d        also a slubtrace column with SLUBTRACE_DEBUG=FZP
#
# Peak RSS is /usr/bin/time's %M: the largest resident set of any process of
# the workload (the programs run one after the other).  An allocator whose
# library is missing gets "n/a".
set -u

runs=3
debug=0
while getopts "r:d" o; do
	case $o in
	r) runs=$OPTARG ;;
	d) debug=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: $0 [-r RUNS] [-d] LIBSLUB_MALLOC [WORKLOAD...]"; exit 2; }
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

tmp=$(mktemp -d "${TMPDIR:-/tmp}/shim-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

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
echo "$header"
echo "$rule"
for wl in $workloads; do
	line="| $wl |"
	base=""
	ratio="-"
	for i in "${!names[@]}"; do
		c=$(cell "$wl" "$i")
		case $c in
		n/a | failed) line+=" $c |" ;;
		*)
			set -- $c
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
	echo "$line $ratio |"
done
