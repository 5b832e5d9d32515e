#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Out of memory is not a usage error: when a parameter cannot be stored
# (nomem_inject.so makes the Babeltrace map refuse the key NOMEM_KEY as
# memory running out would), check, timeline, stats, storms, diff and
# report say "out of memory" on one line and exit 2, without the usage
# text, without dropping the option and running anyway, and with nothing
# on standard output.
#
#   nomem.sh BUILD_DIR NOMEM_INJECT_SO
set -u

build=$1
inject=$2
slubtrace=$build/src/cli/slubtrace
mktrace=$build/tests/plugin/mktrace
work=$(mktemp -d "${TMPDIR:-/tmp}/slubtrace-nomem-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0

"$mktrace" clean "$work/good" || exit 1

# KEY|ARGS: the command's stored parameter KEY fails.
while IFS='|' read -r key args; do
	[ -n "$key" ] || continue
	# shellcheck disable=SC2086 # args is a word list
	NOMEM_KEY=$key LD_PRELOAD=$inject timeout 120 "$slubtrace" $args \
		>"$work/out" 2>"$work/err"
	rc=$?
	if [ "$rc" -eq 2 ] && [ "$(cat "$work/err")" = "slubtrace: out of memory" ] &&
	   [ ! -s "$work/out" ]; then
		echo "ok   $args ($key fails): exit 2, out of memory"
	else
		echo "FAIL $args ($key fails): exit $rc, expected 2 and one line" \
			"'slubtrace: out of memory'; stderr, stdout:"
		head -8 "$work/err" "$work/out"
		fail=1
	fi
done <<LIST
history|check --history 5 $work/good
reorder-ns|check --reorder-ns 100 $work/good
cache|timeline --cache kmalloc-64 $work/good
format|timeline --json $work/good
tid|timeline --tid 1 $work/good
cache|stats --cache kmalloc-64 $work/good
top|stats --top 3 $work/good
format|stats --json $work/good
sections|storms $work/good
top|diff --top 3 $work/good $work/good
format|diff $work/good $work/good
inputs|stats $work/good
pass|report -o $work/r.html $work/good
LIST

# The same commands run when nothing fails: the failure above is the
# injected one.
if ! LD_PRELOAD=$inject timeout 120 "$slubtrace" check --history 5 "$work/good" \
	>"$work/out" 2>"$work/err"; then
	echo "FAIL check with nothing injected: exit $?"
	head -5 "$work/err"
	fail=1
fi
exit $fail
