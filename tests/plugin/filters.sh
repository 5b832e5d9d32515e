#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The cache and procname filters where no golden output fits: report's page
# (it carries the time it was generated) and babeltrace2 running the sinks
# with the parameters.  The trace (mktrace mixed) has two processes, alpha
# and beta, with the caches test-64 and other-64; beta's has a lost update.
#
#   filters.sh BUILD_DIR
set -u

build=$1
slubtrace=$build/src/cli/slubtrace
mktrace=$build/tests/plugin/mktrace
export SLUBTRACE_PLUGIN_PATH=$build/analysis/plugin
work=$(mktemp -d "${TMPDIR:-/tmp}/slubtrace-filters-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0

"$mktrace" mixed "$work/mixed" || exit 1

# NAME EXIT LINE FILTER VERDICT -- report ARGS...: the exit status, the
# line report prints (a pattern), the page data's filter and a pattern of
# its verdict.
report() {
	what=$1 want_rc=$2 line=$3 filter=$4 page=$5
	shift 5
	rm -f "$work/r.html"
	timeout 120 "$slubtrace" report -o "$work/r.html" "$@" "$work/mixed" >"$work/out" 2>"$work/err"
	rc=$?
	if [ "$rc" -ne "$want_rc" ] || ! grep -Eq "$line" "$work/out" ||
	   ! grep -Fq "{\"filter\":$filter,\"origin\":" "$work/r.html" ||
	   ! grep -Eq "$page" "$work/r.html"; then
		echo "FAIL report $what: exit $rc, expected $want_rc, /$line/, $filter and /$page/"
		cat "$work/out" "$work/err"
		fail=1
	else
		echo "ok   report $what: $(cat "$work/out")"
	fi
}

report "unfiltered" 0 ': 39 events, 1 violations$' null \
	'"verdict":\{"events":39,.*"processes":2,"violations":1,'
report "--cache test-64" 0 ': 20 events, 0 violations \(cache test-64 only\)$' \
	'"cache test-64 only"' '"verdict":\{"events":20,.*"processes":1,"violations":0,' \
	--cache test-64
report "--procname beta" 0 ': 19 events, 1 violations \(processes named beta only\)$' \
	'"processes named beta only"' \
	'"verdict":\{"events":19,.*"processes":1,"violations":1,.*"by_rule":\{"R5-word-chain":1\}' \
	--procname beta
report "--cache other-64 --procname alpha" 0 ': 0 events, 0 violations' \
	'"cache other-64, processes named alpha only"' '"verdict":\{"events":0,' \
	--cache other-64 --procname alpha

rm -f "$work/r.html"
timeout 120 "$slubtrace" report -o "$work/r.html" --cache nosuch "$work/mixed" >"$work/out" 2>"$work/err"
rc=$?
if [ "$rc" -ne 2 ] || [ -e "$work/r.html" ] ||
   ! grep -q "no cache \`nosuch\` in the trace; its caches: test-64, other-64" "$work/err"; then
	echo "FAIL report --cache nosuch: exit $rc"
	cat "$work/err"
	fail=1
else
	echo "ok   report --cache nosuch: $(cat "$work/err")"
fi

# diff --cache: that cache's figures only, from a trace directory or a JSON
# report; a run without the cache is refused, naming its caches.
"$mktrace" storm "$work/storm" || exit 1
"$slubtrace" stats -o "$work/mixed.json" "$work/mixed" >/dev/null || exit 1
timeout 120 "$slubtrace" diff --cache test-64 "$work/mixed.json" "$work/mixed" >"$work/out" 2>"$work/err"
rc=$?
scopes=$(sed -n '/^scope /,/^verdict/p' "$work/out" | sed '1d;$d' | cut -d' ' -f1 | sort -u)
if [ "$rc" -ne 0 ] || [ "$scopes" != "test-64" ] || ! grep -q '^verdict: no regression' "$work/out"; then
	echo "FAIL diff --cache test-64: exit $rc, scopes [$scopes]"
	cat "$work/out" "$work/err"
	fail=1
else
	echo "ok   diff --cache test-64: every row of test-64, $(tail -1 "$work/out")"
fi
timeout 120 "$slubtrace" diff "$work/mixed.json" "$work/mixed" >"$work/out" 2>"$work/err"
if ! grep -q '^overall ' "$work/out"; then
	echo "FAIL diff without --cache: no overall row"
	fail=1
fi
for before in "$work/mixed.json" "$work/mixed"; do
	timeout 120 "$slubtrace" diff --cache other-64 "$before" "$work/storm" >"$work/out" 2>"$work/err"
	rc=$?
	if [ "$rc" -ne 2 ] || [ -s "$work/out" ] ||
	   ! grep -q "^slubtrace: $work/storm: no cache \`other-64\` in the trace; its caches: test-64$" \
		"$work/err"; then
		echo "FAIL diff --cache other-64 ${before##*/} storm: exit $rc"
		cat "$work/out" "$work/err"
		fail=1
	else
		echo "ok   diff --cache other-64 ${before##*/} storm: $(cat "$work/err")"
	fi
done
timeout 120 "$slubtrace" diff --cache nosuch "$work/mixed.json" "$work/mixed.json" >"$work/out" 2>"$work/err"
rc=$?
if [ "$rc" -ne 2 ] ||
   ! grep -q "^slubtrace: $work/mixed.json: no cache \`nosuch\` in it; its caches: " "$work/err"; then
	echo "FAIL diff --cache nosuch of a JSON report: exit $rc"
	cat "$work/out" "$work/err"
	fail=1
else
	echo "ok   diff --cache nosuch of a JSON report: $(cat "$work/err")"
fi

# babeltrace2 with the component's parameters: the same filter.
if command -v babeltrace2 >/dev/null; then
	timeout 120 babeltrace2 --plugin-path="$SLUBTRACE_PLUGIN_PATH" "$work/mixed" \
		-c sink.slub.check -p 'procname="alpha"' >"$work/out" 2>"$work/err"
	rc=$?
	if [ "$rc" -ne 0 ] || grep -q '^violation' "$work/out" ||
	   ! grep -q '^verdict (processes named alpha only): clean: 20 events, 0 violations' \
		"$work/out"; then
		echo "FAIL babeltrace2 sink.slub.check procname=alpha: exit $rc"
		cat "$work/out" "$work/err"
		fail=1
	else
		echo "ok   babeltrace2 sink.slub.check procname=alpha: $(tail -1 "$work/out")"
	fi
	timeout 120 babeltrace2 --plugin-path="$SLUBTRACE_PLUGIN_PATH" "$work/mixed" \
		-c sink.slub.check -p 'cahce="test-64"' >"$work/out" 2>"$work/err"
	if [ $? -eq 0 ] || ! grep -q 'unexpected key `cahce`' "$work/err"; then
		echo "FAIL babeltrace2 sink.slub.check cahce=: a misspelt key must be named"
		fail=1
	else
		echo "ok   babeltrace2 sink.slub.check cahce=: refused by name"
	fi
fi
exit $fail
