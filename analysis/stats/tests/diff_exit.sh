#!/bin/sh
# diff_exit.sh WANT SLUBTRACE DIR ARGS...: run `slubtrace diff` in DIR and
# check its exit status is WANT (0 no regression, 1 regression, 2 unusable).
want=$1 slubtrace=$2 dir=$3
shift 3
cd "$dir" || exit 1
# Options after the operands: getopt_long permutes them.
"$slubtrace" diff "$@"
rc=$?
if [ "$rc" -ne "$want" ]; then
	echo "FAIL: slubtrace diff $*: exit $rc, want $want" >&2
	exit 1
fi
echo "ok: slubtrace diff $*: exit $rc"
