#!/bin/sh
# SPDX-License-Identifier: MIT
# The two allocator generations side by side on the same workloads: classic
# SLUB (cpu slabs and cpu partial slabs) and Linux 7.0's sheaves
# (SLUBTRACE_GENERATION=classic|sheaves).  Each workload runs, per
# generation, once untraced through /usr/bin/time (wall time, max RSS) and
# once under `slubtrace record --generation GEN --objects --blocking` (no event lost), whose
# trace `slubtrace stats` turns into the occupancy and locality figures;
# `slubtrace diff CLASSIC SHEAVES` judges them.  Prints one table a workload
# (figures by row, the generations and diff's verdict by column, the
# command above it) and a summary with the verdict on the prediction that
# sheaves lose the locality of cpu partial slabs (more partial slabs, more
# slabs touched, more unused slots): "confirmed" when diff finds one of
# partial_slabs_mean, slabs_touched_per_1k_allocs, slab_unused_pct
# REGRESSED under sheaves, "refuted" when it judged them and none did,
# "not measurable here" otherwise.  Never judges a timing.
#
#   generations.sh [-n small|medium|large] [-o FILE] [-w WORKDIR] BUILD
#
# -n small is the smoke size (ctest bench_generations); -o also writes the
# tables to FILE; -w keeps the traces and reports in WORKDIR.  Workloads:
# the bundled workload, the stress test, hackbench pipelines, larson, and
# through the malloc shim python3, sort and sqlite3 (each skipped when
# missing).  As root it runs as nobody with a private LTTNG_HOME (as the
# e2e tests) when nobody can reach BUILD.
set -u
size=medium out="" keep=""
while getopts "n:o:w:h" o; do
	case $o in
	n) size=$OPTARG ;;
	o) out=$OPTARG ;;
	w) keep=$OPTARG ;;
	*) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: $0 [-n small|medium|large] [-o FILE] [-w DIR] BUILD" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
slubtrace=$build/src/cli/slubtrace
shim=$build/src/shim/libslub-malloc.so
as_user_program=$build/tests/bench/hackbench
py=/usr/bin/python3
for f in "$slubtrace" "$shim" "$as_user_program" /usr/bin/time "$py"; do
	[ -e "$f" ] || { echo "generations: $f missing"; exit 2; }
done
command -v lttng >/dev/null 2>&1 || { echo "generations: no lttng: skipped"; exit 77; }
# The report file is written by the user the script runs as: make it ours
# before handing over to nobody.
if [ -n "$out" ]; then
	: >"$out" && chmod 666 "$out" 2>/dev/null
	out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
fi
if [ -n "$keep" ]; then
	mkdir -p "$keep" && chmod 777 "$keep" 2>/dev/null
	keep=$(cd "$keep" && pwd) || exit 2
fi
# as-user.sh runs this script again with "$@": the options, made absolute
set -- -n "$size"
[ -z "$out" ] || set -- "$@" -o "$out"
[ -z "$keep" ] || set -- "$@" -w "$keep"
set -- "$@" "$build"
. "$here/../../analysis/stats/tests/as-user.sh"

case $size in
small)
	wl="-g 1 -t 2 -m 200 -r 1" st="-t 2 -s 1" hb="-g 1 -f 2 -l 100"
	la="-t 2 -e 2 -k 2000 -c 200 -a 16 -b 256" lines=20000 pyn=2000 sqn=2000 ;;
medium)
	wl="-g 2 -t 3 -m 2000 -r 2" st="-t 4 -s 3" hb="-g 2 -f 4 -l 1500"
	la="-t 2 -e 4 -k 30000 -c 2000 -a 16 -b 512" lines=300000 pyn=200000 sqn=100000 ;;
large)
	wl="-g 4 -t 4 -m 4000 -r 3" st="-t 8 -s 10" hb="-g 4 -f 4 -l 6000"
	la="-t 4 -e 10 -k 100000 -c 5000 -a 16 -b 1024" lines=2000000 pyn=1000000 sqn=500000 ;;
*) echo "generations: size $size: small, medium or large" >&2; exit 2 ;;
esac

