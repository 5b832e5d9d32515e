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
# directory holding only metadata (its path named), a sheaves trace of
# format 6 (check and report; its format-7 twin is judged).  Then options that must
# be refused with a message saying what is wrong, before anything runs:
# help of no command, check --history/--max-reports out of range, storms
# --run-attempts 0, timeline --slab -1, --begin after --end, --cache of no
# slab in the trace (listing those it has), stats -o in a missing
# directory, record --stacks with an unknown event, top --interval, --sort
# and --live misused; the temporary files of diff, report and compare go
# to $TMPDIR (one that does not exist is named in the error, and one that
# does is left empty).  record --stacks and the allocator's
# SLUBTRACE_STACKS accept and refuse the same lists (one parser), quoting
# the same word.
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
"$mktrace" mixed "$work/mixed" || exit 1
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

# A sheaves trace of wire format 6 lacks the sheaf and barn events: check
# and report refuse it, saying so; the same cache announced in format 7 is
# judged (a verdict, exit 0).
"$mktrace" sheaves6 "$work/sheaves6" || exit 1
"$mktrace" sheaves7 "$work/sheaves7" || exit 1
for cmd in check report; do
	if [ "$cmd" = report ]; then
		timeout 120 "$slubtrace" report -o "$work/report.html" "$work/sheaves6" \
			>"$work/out" 2>"$work/err"
	else
		timeout 120 "$slubtrace" check "$work/sheaves6" >"$work/out" 2>"$work/err"
	fi
	rc=$?
	if [ "$rc" -eq 2 ] && grep -q "generation sheaves (cache sheaves-64) in wire format 6, without the sheaf and barn events the checker needs (format 7): record it again" "$work/err"; then
		echo "ok   $cmd: sheaves trace of format 6 refused"
	else
		echo "FAIL $cmd: sheaves trace of format 6: exit $rc"
		head -3 "$work/err"
		fail=1
	fi
done
timeout 120 "$slubtrace" check "$work/sheaves7" >"$work/out" 2>"$work/err"
rc=$?
if [ "$rc" -eq 0 ] && grep -q "^verdict: clean" "$work/out"; then
	echo "ok   check: sheaves trace of format 7 judged"
else
	echo "FAIL check: sheaves trace of format 7: exit $rc"
	head -3 "$work/out" "$work/err"
	fail=1
fi

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
expect_msg "timeline --reorder-ns not a number" \
	"^slubtrace: --reorder-ns: expected a number of ns, got 'soon'" \
	timeline --reorder-ns soon "$work/good"
expect_msg "report --reorder-ns negative" \
	"^slubtrace: --reorder-ns: expected an integer from 0 to 18446744073709551615, got '-1'" \
	report --reorder-ns -1 -o "$work/r.html" "$work/good"
expect_msg "timeline --begin after --end" "^slubtrace: --begin 2.5 is after --end 2.25" \
	timeline --begin 2.5 --end 2.25 "$work/good"
expect_msg "timeline --cache nosuch" \
	"^slubtrace: .*: no slab of cache \`nosuch\` in the trace; its caches with slabs: [a-z]" \
	timeline --cache nosuch "$work/good"
# A cache or process name the trace does not hold: refused by every
# reader, naming those it holds (the trace has test-64 and other-64, the
# processes alpha and beta).
for cmd in check stats storms timeline top; do
	expect_msg "$cmd --procname nosuch" \
		"^slubtrace: .*: no process named \`nosuch\` in the trace; the names of its threads: alpha, beta$" \
		$cmd --procname nosuch "$work/mixed"
done
for cmd in check stats storms top; do
	expect_msg "$cmd --cache nosuch" \
		"^slubtrace: .*: no cache \`nosuch\` in the trace; its caches: test-64, other-64$" \
		$cmd --cache nosuch "$work/mixed"
done
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

# Temporary files under $TMPDIR, not /tmp: TMPDIR naming a missing
# directory must make the command fail naming it (with /tmp it would run).
for c in "diff|file|diff $work/good $work/good" \
	"report|directory|report -o $work/r.html $work/good" \
	"compare|directory|compare --record-only -n 1 -- true"; do
	cmd=${c%%|*}
	rest=${c#*|}
	kind=${rest%%|*}
	args=${rest#*|}
	# shellcheck disable=SC2086 # args is a word list
	TMPDIR=$work/notmp timeout 120 "$slubtrace" $args >"$work/out" 2>"$work/err"
	rc=$?
	first=$(head -1 "$work/err")
	case $first in
	"slubtrace: "*"cannot create a temporary $kind in $work/notmp: No such file or directory")
		[ "$rc" -eq 2 ] && [ ! -s "$work/out" ] && ok=1 || ok=0 ;;
	*) ok=0 ;;
	esac
	if [ "$ok" = 1 ]; then
		echo "ok   $cmd with TMPDIR missing: $first"
	else
		echo "FAIL $cmd with TMPDIR missing: exit $rc, expected 2 naming $work/notmp:"
		cat "$work/err" "$work/out" | head -5
		fail=1
	fi
done
mkdir "$work/tmpdir"
for args in "diff $work/good $work/good" "report -o $work/r.html $work/good"; do
	# shellcheck disable=SC2086
	if ! TMPDIR=$work/tmpdir timeout 120 "$slubtrace" $args >"$work/out" 2>"$work/err"; then
		echo "FAIL $args with TMPDIR=$work/tmpdir: exit $?"
		head -5 "$work/err"
		fail=1
	elif [ -n "$(ls -A "$work/tmpdir")" ]; then
		echo "FAIL $args left files in TMPDIR: $(ls -A "$work/tmpdir")"
		fail=1
	else
		echo "ok   $args with TMPDIR=$work/tmpdir: done, TMPDIR left empty"
	fi
done

# One event-list parser for record --stacks and SLUBTRACE_STACKS: each list
# is accepted by both or refused by both, naming the same word.  record
# stops at --nodes 0 once --stacks is accepted, before any session.
shim=$build/src/shim/libslub-malloc.so
if [ -e "$shim" ]; then
	for list in "all" "none" "slub:alloc" "alloc free" "alloc,,free" ", alloc," "" \
		"free_remote,slub:cmpxchg_fail,none" "slub:" "frob" "slub:frob" "ALL" "allocx" \
		"alloc,slub:nosuch,frob" "slub:slub:alloc"; do
		timeout 60 "$slubtrace" record --stacks "$list" --nodes 0 -- true \
			>/dev/null 2>"$work/cli.err"
		cli=$(sed -n "s/^slubtrace: --stacks: unknown event \('[^']*'\).*/\1/p" "$work/cli.err")
		grep -q "^slubtrace: --nodes: expected 1..8" "$work/cli.err" && cli=accepted
		SLUBTRACE_STACKS=$list LD_PRELOAD=$shim timeout 60 sort </dev/null \
			>/dev/null 2>"$work/env.err"
		rc=$?
		env=$(sed -n "s/^slubtrace: SLUBTRACE_STACKS: unknown event \('[^']*'\).*/\1/p" \
			"$work/env.err")
		[ "$rc" -eq 0 ] && [ ! -s "$work/env.err" ] && env=accepted
		if [ -z "$cli" ] || [ "$cli" != "$env" ]; then
			echo "FAIL stack list '$list': record --stacks: ${cli:-?}, SLUBTRACE_STACKS: ${env:-?}"
			cat "$work/cli.err" "$work/env.err" | head -5
			fail=1
		else
			echo "ok   stack list '$list': $cli by both"
		fi
	done
fi
exit $fail
