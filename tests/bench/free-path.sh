#!/bin/bash
# SPDX-License-Identifier: MIT
#
# free-path.sh: the untraced free paths against their floor and glibc,
# interleaved so that a shared machine's drift hits every column alike.
#
#   tests/bench/free-path.sh [-n RUNS] [-b BUILD] [-B OTHER_LIB] [-h]
#
# Per run, for this build's libslub-malloc.so, for OTHER_LIB when given (a
# libslub-malloc.so of another tree, say the one before a change) and for
# glibc in turn: slab_test -T 1 (N x free(64), 10,000 objects), -T 2
# (malloc/free(64) pairs, 200,000) and -T 4 (remote free(64)); then
# dwcas_floor (a bare `lock cmpxchg16b`, and a free's bare sequence: read,
# link, CAS).  Prints each figure's median and range, and the median of
# the runs' own ratios: N x free against the floor, pairs and remote frees
# against glibc.  Timings are reported, never judged: no exit status
# depends on them.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
runs=9
build="$top/build"
other=""

usage() {
	sed -n '4,16p' "$0" | sed 's/^# \{0,1\}//'
}

while getopts "n:b:B:h" o; do
	case $o in
	n) runs=$OPTARG ;;
	b) build=$OPTARG ;;
	B) other=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

bin="$build/tests/bench"
lib="$build/src/shim/libslub-malloc.so"
for f in "$bin/slab_test" "$bin/dwcas_floor" "$lib" ${other:+"$other"}; do
	if [ ! -e "$f" ]; then
		echo "free-path.sh: $f: not found (build with: cmake --build $build)" >&2
		exit 2
	fi
done
case $runs in
'' | *[!0-9]* | 0) echo "free-path.sh: -n wants a positive number, not '$runs'" >&2; exit 2 ;;
esac

out=$(mktemp)
trap 'rm -f "$out"' EXIT

columns="slubtrace glibc"
[ -n "$other" ] && columns="slubtrace other glibc"
echo "free-path: $runs runs; slubtrace = $lib${other:+; other = $other}" >&2
for i in $(seq 1 "$runs"); do
	printf '\rrun %d of %d' "$i" "$runs" >&2
	for col in $columns; do
		case $col in
		slubtrace) pre=$lib ;;
		other) pre=$other ;;
		glibc) pre= ;;
		esac
		for t in "1 -n 10000" "2 -n 200000" "4 -S 64 -n 10000"; do
			LD_PRELOAD=$pre "$bin/slab_test" -T $t -m 64 -s 64 -M |
				awk -v c="$col" -v r="$i" '/^@t[124]\.(free|pair)\.64\.ns /{print r, c, $1, $2}'
		done
	done
	"$bin/dwcas_floor" -n 2000000 -M | awk -v r="$i" '/^@floor/{print r, "floor", $1, $2}'
done >"$out"
echo >&2

python3 - "$out" "$columns" <<'EOF'
import collections, statistics as st, sys

rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
columns = sys.argv[2].split() + ["floor"]
val = collections.defaultdict(dict)          # (column, key) -> {run: value}
for run, col, key, v in rows:
    val[(col, key.lstrip("@"))][run] = float(v)

names = {"t1.free.64.ns": "N x free(64)", "t2.pair.64.ns": "malloc/free(64) pairs",
         "t4.free.64.ns": "remote free(64), test 4", "floor.dwcas.ns": "lock cmpxchg16b floor",
         "floor.dwcas_free.ns": "read, link, CAS (a free's bare sequence)"}
print("| figure | " + " | ".join(columns) + " |")
print("|---|" + "---:|" * len(columns))
for key, label in names.items():
    cells = []
    for c in columns:
        d = val.get((c, key))
        cells.append("%.2f ns (%.2f-%.2f)" % (st.median(d.values()), min(d.values()),
                                              max(d.values())) if d else "")
    print("| %s | %s |" % (label, " | ".join(cells)))

def ratio(a, b, label):
    x, y = val.get(a, {}), val.get(b, {})
    r = [x[k] / y[k] for k in x if k in y and y[k] > 0]
    if r:
        print("%s: median %.2fx (runs %.2f-%.2f)" % (label, st.median(r), min(r), max(r)))

print()
for c in [c for c in columns if c not in ("glibc", "floor")]:
    ratio((c, "t1.free.64.ns"), ("floor", "floor.dwcas.ns"), "%s N x free / floor" % c)
    ratio((c, "t1.free.64.ns"), ("floor", "floor.dwcas_free.ns"),
          "%s N x free / read-link-CAS" % c)
    ratio((c, "t2.pair.64.ns"), ("glibc", "t2.pair.64.ns"), "%s pairs / glibc" % c)
    ratio((c, "t4.free.64.ns"), ("glibc", "t4.free.64.ns"), "%s remote free / glibc" % c)
EOF