work=${keep:-$(mktemp -d /tmp/slubtrace-generations.XXXXXX)}
# A session daemon `slubtrace record` started here and left running (one
# record's daemon still stopping when the next started one) goes with us:
# only those whose LTTNG_HOME is this work directory.
stop_daemons() {
	for p in $(pgrep -u "$(id -u)" -x lttng-sessiond); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "LTTNG_HOME=$work" &&
			kill "$p"
	done
}
if [ -n "$keep" ]; then
	trap stop_daemons EXIT
else
	trap 'stop_daemons; rm -rf "$work"' EXIT
fi
export LTTNG_HOME="$work"
cd "$work" || exit 2

# Inputs of the real programs.
awk -v n="$lines" 'BEGIN { for (i = 1; i <= n; i++) printf "%d line %d %s\n", (i * 7919) % 100003, i, substr("abcdefghijklmnopqrstuvwxyz", 1 + i % 26) }' >sort.in
cat >churn.py <<EOF
import sys
n = $pyn
for r in range(3):
    words = [str(i) * (1 + i % 7) for i in range(n)]
    index = {w: [w, len(w)] for w in words}
    del words
    kept = {k: v for k, v in index.items() if len(k) % 3 == 0}
    del index
print(len(kept))
EOF
cat >load.sql <<EOF
create table t(id integer primary key, k text, v text);
with recursive c(x) as (select 1 union all select x + 1 from c where x < $sqn)
insert into t select x, hex(randomblob(8)), printf('%d-%s', x, hex(randomblob(24))) from c;
create index tk on t(k);
select count(*), sum(length(v)) from (select k, v from t order by k);
delete from t where id % 2 = 0;
select count(*) from t group by substr(k, 1, 2) limit 1;
EOF

# name|preload (1: through the shim)|command
{
	echo "bundled workload|1|$build/examples/slub-workload $wl"
	echo "stress test|0|$build/tests/test_stress $st"
	echo "hackbench pipelines|1|$build/tests/bench/hackbench $hb"
	echo "larson|1|$build/tests/bench/larson $la"
	# every object through malloc, not Python's arenas
	echo "python3 dict churn|1|/usr/bin/env PYTHONMALLOC=malloc $py $work/churn.py"
	echo "sort --parallel=2|1|/usr/bin/sort --parallel=2 -S 8M -o $work/sort.out $work/sort.in"
	[ -x /usr/bin/sqlite3 ] && echo "sqlite3 insert+index|1|/usr/bin/sqlite3 :memory: -init $work/load.sql .quit"
} >workloads.txt

echo "generations: size $size, $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
i=0
fail=0
while IFS='|' read -r name pre cmd; do
	i=$((i + 1))
	for g in classic sheaves; do
		d=w$i-$g
		# untraced: wall time and max RSS
		if [ "$pre" = 1 ]; then
			env SLUBTRACE_GENERATION=$g LD_PRELOAD="$shim" /usr/bin/time -f "%e %M" \
				-o "$d.time" $cmd >"$d.run.out" 2>&1 </dev/null
		else
			env SLUBTRACE_GENERATION=$g /usr/bin/time -f "%e %M" -o "$d.time" $cmd \
				>"$d.run.out" 2>&1 </dev/null
		fi || { echo "generations: $name ($g) failed untraced:"; tail -5 "$d.run.out"; fail=1; }
		# traced: every event, one per object
		"$slubtrace" record --generation "$g" -o "$work/$d" --objects --blocking \
			--stacks none --no-check -- $cmd >"$d.rec.out" 2>&1 </dev/null ||
			{ echo "generations: $name ($g) failed recording:"; tail -5 "$d.rec.out"; fail=1; }
		"$slubtrace" stats -o "$d.json" "$work/$d" >"$d.stats.txt" 2>&1 ||
			{ echo "generations: stats of $name ($g) failed:"; tail -5 "$d.stats.txt"; fail=1; }
	done
	"$slubtrace" diff "w$i-classic.json" "w$i-sheaves.json" >"w$i.diff" 2>&1
	echo "generations: $name done, load average $(cut -d' ' -f1-3 /proc/loadavg)"
done <workloads.txt

"$py" "$here/generations_table.py" "$work" "$size" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
	>tables.md || fail=1
cat tables.md
[ -z "$out" ] || cat tables.md >"$out"
exit $fail
