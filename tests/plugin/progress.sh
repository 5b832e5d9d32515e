#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The progress line of the commands that read a trace: on a terminal
# (script(1) gives one) while the results go to a file, a line "N messages
# read, R messages/s" that is erased at the end; none with -q, none when
# the results go to the same terminal (it would cut them), none when
# stderr is not a terminal.  The results are the same in every case.
#
#   progress.sh BUILD_DIR
set -u

build=$1
slubtrace=$build/src/cli/slubtrace
mktrace=$build/tests/plugin/mktrace
work=$(mktemp -d "${TMPDIR:-/tmp}/slubtrace-progress-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0

command -v script >/dev/null || { echo "skip: no script(1)"; exit 77; }
"$mktrace" clean "$work/t" || exit 1
"$slubtrace" check "$work/t" >"$work/plain" 2>"$work/err"
[ -s "$work/err" ] && { echo "FAIL: stderr not a terminal, yet:"; cat "$work/err"; fail=1; }

# script(1) runs the command on a pseudo-terminal; its output is what the
# terminal showed.
on_tty() {
	timeout 120 script -qec "$1" /dev/null >"$work/tty" </dev/null
}

for cmd in check stats; do
	"$slubtrace" "$cmd" "$work/t" >"$work/plain" 2>/dev/null
	on_tty "'$slubtrace' $cmd '$work/t' >'$work/out'"
	esc=$(printf '\033')
	if grep -q "slubtrace: [0-9][0-9]* messages read, [0-9]* messages/s" "$work/tty" &&
	   [ "$(tail -c 4 "$work/tty" | od -An -c | tr -d ' ')" = "\\r033[K" ] &&
	   cmp -s "$work/out" "$work/plain"; then
		echo "ok   $cmd: progress on the terminal, erased, same results"
	else
		echo "FAIL $cmd: no progress line, not erased, or other results:"
		od -c "$work/tty" | head -5
		fail=1
	fi
	on_tty "'$slubtrace' $cmd -q '$work/t' >'$work/out'"
	if [ -s "$work/tty" ] || ! cmp -s "$work/out" "$work/plain"; then
		echo "FAIL $cmd -q: the terminal shows:"
		od -c "$work/tty" | head -5
		fail=1
	else
		echo "ok   $cmd -q: no progress"
	fi
	on_tty "'$slubtrace' $cmd '$work/t'"
	if grep -q "messages read" "$work/tty" || grep -q "$esc" "$work/tty"; then
		echo "FAIL $cmd: progress cuts the results on the terminal"
		fail=1
	else
		echo "ok   $cmd: results on the terminal, no progress among them"
	fi
done
exit $fail
