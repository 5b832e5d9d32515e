#!/bin/sh
# SPDX-License-Identifier: MIT
# ctest bench_smoke: every benchmark program runs with tiny parameters to
# the end and prints its table, under the system malloc and (when built)
# under libslub-malloc.so; free-path.sh and fastpath.sh make one run;
# then the harness runs one --smoke round.
# Nothing here looks at a timing.
#
#   smoke.sh BIN_DIR [LIBSLUB_MALLOC]
set -u
bin=$1
shim=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
fails=0

# check LABEL EXPECTED_TEXT PROGRAM ARGS...
check() {
	label=$1 expect=$2
	shift 2
	if ! out=$("$@" -M 2>&1); then
		echo "FAIL $label: exit status $?"
		echo "$out" | tail -20
		fails=$((fails + 1))
		return
	fi
	for want in "$expect" "@wall_s " "@maxrss_kb "; do
		if ! printf '%s\n' "$out" | grep -q -- "$want"; then
			echo "FAIL $label: output lacks '$want'"
			echo "$out" | tail -20
			fails=$((fails + 1))
			return
		fi
	done
	echo "ok   $label"
}

run_all() {
	tag=$1
	shift
	check "$tag slab_test" "1 alloc N free test" \
		"$@" "$bin/slab_test" -n 300 -t 2 -s 1024 -S 256
	check "$tag slab_test table" "times malloc(8) -> " \
		"$@" "$bin/slab_test" -n 100 -T 1 -s 16
	check "$tag slab_test best of 3" "of 12 timed passes preempted (best of 3 kept)" \
		"$@" "$bin/slab_test" -n 100 -T 12 -s 16 -r 3
	check "$tag larson" "ns/op" "$@" "$bin/larson" -t 2 -e 3 -k 500 -c 64
	check "$tag xmalloc" "ns/obj" "$@" "$bin/xmalloc" -p 2 -c 2 -n 20000
	check "$tag cache_scratch" "ns/iter" "$@" "$bin/cache_scratch" -t 2 -i 500 -w 10
	check "$tag hackbench pipes" "Time: " "$@" "$bin/hackbench" -g 2 -f 3 -l 30
	check "$tag hackbench queues" "Time: " "$@" "$bin/hackbench" -g 2 -f 3 -l 30 -Q
}

run_all "glibc:" env
if [ -n "$shim" ]; then
	if [ -e "$shim" ]; then
		run_all "slub:" env LD_PRELOAD="$shim"
		# the cache calls, the shim's own: slab_test -c
		check "slub: slab_test -c" "times kmem_cache_zalloc(8) -> " \
			env LD_PRELOAD="$shim" "$bin/slab_test" -n 100 -T 12 -s 64 -c
	else
		echo "FAIL shim $shim not built"
		fails=$((fails + 1))
	fi
fi

# free-path.sh, one run: the table and the ratios come out.
if [ -n "$shim" ] && [ -e "$shim" ] && [ -e "$bin/../../src/shim/libslub-malloc.so" ]; then
	if out=$("$here/free-path.sh" -n 1 -b "$bin/../.." 2>&1) &&
		printf '%s\n' "$out" | grep -q "^| N x free(64) | [0-9]" &&
		printf '%s\n' "$out" | grep -q "slubtrace N x free / floor: median"; then
		echo "ok   free-path.sh"
	else
		echo "FAIL free-path.sh"
		printf '%s\n' "$out" | tail -10
		fails=$((fails + 1))
	fi
fi
# fastpath.sh, one round of test 2, the build against itself: the table
# and its ratio come out.
if [ -n "$shim" ] && [ -e "$shim" ] && [ -e "$bin/../../src/shim/libslub-malloc.so" ]; then
	if out=$("$here/fastpath.sh" -r 1 -T 2 "$bin/../.." "$bin/../.." 2>&1) &&
		printf '%s\n' "$out" | grep -Eq '^\| t2 pair \| 12 \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|$'; then
		echo "ok   fastpath.sh"
	else
		echo "FAIL fastpath.sh"
		printf '%s\n' "$out" | tail -10
		fails=$((fails + 1))
	fi
fi
# The harness, end to end on the programs above (no tracing, one round).
report=$(mktemp -d)
set --
if [ -n "$shim" ]; then
	set -- --slub-notrace-lib "$shim"
fi
if python3 "$here/run_bench.py" --smoke --bin-dir "$bin" --out "$report/smoke.md" "$@" \
	>"$report/stdout" 2>"$report/stderr"; then
	for want in "# slubtrace benchmarks" "## Time per operation" "| larson (ns/op) |" \
		"## Peak RSS" "## Targets" "Machine: "; do
		if ! grep -qF -- "$want" "$report/smoke.md"; then
			echo "FAIL harness: report lacks '$want'"
			fails=$((fails + 1))
		fi
	done
	if [ -n "$shim" ] && ! grep -q "^| peak RSS, slub-off" "$report/smoke.md"; then
		echo "FAIL harness: no target rows for slub-off"
		fails=$((fails + 1))
	fi
	echo "ok   harness --smoke"
else
	echo "FAIL harness --smoke"
	tail -20 "$report/stderr"
	fails=$((fails + 1))
fi
rm -rf "$report"

[ "$fails" -eq 0 ] && echo "bench smoke: all passed" && exit 0
echo "bench smoke: $fails failure(s)"
exit 1
