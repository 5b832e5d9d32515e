#!/bin/sh
# The bundled workload under the malloc shim, with the checks on:
#   run-workload.sh SHIM_LIB WORKLOAD [workload args...]
# Passes when the workload exits 0 (every message intact) and the shim
# printed its slabinfo report at exit (SLUBTRACE_STATS=1 reached it).  The
# output is repeated so CTest's FAIL_REGULAR_EXPRESSION still sees reports.
shim=$1 workload=$2
shift 2
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
env LD_PRELOAD="$shim" SLUBTRACE_STATS=1 SLUBTRACE_DEBUG=FZP SLUBTRACE_NODES=2 \
	"$workload" "$@" >"$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" -ne 0 ]; then
	echo "run-workload: the workload exited with status $rc" >&2
	exit 1
fi
if ! grep -q "Cmpxchg_double Looping" "$out"; then
	echo "run-workload: no slabinfo report: the shim did not serve the workload" >&2
	exit 1
fi
exit 0
