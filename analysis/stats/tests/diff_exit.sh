#!/bin/sh
# diff_exit.sh WANT[=REGEX] SLUBTRACE DIR ARGS...: run `slubtrace diff` in DIR
# and check its exit status is WANT (0 no regression, 1 regression, 2
# unusable) and, with =REGEX, that a line of its output matches the extended
# regular expression REGEX.
want=${1%%=*} slubtrace=$2 dir=$3
line=
case $1 in *=*) line=${1#*=} ;; esac
shift 3
cd "$dir" || exit 1
out=$(mktemp /tmp/diff_exit.XXXXXX) || exit 1
trap 'rm -f "$out"' EXIT
# Options after the operands: getopt_long permutes them.
"$slubtrace" diff "$@" >"$out"
rc=$?
cat "$out"
if [ "$rc" -ne "$want" ]; then
	echo "FAIL: slubtrace diff $*: exit $rc, want $want" >&2
	exit 1
fi
if [ -n "$line" ] && ! grep -Eq -- "$line" "$out"; then
	echo "FAIL: slubtrace diff $*: no line matches '$line'" >&2
	exit 1
fi
echo "ok: slubtrace diff $*: exit $rc"
