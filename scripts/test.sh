#!/usr/bin/env bash
# The whole test suite: install what is missing, build, run ctest.
#
#   scripts/test.sh [ctest arguments...]     e.g. scripts/test.sh -L unit
#
# Environment: BUILD_DIR (default build), JOBS (default: nproc).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh test
build=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build.configure.log" 2>&1 ||
	{ cat "$build.configure.log"; exit 1; }
grep -E '^-- +SLUB_|slubtrace options' "$build.configure.log" || true
if ! cmake --build "$build" -j "$jobs" >"$build.build.log" 2>&1; then
	cat "$build.build.log"
	echo "test.sh: build failed (log: $build.build.log)" >&2
	exit 1
fi
grep -E 'warning|error' "$build.build.log" || true
cd "$build"
ctest --output-on-failure --timeout 900 -j "$jobs" "$@"
