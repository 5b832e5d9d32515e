#!/usr/bin/env bash
# fastpath.sh: the untraced allocation and free paths of two builds of the
# malloc shim side by side, with slab_test (single thread: 1. N x malloc
# then N x free, 2. malloc/free pairs; every thread at once: 3.), to show
# that a change to the allocator left a path as it was.
#
#   tests/bench/fastpath.sh [-r ROUNDS] [-T TESTS] BEFORE_BUILD [BUILD_DIR]
#   tests/bench/fastpath.sh -g REV [-r ROUNDS] [-T TESTS] [BUILD_DIR]
#
# BEFORE_BUILD is a build directory of the older tree; -g REV builds the
# shim of git revision REV in a temporary work tree first (a minute or
# two).  BUILD_DIR (default: build) gives the newer shim and the slab_test
# both are driven by.  ROUNDS (default 6) interleaved rounds, each running
# slab_test once under each shim (`-r 5`: the best of 5 passes per size),
# starting from a different shim each round; per size the median of the
# rounds, per test and path the geometric mean over the sizes, and the
# ratio newer/older.
#
# Both shims are copied to one temporary directory before anything is
# timed, so that each run reads fresh copies.  On the machine this was
# written on, one shim file measured 8.6-9.9 ns per malloc/free pair,
# run after run, against 5.6 ns for a byte-identical copy of it -- and
# 5.6 ns for the file itself once the page cache had been dropped: where
# the kernel happened to place a file's cached pages was enough to move
# the fast path by half.  Comparing in place would have reported a 55 %
# regression that is not there; a surprising ratio is worth a second run
# (new copies, new pages) before it is believed.  Test 3 runs two threads
# or more on however many cpus the machine has, with page allocation in
# its timed passes: on a loaded machine its medians move by 2x between
# runs of the same shim, so read it as a coarse figure.
set -uo pipefail
rounds=6 tests=123 rev=
while getopts r:T:g:h o; do
	case $o in
	r) rounds=$OPTARG ;;
	T) tests=$OPTARG ;;
	g) rev=$OPTARG ;;
	*) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	esac
done
shift $((OPTIND - 1))
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/slubtrace-fastpath.XXXXXX")
cleanup() {
	[[ -n $rev && -d $work/tree ]] && git -C "$here" worktree remove --force "$work/tree" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

if [[ -n $rev ]]; then
	echo "fastpath.sh: building the shim of $rev in $work/tree" >&2
	git -C "$here" worktree add -q --detach "$work/tree" "$rev" || exit 2
	if ! { cmake -S "$work/tree" -B "$work/tree/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DSLUB_BUILD_TESTS=OFF -DSLUB_BUILD_BENCH=OFF >"$work/build.log" 2>&1 &&
		cmake --build "$work/tree/build" -j "$(nproc)" --target slub-malloc \
		>>"$work/build.log" 2>&1; }; then
		echo "fastpath.sh: the build of $rev failed; its log:" >&2
		tail -20 "$work/build.log" >&2
		exit 2
	fi
	before=$work/tree/build
else
	[[ $# -ge 1 ]] || { echo "usage: $0 [-r ROUNDS] [-T TESTS] BEFORE_BUILD [BUILD_DIR] | -g REV [BUILD_DIR]" >&2; exit 2; }
	before=$1
	shift
fi
build=$(cd "${1:-$here/build}" && pwd) || exit 2
slab_test=$build/tests/bench/slab_test
for f in "$before/src/shim/libslub-malloc.so" "$build/src/shim/libslub-malloc.so" "$slab_test"; do
	[[ -e $f ]] || { echo "fastpath.sh: $f missing: build first" >&2; exit 2; }
done
cp "$before/src/shim/libslub-malloc.so" "$work/old.so" &&
	cp "$build/src/shim/libslub-malloc.so" "$work/new.so" || exit 2

echo "# slab_test -n 10000 -r 5 -T $tests -S 1024, $rounds interleaved rounds; $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "#   older: $before"
echo "#   newer: $build"
for ((i = 0; i < rounds; i++)); do
	order="old new"
	((i % 2)) && order="new old"
	for v in $order; do
		LD_PRELOAD=$work/$v.so "$slab_test" -n 10000 -r 5 -T "$tests" -S 1024 -M 2>/dev/null |
			grep '^@t[0-9]*\..*\.ns ' >"$work/$v.$i" ||
			{ echo "fastpath.sh: slab_test failed under the $v shim" >&2; exit 1; }
	done
	printf '\rround %d of %d' $((i + 1)) "$rounds" >&2
done
echo >&2

python3 - "$work" "$rounds" <<'EOF'
import collections, math, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
fig = {v: collections.defaultdict(list) for v in ("old", "new")}
for v in fig:
    for i in range(rounds):
        for line in open(f"{work}/{v}.{i}"):
            name, value = line.split()
            fig[v][name].append(float(value))
groups = collections.OrderedDict()
for name in fig["old"]:
    if name not in fig["new"]:
        continue
    test, path = name[1:].split(".")[:2]
    groups.setdefault(f"{test} {path}", []).append(
        (statistics.median(fig["old"][name]), statistics.median(fig["new"][name])))
gmean = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
print(f"| test, path | sizes | older ns | newer ns | newer/older |")
print(f"|---|---:|---:|---:|---:|")
for g, pairs in groups.items():
    a, b = gmean([p[0] for p in pairs]), gmean([p[1] for p in pairs])
    print(f"| {g} | {len(pairs)} | {a:.2f} | {b:.2f} | {b / a:.3f} |")
EOF
