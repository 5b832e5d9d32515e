#!/usr/bin/env bash
# process-start.sh: what tracing adds to the start of a process, side by
# side: N runs of /bin/true launched by a shell, per run, for
#   glibc                  no preload, no session
#   shim                   libslub-malloc.so preloaded, no session
#   slubtrace record       `slubtrace record --no-check` (its defaults)
#   record --no-dlopen-events
#   libc-wrap traced       liblttng-ust-libc-wrapper in a session enabling
#                          lttng_ust_libc:* with the same contexts
# The shell that launches the runs is itself under the same preload, as in
# a traced shell script; the columns are interleaved over REPS repetitions
# and the medians printed, with the ratio of the traced columns to the
# wrapper's.  A workload that starts many processes (git, make, shell
# scripts) pays this per process.
#
#   tests/bench/process-start.sh [-n RUNS] [-r REPS] [BUILD_DIR]
set -uo pipefail
runs=50 reps=3
while getopts n:r:h o; do
	case $o in
	n) runs=$OPTARG ;;
	r) reps=$OPTARG ;;
	*) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	esac
done
shift $((OPTIND - 1))
build=$(cd "${1:-$(dirname "$0")/../../build}" && pwd)
slubtrace=$build/src/cli/slubtrace
shim=$build/src/shim/libslub-malloc.so
wrapper=$(ls /usr/lib/*/liblttng-ust-libc-wrapper.so.1 2>/dev/null | head -1)
for f in "$slubtrace" "$shim"; do
	[[ -e $f ]] || { echo "process-start.sh: $f missing: build first" >&2; exit 2; }
done
command -v lttng >/dev/null || { echo "process-start.sh: lttng not installed" >&2; exit 2; }
work=$(mktemp -d /tmp/slubtrace-process-start.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The loop, timed inside: prints microseconds per run.
loop="t0=\$(date +%s%N); for ((i = 0; i < $runs; i++)); do /bin/true; done; \
t1=\$(date +%s%N); echo \"us=\$(( (t1 - t0) / $runs / 1000 ))\""

measure() { # column -> appends "column us" to $work/out
	local out us
	case $1 in
	glibc) out=$(bash -c "$loop") ;;
	shim) out=$(LD_PRELOAD=$shim bash -c "$loop") ;;
	record) out=$("$slubtrace" record -o "$work/t-$1" --no-check -- bash -c "$loop" 2>/dev/null) ;;
	record-nodl) out=$("$slubtrace" record -o "$work/t-$1" --no-check --no-dlopen-events \
		-- bash -c "$loop" 2>/dev/null) ;;
	libc-wrap)
		local s=pstart-$$
		lttng create "$s" --output="$work/t-$1" >/dev/null &&
			lttng enable-channel -u --session="$s" --subbuf-size=4M --num-subbuf=8 c >/dev/null &&
			lttng enable-event -u --session="$s" --channel=c 'lttng_ust_libc:*' >/dev/null &&
			lttng add-context -u --session="$s" --channel=c -t vpid -t vtid -t procname >/dev/null &&
			lttng start "$s" >/dev/null || { lttng destroy "$s" >/dev/null 2>&1; return; }
		out=$(LD_PRELOAD=$wrapper bash -c "$loop")
		lttng destroy "$s" >/dev/null 2>&1 ;;
	esac
	rm -rf "$work/t-$1"
	us=$(sed -n 's/^us=//p' <<<"$out" | tail -1)
	[[ -n $us ]] && echo "$1 $us" >>"$work/out"
}

# A session daemon for the wrapper's session (record starts its own when
# none answers, and leaves one it did not start alone).
started=0
if ! lttng list >/dev/null 2>&1; then
	lttng-sessiond --no-kernel --daemonize >/dev/null 2>&1 && started=1
	for _ in $(seq 50); do lttng list >/dev/null 2>&1 && break; sleep 0.1; done
fi
cols=(glibc shim record record-nodl)
[[ -n $wrapper ]] && cols+=(libc-wrap)
for ((r = 1; r <= reps; r++)); do
	for c in "${cols[@]}"; do
		measure "$c"
	done
	echo "process-start.sh: repetition $r of $reps done" >&2
done
if ((started)); then
	pf=${LTTNG_HOME:-$HOME}/.lttng/lttng-sessiond.pid
	[[ $(id -u) == 0 ]] && pf=/var/run/lttng/lttng-sessiond.pid
	[[ -f $pf ]] && kill "$(cat "$pf")" 2>/dev/null
fi

python3 - "$work/out" "$runs" "$reps" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    k, v = line.split()
    d[k].append(int(v))
med = {k: statistics.median(v) / 1000 for k, v in d.items()}
names = {"glibc": "glibc (no tracing)", "shim": "libslub-malloc.so, no session",
         "record": "slubtrace record", "record-nodl": "slubtrace record --no-dlopen-events",
         "libc-wrap": "libc-wrap traced (lttng_ust_libc:*)"}
print("Start of one process (/bin/true from a shell under the same preload), "
      "median of %s repetitions of %s runs:\n" % (sys.argv[3], sys.argv[2]))
print("| column | ms per process | added to glibc | added / wrapper's added |")
print("|---|---:|---:|---:|")
base = med.get("glibc", 0)
wadd = med["libc-wrap"] - base if "libc-wrap" in med else None
for k in ("glibc", "shim", "record", "record-nodl", "libc-wrap"):
    if k not in med:
        continue
    add = med[k] - base
    ratio = "%.2fx" % (add / wadd) if wadd and k != "glibc" else "-"
    print("| %s | %.1f | %+.1f | %s |" % (names[k], med[k], add, ratio))
PY
