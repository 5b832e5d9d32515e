#!/bin/sh
# SPDX-License-Identifier: MIT
# Benchmarks of slubtrace side by side with glibc, jemalloc, mimalloc and
# tcmalloc, untraced and traced.  Writes a markdown report (default
# tests/bench/results/latest.md) and prints it.
#
#   tests/bench/run-bench.sh [--quick] [--out FILE] [--help for more]
#
# Expects build-bench (tracing compiled in) and build-bench-notrace
# (-DSLUB_TRACE=OFF), both Release, at the top of the source tree, or
# --build/--build-notrace pointing elsewhere.
here=$(cd "$(dirname "$0")" && pwd)
SLUB_BENCH_COMMAND="tests/bench/run-bench.sh${*:+ $*}"
export SLUB_BENCH_COMMAND
exec python3 "$here/run_bench.py" "$@"
