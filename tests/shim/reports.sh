#!/bin/bash
# SPDX-License-Identifier: MIT
# What the shim and the allocator print on their own, through the shim.
#
#   reports.sh foreign LIBSLUB_MALLOC SHIM_SEMANTICS
#       notes about foreign pointers: one per address, only when
#       SLUBTRACE_REPORT_FOREIGN=1 or SLUBTRACE_DEBUG names F, never counted
#       as corruption
#   reports.sh stats LIBSLUB_MALLOC SHIM_SEMANTICS
#       SLUBTRACE_STATS=1 prints the slabinfo report of the kmalloc caches
#       at exit of a real program, whose output is unchanged
#   reports.sh env LIBSLUB_MALLOC SHIM_SEMANTICS
#       an unknown word in a SLUBTRACE_* variable stops the program at its
#       first allocation: exit status 2 and one line naming the variable,
#       the word and the accepted values; valid words run as usual
set -u

mode=$1
shim=$2
sem=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/shim-reports.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0

bad() {
	echo "FAIL: $*"
	fail=1
}

# run NAME ENV... -- CMD...: stdout, stderr and status in $tmp/NAME.*
run() {
	local name=$1
	shift
	local envs=()
	while [ "$1" != "--" ]; do
		envs+=("$1")
		shift
	done
	shift
	env "${envs[@]}" timeout 120 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
	[ "$(cat "$tmp/$name.rc")" = 0 ] || {
		bad "$name exited with $(cat "$tmp/$name.rc")"
		cat "$tmp/$name.err"
	}
}

no_bug() {
	if grep -a '^slubtrace: ' "$tmp/$1.err" | grep -v '^slubtrace: note: '; then
		bad "$1: allocator reports above"
	fi
}

case $mode in
foreign)
	run quiet LD_PRELOAD="$shim" -- "$sem" foreign
	run asked LD_PRELOAD="$shim" SLUBTRACE_REPORT_FOREIGN=1 -- "$sem" foreign
	run debug LD_PRELOAD="$shim" SLUBTRACE_DEBUG=FZP -- "$sem" foreign
	run off LD_PRELOAD="$shim" SLUBTRACE_DEBUG=FZP SLUBTRACE_REPORT_FOREIGN=0 -- "$sem" foreign
	n=$(grep -c '^slubtrace: note: ' "$tmp/quiet.err")
	[ "$n" = 0 ] || bad "quiet run printed $n notes"
	n=$(grep -c '^slubtrace: note: ' "$tmp/off.err")
	[ "$n" = 0 ] || bad "SLUBTRACE_REPORT_FOREIGN=0 run printed $n notes"
	for r in asked debug; do
		addr=$(sed -n 's/^foreign //p' "$tmp/$r.out")
		[ -n "$addr" ] || bad "$r: no address printed"
		# realloc, free and free again of one address: one note
		n=$(grep -c "^slubtrace: note: .*($addr)" "$tmp/$r.err")
		[ "$n" = 1 ] || bad "$r: $n notes for $addr, want 1"
		# with the mapped blocks (realloc + free of one, realloc of
		# another) three addresses in all
		n=$(grep -c '^slubtrace: note: ' "$tmp/$r.err")
		[ "$n" = 3 ] || bad "$r: $n notes in all, want 3"
		no_bug "$r"
	done
	no_bug quiet
	sed 's/^/  /' "$tmp/asked.err"
	;;
