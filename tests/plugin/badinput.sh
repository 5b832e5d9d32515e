#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Bad input for `slubtrace check`, `slubtrace timeline` and `slubtrace top`,
# no session daemon needed: each case must end with exit status 2 and
# exactly one line on standard error (starting "slubtrace: "), nothing on
# standard output, and no crash.
#
#   badinput.sh BUILD_DIR
#
# Cases: a missing path, a file, an empty directory, a directory that is
# not a trace, a truncated stream, a corrupted packet header, a corrupted
# metadata file, a trace of another provider only, a format-1 trace, a
# directory holding only metadata (its path named).  Then options that must
# be refused with a message saying what is wrong, before anything runs:
# help of no command, check --history/--max-reports out of range, storms
# --run-attempts 0, timeline --slab -1, --begin after --end, --cache of no
# slab in the trace (listing those it has), stats -o in a missing
# directory, record --stacks with an unknown event, top --interval, --sort
# and --live misused.
#
# Every command runs under timeout(1): a hang fails the case.
set -u

build=$1
slubtrace=$build/src/cli/slubtrace
mktrace=$build/tests/plugin/mktrace
work=$(mktemp -d "${TMPDIR:-/tmp}/slubtrace-bad-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0

expect_2() {
	what=$1
	shift
	for cmd in check timeline top; do
		timeout 120 "$slubtrace" "$cmd" "$@" >"$work/out" 2>"$work/err"
		rc=$?
		lines=$(wc -l <"$work/err")
		if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$work/out" ] ||
		   ! grep -q '^slubtrace: ' "$work/err"; then
			echo "FAIL $what ($cmd): exit $rc, $lines lines on stderr:"
			cat "$work/err" "$work/out" | head -20
			fail=1
		else
			echo "ok   $what ($cmd): $(cat "$work/err")"
		fi
	done
}

"$mktrace" clean "$work/good" || exit 1
"$mktrace" other "$work/other" || exit 1
"$mktrace" format1 "$work/format1" || exit 1

expect_2 "missing path" "$work/nonexistent"
: >"$work/file"
expect_2 "a file" "$work/file"
mkdir "$work/empty"
expect_2 "empty directory" "$work/empty"
mkdir -p "$work/notrace/sub"
echo "not a trace" >"$work/notrace/sub/README"
expect_2 "not a trace" "$work/notrace"

cp -r "$work/good" "$work/truncated"
size=$(wc -c <"$work/truncated/stream")
dd if="$work/good/stream" of="$work/truncated/stream" bs=1 count=$((size / 2)) 2>/dev/null
expect_2 "truncated stream" "$work/truncated"

cp -r "$work/good" "$work/corrupt"
printf '\336\255\276\357\336\255\276\357' |
	dd of="$work/corrupt/stream" conv=notrunc 2>/dev/null
expect_2 "corrupted packet header" "$work/corrupt"
expect_msg_2() {
	for cmd in check timeline; do
		expect_msg "$1 ($cmd)" "$2" "$cmd" "$3"
	done
}

cp -r "$work/good" "$work/badmeta"
printf 'event { name = ; }\n' >>"$work/badmeta/metadata"
expect_2 "corrupted metadata" "$work/badmeta"

expect_2 "another provider only" "$work/other"
expect_2 "format 1" "$work/format1"

# expect_msg WHAT PATTERN CMD ARGS...: exit 2, nothing on standard output,
# the first line of standard error matches PATTERN (grep -E).
expect_msg() {
	what=$1
	pattern=$2
	shift 2
	timeout 120 "$slubtrace" "$@" >"$work/out" 2>"$work/err"
	rc=$?
	first=$(head -1 "$work/err")
	if [ "$rc" -ne 2 ] || [ -s "$work/out" ] || ! printf '%s\n' "$first" | grep -Eq "$pattern"; then
		echo "FAIL $what: exit $rc, expected 2 and /$pattern/; stderr, stdout:"
		cat "$work/err" "$work/out" | head -20
		fail=1
	else
		echo "ok   $what: $first"
	fi
}

expect_msg_2 "corrupted packet header names the stream file" \
	"^slubtrace: $work/corrupt/stream: its first packet does not start with CTF's magic number" \
	"$work/corrupt"

mkdir -p "$work/onlymeta/t"
cp "$work/other/metadata" "$work/onlymeta/t/metadata"
expect_msg "only metadata (check)" "^slubtrace: $work/onlymeta/t: no slub event" check "$work/onlymeta"
expect_msg "only metadata (timeline)" "^slubtrace: $work/onlymeta/t: no slub event" \
	timeline "$work/onlymeta"

expect_msg "help of no command" "^slubtrace: help: no command 'nosuch'" help nosuch
expect_msg "check --history 2000" "^slubtrace: --history: at most 1024, got '2000'" \
	check --history 2000 "$work/good"
expect_msg "check --max-reports 2^64+1" "^slubtrace: --max-reports: at most 18446744073709551615" \
	check --max-reports 18446744073709551617 "$work/good"
expect_msg "storms --run-attempts 0" "^slubtrace: --run-attempts: expected 2 to 4294967295, got '0'" \
	storms --run-attempts 0 "$work/good"
expect_msg "stats --window-failures 1" "^slubtrace: --window-failures: expected 2 to" \
	stats --window-failures 1 "$work/good"
expect_msg "timeline --slab -1" "^slubtrace: --slab: expected an address .*got '-1'" \
	timeline --slab -1 "$work/good"
expect_msg "timeline --begin after --end" "^slubtrace: --begin 2.5 is after --end 2.25" \
	timeline --begin 2.5 --end 2.25 "$work/good"
expect_msg "timeline --cache nosuch" \
	"^slubtrace: .*: no slab of cache \`nosuch\` in the trace; its caches with slabs: [a-z]" \
	timeline --cache nosuch "$work/good"
expect_msg "stats -o in a missing directory" \
	"^slubtrace: $work/nonexistent/r.json: cannot write the output file: No such file or directory" \
	stats -o "$work/nonexistent/r.json" "$work/good"
expect_msg "top --interval 0" "^slubtrace: --interval: expected a time such as 1s" \
	top --interval 0 "$work/good"
expect_msg "top --interval 5parsecs" "^slubtrace: --interval: expected a time .*got '5parsecs'" \
	top --interval 5parsecs "$work/good"
expect_msg "top --sort frob" "^slubtrace: --sort: redo, slow, .* not 'frob'" \
	top --sort frob "$work/good"
expect_msg "top --live of a path" "^slubtrace: top --live: expected a URL net://" \
	top --live "$work/good"
expect_msg "top of a URL without --live" "^slubtrace: top: a URL is read with --live" \
	top net://localhost/host/h/s
expect_msg "top --live and a directory" "^slubtrace: top: --live URL or TRACE_DIR, not both" \
	top --live net://localhost/host/h/s "$work/good"
# The program must not run: it would create the marker.
expect_msg "record --stacks frob" "^slubtrace: --stacks: unknown event 'frob'" \
	record --stacks cmpxchg_fail,frob -o "$work/rec" -- touch "$work/ran"
if [ -e "$work/ran" ] || [ -e "$work/rec" ]; then
	echo "FAIL record --stacks frob: the program ran or the trace directory was made"
	fail=1
fi
exit $fail
