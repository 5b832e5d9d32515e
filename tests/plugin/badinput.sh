#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Bad input for `slubtrace check` and `slubtrace timeline`, no session
# daemon needed: each case must end with exit status 2 and exactly one line
# on standard error (starting "slubtrace: "), nothing on standard output,
# and no crash.
#
#   badinput.sh BUILD_DIR
#
# Cases: a missing path, a file, an empty directory, a directory that is
# not a trace, a truncated stream, a corrupted packet header, a corrupted
# metadata file, a trace of another provider only, a format-1 trace.
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
	for cmd in check timeline; do
		"$slubtrace" "$cmd" "$@" >"$work/out" 2>"$work/err"
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

cp -r "$work/good" "$work/badmeta"
printf 'event { name = ; }\n' >>"$work/badmeta/metadata"
expect_2 "corrupted metadata" "$work/badmeta"

expect_2 "another provider only" "$work/other"
expect_2 "format 1" "$work/format1"
exit $fail