stats)
	command -v sort >/dev/null || exit 77
	seq 1 20000 | sed 's/$/ line/' >"$tmp/in"
	run glibc LC_ALL=C -- sort -r -k1,1n "$tmp/in"
	run stats LC_ALL=C LD_PRELOAD="$shim" SLUBTRACE_STATS=1 -- sort -r -k1,1n "$tmp/in"
	run none LC_ALL=C LD_PRELOAD="$shim" -- sort -r -k1,1n "$tmp/in"
	cmp -s "$tmp/glibc.out" "$tmp/stats.out" || bad "sort output differs under the shim"
	# sort closes stdout and stderr in an atexit handler registered after
	# the allocator's first use: the report must not depend on fd 2 then
	grep -q '^Slabcache: kmalloc-' "$tmp/stats.err" ||
		bad "sort: no Slabcache: lines (stderr closed by an earlier atexit handler?)"
	grep -q '^Slab Perf Counter' "$tmp/stats.err" || bad "sort: no Slab Perf Counter section"
	n=$(grep -c '^Slabcache: ' "$tmp/none.err")
	[ "$n" = 0 ] || bad "report printed without SLUBTRACE_STATS"
	no_bug stats
	# a multi-threaded program with its own exit path
	run sem LD_PRELOAD="$shim" SLUBTRACE_STATS=1 -- "$sem" shim
	grep -q '^Slabcache: kmalloc-' "$tmp/sem.err" || bad "no report from shim-semantics"
	no_bug sem
	grep -A3 '^Slabcache: kmalloc-64 ' "$tmp/stats.err" | sed 's/^/  /'
	;;
env)
	# VAR=VALUE|word the line must quote|an accepted value it must list
	cases=(
		"SLUBTRACE_DEBUG=FZX|'X'|P U"
		"SLUBTRACE_DEBUG=F,kmalloc-64|',kmalloc-64'|F Z"
		"SLUBTRACE_VARIANT=keep-oldpag|'keep-oldpag'|keep-oldpage"
		"SLUBTRACE_VARIANT=race-window|'race-window'|free-keep-lock"
		"SLUBTRACE_INJECT=lost_update|'lost_update'|lost-update"
		"SLUBTRACE_STACKS=error,cmpxchg_failed|'cmpxchg_failed'|cmpxchg_fail"
		"SLUBTRACE_STACK_DEPTH=deep|'deep'|a number"
		"SLUBTRACE_NODES=two|'two'|from 1 to 8"
		"SLUBTRACE_STATS=please|'please'|yes"
		"SLUBTRACE_FULL_LISTS=2|'2'|yes"
		"SLUBTRACE_ON_ERROR=stop|'stop'|abort"
		"SLUBTRACE_REPORT_FOREIGN=maybe|'maybe'|yes"
	)
	i=0
	for c in "${cases[@]}"; do
		IFS='|' read -r assign word accepted <<<"$c"
		var=${assign%%=*}
		i=$((i + 1))
		env "$assign" LD_PRELOAD="$shim" timeout 60 "$sem" shim \
			>"$tmp/e$i.out" 2>"$tmp/e$i.err"
		rc=$?
		[ $rc = 2 ] || bad "$assign: exit status $rc, want 2"
		n=$(wc -l <"$tmp/e$i.err")
		[ "$n" = 1 ] || bad "$assign: $n lines on stderr, want 1"
		line=$(head -n1 "$tmp/e$i.err")
		case $line in
		"slubtrace: $var: "*"$word"*"accepted: "*"$accepted"*) ;;
		*) bad "$assign: unexpected line: $line" ;;
		esac
		[ -s "$tmp/e$i.out" ] && bad "$assign: the program ran"
		echo "  $line"
	done
	run good LD_PRELOAD="$shim" SLUBTRACE_DEBUG=fz-U SLUBTRACE_VARIANT=keep-oldpage,free-keep-lock \
		SLUBTRACE_INJECT= SLUBTRACE_STACKS=slub:error,all SLUBTRACE_STACK_DEPTH=8 \
		SLUBTRACE_NODES=2 SLUBTRACE_STATS=0 SLUBTRACE_FULL_LISTS=yes \
		SLUBTRACE_ON_ERROR=continue SLUBTRACE_REPORT_FOREIGN=off -- "$sem" shim
	no_bug good
	;;
*)
	echo "usage: $0 foreign|stats|env LIBSLUB_MALLOC SHIM_SEMANTICS"
	exit 2
	;;
esac
[ $fail = 0 ] && echo "PASS: $mode"
exit $fail
