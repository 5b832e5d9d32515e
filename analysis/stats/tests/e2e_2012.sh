#!/bin/sh
# e2e_2012.sh BUILD_DIR: the two 2012 variants whose effect depends on how
# threads interleave, found by `slubtrace diff` with its default thresholds
# on real recordings (slubtrace record, hackbench), several runs per side
# pooled:
#  - old-unfreeze-partials (the 3.5 unfreeze_partials, list work inside the
#    CAS loop): unfreeze_partials_redos_per_1k regressed, exit 1;
#  - free-keep-lock (__slab_free keeps list_lock across a failed CAS, as
#    before 3.6): kept_lock_redos_per_1k_slow_frees regressed, exit 1;
#  - the default against the default, pooled the same way: exit 0.
# Both variant figures are zero in the default by construction; a run shows
# a handful of events, so three runs per side are pooled, and while diff
# says "too few events" one more run per side is recorded (at most 6).
# Exit 77 (skipped) without lttng.
build=$1
slubtrace=$build/src/cli/slubtrace
hackbench=$build/tests/bench/hackbench
command -v lttng >/dev/null 2>&1 || { echo "no lttng: skipped"; exit 77; }
work=$(mktemp -d /tmp/slubtrace-e2e-2012.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

record() { # name [SLUBTRACE_VARIANT=...]
	env ${2:+"$2"} "$slubtrace" record -o "$work/$1" --no-check -- "$hackbench" \
		-g 4 -f 4 -l 6000 >"$work/$1.log" 2>&1 || { cat "$work/$1.log"; bad "record $1"; return 1; }
	grep -q " 0 discarded" "$work/$1.log" || echo "note: $1 lost events: $(grep discarded "$work/$1.log")"
	"$slubtrace" stats --procname hackbench -o "$work/$1.json" \
		"$work/$1/ust/uid/$(id -u)" >"$work/$1.txt" || { bad "stats $1 exit $?"; return 1; }
}

# runs NAME N: --before/--after arguments of the first N runs of NAME
runs() {
	i=1
	while [ $i -le "$3" ]; do
		printf -- '--%s %s ' "$1" "$work/$2$i.json"
		i=$((i + 1))
	done
}

for i in 1 2 3 4; do record default$i "" || exit 1; done

# default against default: runs 1-2 against 3-4, both ways
# shellcheck disable=SC2046
"$slubtrace" diff $(runs before default 2) --after "$work/default3.json" \
	--after "$work/default4.json" >"$work/dd.diff"
rc=$?
cat "$work/dd.diff"
[ $rc -eq 0 ] || bad "default runs 1-2 against 3-4: exit $rc"
# shellcheck disable=SC2046
"$slubtrace" diff --before "$work/default3.json" --before "$work/default4.json" \
	$(runs after default 2) >/dev/null
rc=$?
[ $rc -eq 0 ] || bad "default runs 3-4 against 1-2: exit $rc"

# variant NAME FIGURE: record up to 6 runs until diff judges FIGURE
variant() {
	n=0
	while [ $n -lt 6 ]; do
		n=$((n + 1))
		record "$1$n" "SLUBTRACE_VARIANT=$1" || return
		[ $n -ge 3 ] || continue
		[ $n -le 4 ] || record "default$n" "" || return
		# shellcheck disable=SC2046
		"$slubtrace" diff $(runs before default "$n") $(runs after "$1" "$n") \
			>"$work/$1.diff"
		rc=$?
		grep -q "^overall .*$2 .*too few events" "$work/$1.diff" && continue
		break
	done
	echo "== default x$n against $1 x$n"
	cat "$work/$1.diff"
	[ $rc -eq 1 ] || bad "$1: exit $rc after $n runs per side, expected 1"
	grep -q "^overall .*$2 .*REGRESSED" "$work/$1.diff" || bad "$1: $2 not regressed"
}

variant old-unfreeze-partials unfreeze_partials_redos_per_1k
variant free-keep-lock kept_lock_redos_per_1k_slow_frees

[ $fail -eq 0 ] && echo "e2e_2012: ok"
exit $fail
