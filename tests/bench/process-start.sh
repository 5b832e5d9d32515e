#!/usr/bin/env bash
# process-start.sh: what tracing adds to the start of a process, side by
# side: N runs of /bin/true launched by a shell, per run, for
#   glibc                  no preload, no session
#   shim                   libslub-malloc.so preloaded, no session
#   slubtrace record       `slubtrace record --no-check` (its defaults)
#   record --dlopen-events with liblttng-ust-dl preloaded
#   record --stacks none   no stacks: no slub:bin_info, no libgcc_s unwinder
#   before: record         BEFORE_BUILD's record with its defaults (-b)
#   libc-wrap traced       liblttng-ust-libc-wrapper in a session enabling
#                          lttng_ust_libc:* with the same contexts
#   libc-wrap + fork       the same with liblttng-ust-fork.so preloaded, as
#                          record preloads it (a forked child traced as such)
# The shell that launches the runs is itself under the same preload, as in
# a traced shell script (with the fork helper, each fork's child registers
# with the session daemon before it execs: two registrations per process);
# the columns are interleaved over REPS repetitions and the medians
# printed: wall time and CPU time (user + system of the shell and its
# children, less sensitive to a loaded machine) per process, the ratio of
# the added wall time to the wrapper's, and the load average.  A workload
# that starts many processes (git, make, shell scripts) pays this per
# process.
#
#   tests/bench/process-start.sh [-n RUNS] [-r REPS] [-b BEFORE_BUILD] [BUILD_DIR]
set -uo pipefail
runs=50 reps=3 before=
while getopts n:r:b:h o; do
	case $o in
	n) runs=$OPTARG ;;
	r) reps=$OPTARG ;;
	b) before=$(cd "$OPTARG" && pwd)/src/cli/slubtrace ;;
	*) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

# The loop, timed inside: prints microseconds per run, then `times`.
loop="t0=\$(date +%s%N); for ((i = 0; i < $runs; i++)); do /bin/true; done; \
t1=\$(date +%s%N); echo \"us=\$(( (t1 - t0) / $runs / 1000 ))\"; times"

measure() { # column -> appends "column us" to $work/out
	local out us
	case $1 in
	glibc) out=$(bash -c "$loop") ;;
	shim) out=$(LD_PRELOAD=$shim bash -c "$loop") ;;
	record) out=$("$slubtrace" record -o "$work/t-$1" --no-check -- bash -c "$loop" 2>/dev/null) ;;
	record-dl) out=$("$slubtrace" record -o "$work/t-$1" --no-check --dlopen-events \
		-- bash -c "$loop" 2>/dev/null) ;;
	record-nostacks) out=$("$slubtrace" record -o "$work/t-$1" --no-check --stacks none \
		-- bash -c "$loop" 2>/dev/null) ;;
	before) out=$("$before" record -o "$work/t-$1" --no-check -- bash -c "$loop" 2>/dev/null) ;;
	libc-wrap*)
		local s=pstart-$$
		lttng create "$s" --output="$work/t-$1" >/dev/null &&
			lttng enable-channel -u --session="$s" --subbuf-size=4M --num-subbuf=8 c >/dev/null &&
			lttng enable-event -u --session="$s" --channel=c 'lttng_ust_libc:*' >/dev/null &&
			lttng add-context -u --session="$s" --channel=c -t vpid -t vtid >/dev/null &&
			lttng start "$s" >/dev/null || { lttng destroy "$s" >/dev/null 2>&1; return; }
		local pre=$wrapper
		[[ $1 == libc-wrap-fork ]] && pre=$wrapper:liblttng-ust-fork.so.1
		out=$(LD_PRELOAD=$pre bash -c "$loop")
		lttng destroy "$s" >/dev/null 2>&1 ;;
	esac
	rm -rf "$work/t-$1"
	us=$(sed -n 's/^us=//p' <<<"$out" | tail -1)
	# `times`: the shell's user and system time, then its children's
	cpu=$(grep -Eo '[0-9]+m[0-9.]+s' <<<"$out" | tail -4 |
		awk -F'[ms]' -v n="$runs" '{ t += $1 * 60 + $2 } END { printf "%d", t * 1e6 / n }')
	[[ -n $us ]] && echo "$1 $us ${cpu:-0}" >>"$work/out"
}

# A session daemon for the wrapper's session (record starts its own when
# none answers, and leaves one it did not start alone).
started=0
if ! lttng list >/dev/null 2>&1; then
	lttng-sessiond --no-kernel --daemonize >/dev/null 2>&1 && started=1
	for _ in $(seq 50); do lttng list >/dev/null 2>&1 && break; sleep 0.1; done
fi
cols=(glibc shim record record-dl record-nostacks)
[[ -n $before ]] && cols+=(before)
[[ -n $wrapper ]] && cols+=(libc-wrap libc-wrap-fork)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
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

python3 - "$work/out" "$runs" "$reps" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(list)
c = collections.defaultdict(list)
for line in open(sys.argv[1]):
    k, v, cpu = line.split()
    d[k].append(int(v))
    c[k].append(int(cpu))
med = {k: statistics.median(v) / 1000 for k, v in d.items()}
cpu = {k: statistics.median(v) / 1000 for k, v in c.items()}
names = {"glibc": "glibc (no tracing)", "shim": "libslub-malloc.so, no session",
         "record": "slubtrace record", "record-dl": "slubtrace record --dlopen-events",
         "record-nostacks": "slubtrace record --stacks none",
         "before": "before: slubtrace record (-b build)",
         "libc-wrap": "libc-wrap traced (lttng_ust_libc:*)",
         "libc-wrap-fork": "libc-wrap + liblttng-ust-fork.so"}
print("Start of one process (/bin/true from a shell under the same preload), "
      "median of %s repetitions of %s runs; load average %s at the start, %s at the end:\n"
      % (sys.argv[3], sys.argv[2], sys.argv[4], sys.argv[5]))
print("| column | ms per process | CPU ms per process | added to glibc | "
      "added / wrapper's added |")
print("|---|---:|---:|---:|---:|")
base = med.get("glibc", 0)
wadd = med["libc-wrap"] - base if "libc-wrap" in med else None
for k in names:
    if k not in med:
        continue
    add = med[k] - base
    ratio = "%.2fx" % (add / wadd) if wadd and k != "glibc" else "-"
    print("| %s | %.1f | %.1f | %+.1f | %s |" % (names[k], med[k], cpu[k], add, ratio))
PY
