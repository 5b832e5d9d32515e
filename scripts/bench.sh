#!/usr/bin/env bash
# Benchmarks side by side with the peers: install what is missing, build
# the two Release trees the harness compares (tracing compiled in, and
# compiled out), run tests/bench/run-bench.sh (which also times the
# `lock cmpxchg16b` floor and one event of each class), then
# tests/bench/tracing-cost.sh (record's figures and process start beside
# the libc wrapper; BENCH_BEFORE=BUILD_DIR adds another build's, before
# and after).  Never pass/fail on time.  The two allocator generations
# side by side need a tree with the tests:
# tests/bench/generations.sh -n medium build (see tests/bench/README.md).
#
#   [BENCH_BEFORE=DIR] scripts/bench.sh [--quick] [--out FILE] [run-bench options...]
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
	sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
	exec tests/bench/run-bench.sh --help
fi
bash scripts/setup.sh bench
for d in build-bench:ON build-bench-notrace:OFF; do
	dir=${d%%:*} trace=${d##*:}
	echo "bench: building $dir (SLUB_TRACE=$trace, Release)"
	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DSLUB_TRACE="$trace" \
		-DSLUB_BUILD_TESTS=OFF -DSLUB_BUILD_BENCH=ON >"$dir.configure.log" 2>&1 ||
		{ cat "$dir.configure.log"; exit 1; }
	cmake --build "$dir" -j "$(nproc)" >"$dir.build.log" 2>&1 ||
		{ cat "$dir.build.log"; exit 1; }
done
tests/bench/run-bench.sh "$@"
# What slubtrace record writes, loses and costs on pipelines, and what it
# adds to the start of a process, beside the libc wrapper; BENCH_BEFORE=DIR
# (a build of another commit) adds its figures for a before/after.
echo
echo "bench: tracing cost (tests/bench/tracing-cost.sh)"
tests/bench/tracing-cost.sh -r 3 ${BENCH_BEFORE:+-b "$BENCH_BEFORE"} build-bench
