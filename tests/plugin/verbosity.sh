#!/bin/sh
# SPDX-License-Identifier: MIT
#
# -v/--verbose and -q/--quiet of the commands that read a trace: without
# either, nothing on stderr for a clean trace; -v makes the components of
# the graph log at INFO (the slub sink's end-of-input line among them),
# -vv at DEBUG (its new-stream lines); -q silences slubtrace's
# informational lines (report's "reading the baseline"), and wins over -v.
# The results on stdout are the same whatever the verbosity.
#
#   verbosity.sh BUILD_DIR
set -u

build=$1
slubtrace=$build/src/cli/slubtrace
mktrace=$build/tests/plugin/mktrace
work=$(mktemp -d "${TMPDIR:-/tmp}/slubtrace-verbosity-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0

"$mktrace" clean "$work/t" || exit 1

run() {
	timeout 120 "$slubtrace" "$@" >"$work/out" 2>"$work/err"
}

ok() {
	echo "ok   $1"
}

bad() {
	echo "FAIL $1"
	head -20 "$work/err"
	fail=1
}

for cmd in check stats timeline; do
	tag=$(echo "$cmd" | tr a-z A-Z)
	run "$cmd" "$work/t"
	cp "$work/out" "$work/plain"
	[ -s "$work/err" ] && bad "$cmd: stderr without -v" || ok "$cmd: quiet by default"

	run "$cmd" -v "$work/t"
	if grep -q " I PLUGIN/SINK.SLUB.$tag \[slub\] end of input: 20 slub events" "$work/err" &&
	   ! grep -q " D PLUGIN/" "$work/err" && cmp -s "$work/out" "$work/plain"; then
		ok "$cmd -v: $(grep -c '' "$work/err") log lines, same result"
	else
		bad "$cmd -v: no INFO line of the sink (or debug lines, or another result)"
	fi

	run "$cmd" --verbose --verbose "$work/t"
	if grep -q " D PLUGIN/SINK.SLUB.$tag \[slub\] new stream 0: " "$work/err"; then
		ok "$cmd -vv: debug lines"
	else
		bad "$cmd -vv: no DEBUG line of the sink"
	fi

	run "$cmd" -v -q "$work/t"
	[ -s "$work/err" ] && bad "$cmd -v -q: stderr" || ok "$cmd -v -q: -q wins"
done

run report -o "$work/r.html" --baseline "$work/t" "$work/t"
grep -q "^slubtrace: reading the baseline $work/t\$" "$work/err" &&
	ok "report: its informational line" || bad "report: no informational line"
cp "$work/out" "$work/plain"
run report --quiet -o "$work/r.html" --baseline "$work/t" "$work/t"
if [ ! -s "$work/err" ] && cmp -s "$work/out" "$work/plain"; then
	ok "report -q: no informational line, same result"
else
	bad "report -q: stderr not empty, or another result"
fi

# check --live takes -v and -q as check does: without a URL it asks for one
run check --live -v -q
if grep -q "check --live: expected one URL" "$work/err" && ! grep -q "\[-v|-q\]" "$work/err"
then
	ok "check --live -v -q: the options taken"
else
	bad "check --live -v -q: $(head -1 "$work/err")"
fi
exit $fail
