#!/bin/sh
# run_fuzz.sh SRC BIN GENERATOR TARGET SECONDS WORK: one fuzz target of a
# nested clang build (BIN, shared by the targets), built with libFuzzer,
# ASan and UBSan; its regression inputs (regress/TARGET, less those that
# regress/TARGET/OPEN lists), then SECONDS of fuzzing from the committed
# seeds (seeds/TARGET) into WORK/corpus.  Exit 77 when clang cannot link
# a libFuzzer target here.
set -u
SRC=$1 BIN=$2 GENERATOR=$3 TARGET=$4 SECONDS=$5 WORK=$6
FZ=$SRC/tests/fuzz
mkdir -p "$WORK/corpus"
CLANG=$(command -v clang-14 || command -v clang) || {
	echo "fuzz: no clang: skipped (install clang, which brings libFuzzer)"
	exit 77
}
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }\n' \
	>"$WORK/probe.c"
if ! "$CLANG" -fsanitize=fuzzer,address,undefined "$WORK/probe.c" -o "$WORK/probe" \
	>"$WORK/probe.log" 2>&1; then
	echo "fuzz: $CLANG cannot link a libFuzzer target: skipped"
	cat "$WORK/probe.log"
	exit 77
fi
cmake -S "$SRC" -B "$BIN" -G "$GENERATOR" -DCMAKE_C_COMPILER="$CLANG" -DSLUB_NESTED=ON \
	-DSLUB_BUILD_BENCH=OFF -DSLUB_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$WORK/configure.log" 2>&1 || {
	cat "$WORK/configure.log"
	echo "fuzz: nested configure failed"
	exit 1
}
cmake --build "$BIN" --target "fuzz_$TARGET" --parallel 2 || {
	echo "fuzz: nested build of fuzz_$TARGET failed"
	exit 1
}
F=$(find "$BIN" -name "fuzz_$TARGET" -type f -perm -u+x | head -n 1)
[ -n "$F" ] || { echo "fuzz: fuzz_$TARGET not built"; exit 1; }

# The regression inputs: each a crash, hang or broken bound found once.
open=$FZ/regress/$TARGET/OPEN
set --
for f in "$FZ/regress/$TARGET"/*; do
	[ -f "$f" ] || continue
	name=${f##*/}
	[ "$name" = OPEN ] && continue
	if [ -f "$open" ] && grep -q "^$name " "$open"; then
		echo "fuzz: $name left out: an open bug (regress/$TARGET/OPEN)"
		continue
	fi
	set -- "$@" "$f"
done
if [ $# -gt 0 ]; then
	echo "fuzz: fuzz_$TARGET on $# regression input(s)"
	"$F" -timeout=25 -rss_limit_mb=2048 "$@" || { echo "fuzz: a regression input failed"; exit 1; }
fi

# Then fuzzing.  A hang listed open makes hangs non-fatal (fork mode)
# until it is fixed; crashes and broken bounds still fail the test.
mode=
if [ -f "$open" ] && grep -q "^[^ ]* hang " "$open"; then
	mode="-fork=1 -ignore_timeouts=1"
	echo "fuzz: regress/$TARGET/OPEN lists an open hang: hangs found now are reported, not fatal"
fi
echo "fuzz: fuzz_$TARGET for $SECONDS s from $FZ/seeds/$TARGET"
# shellcheck disable=SC2086
"$F" $mode -max_total_time="$SECONDS" -timeout=25 -rss_limit_mb=2048 -max_len=65536 \
	-print_final_stats=1 -artifact_prefix="$WORK/" "$WORK/corpus" "$FZ/seeds/$TARGET" \
	>"$WORK/fuzz.log" 2>&1
rc=$?
grep -E "^(stat::|#[0-9]+ *DONE|INFO: fuzzed for|==[0-9]+== ERROR|SUMMARY)" "$WORK/fuzz.log" | tail -n 20
for a in "$WORK"/timeout-*; do
	[ -f "$a" ] && echo "fuzz: a hang found: $a"
done
if [ $rc -ne 0 ]; then
	tail -n 60 "$WORK/fuzz.log"
	echo "fuzz: fuzz_$TARGET found a failure (reproducer in $WORK/, see the log above)"
	exit 1
fi
echo "fuzz: fuzz_$TARGET: no failure in $SECONDS s"
