#!/usr/bin/env bash
# Install the build tree into a scratch prefix, then build a program
# against it twice: with find_package(slubtrace) and with pkg-config.
#   check-install.sh SOURCE_DIR BUILD_DIR SCRATCH_DIR
set -euo pipefail
src=$1 build=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
test -f "$scratch/prefix/include/slub/slub.h"
test -f "$scratch/prefix/lib/pkgconfig/slubtrace.pc"
cmake -S "$src/examples/consumer" -B "$scratch/cmake" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/cmake" >/dev/null
out=$(LD_LIBRARY_PATH="$scratch/prefix/lib" "$scratch/cmake/consumer")
echo "find_package: $out"
[[ $out == "consumer: consumer, validate 0, destroy 0" ]]
export PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig"
cc -o "$scratch/consumer-pc" "$src/examples/consumer/main.c" $(pkg-config --cflags --libs slubtrace)
out=$(LD_LIBRARY_PATH="$scratch/prefix/lib" "$scratch/consumer-pc")
echo "pkg-config: $out"
[[ $out == "consumer: consumer, validate 0, destroy 0" ]]
