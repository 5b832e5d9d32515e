#!/bin/sh
# SPDX-License-Identifier: MIT
#
# An empty window is a verdict, not an error: babeltrace2 with a trimmer
# (--begin/--end) whose window holds no slub event ends sink.slub.check on
# a zero-event verdict, exit 0, with one warning line (the default level of
# babeltrace2 is WARNING), and sink.slub.stats on an empty report.  A
# window that holds events gives their verdict; a trace of another
# provider only is still an error.
#
#   empty_window.sh BUILD_DIR
set -u

build=$1
plugin=$build/analysis/plugin
mktrace=$build/tests/plugin/mktrace
work=$(mktemp -d "${TMPDIR:-/tmp}/slubtrace-window-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0

command -v babeltrace2 >/dev/null || { echo "skip: no babeltrace2"; exit 77; }
"$mktrace" clean "$work/good" || exit 1
"$mktrace" other "$work/other" || exit 1

bt() {
	timeout 120 babeltrace2 --plugin-path="$plugin" "$@" >"$work/out" 2>"$work/err"
}

# The scripted trace's events are at 1.000001 s and later: this window
# holds its streams but none of their events.
for sink in check stats; do
	bt "$work/good" --begin=1.000000000 --end=1.000000005 -c sink.slub.$sink
	rc=$?
	case $sink in
	check) want='^verdict: clean: 0 events, 0 slabs, 0 violations, 0 gaps' ;;
	stats) want='^slubtrace stats: 0 events over' ;;
	esac
	if [ "$rc" -ne 0 ] || ! grep -q "$want" "$work/out" ||
	   [ "$(grep -c ' W PLUGIN/SINK.SLUB.'"$(echo $sink | tr a-z A-Z)"' .*no slub event in the input' \
		"$work/err")" -ne 1 ]; then
		echo "FAIL empty window ($sink): exit $rc"
		cat "$work/out" "$work/err" | head -20
		fail=1
	else
		echo "ok   empty window ($sink): $(head -1 "$work/out" | cut -c1-60)"
	fi
done

bt "$work/good" --begin=1.000010 --end=1.000012 -c sink.slub.check
if [ $? -ne 0 ] || ! grep -q '^verdict: clean: [1-9][0-9]* events' "$work/out" || [ -s "$work/err" ]; then
	echo "FAIL a window with events:"
	cat "$work/out" "$work/err" | head -20
	fail=1
else
	echo "ok   a window with events: $(cut -c1-50 "$work/out")"
fi

bt "$work/other" -c sink.slub.check
if [ $? -eq 0 ] || ! grep -q 'no slub event in the trace' "$work/err"; then
	echo "FAIL another provider only is not an error:"
	cat "$work/out" "$work/err" | head -20
	fail=1
else
	echo "ok   another provider only: an error"
fi
exit $fail
