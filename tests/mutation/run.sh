#!/usr/bin/env bash
# Mutation run: apply each mutant of tests/mutation/mutants/ to a scratch
# copy of the tree, rebuild what its tests need, run those tests, and say
# whether they caught it.  Not part of CI (see README.md).
#
#   tests/mutation/run.sh [options] [NAME-PATTERN...]
#     -w DIR      scratch directory (default /tmp/slubtrace-mutation)
#     -t REF      take tests/ from git REF instead of the working tree
#                 (the score of an older test suite against the same mutants)
#     -T SECONDS  timeout of each test (default 120; a mutant's tests get
#                 that many seconds per test in all)
#     -B SECONDS  budget of the whole run: mutants not started in time are
#                 listed as "not run" (default: none)
#     -j N        build jobs (default 2)
#   NAME-PATTERN: run only the mutants whose file name contains one of them.
#
# The scratch copy is configured and built once; each mutant then costs one
# recompiled file, the relinks of its test programs, and its tests (each
# patch names them in its "Tests:" line).  Mutants marked "Equivalent:" are
# not run: they cannot change behaviour, the reason is in the patch.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=/tmp/slubtrace-mutation
tests_ref=
test_timeout=120
budget=0
jobs=2

while getopts "w:t:T:B:j:" o; do
	case $o in
	w) work=$OPTARG ;;
	t) tests_ref=$OPTARG ;;
	T) test_timeout=$OPTARG ;;
	B) budget=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) sed -n '2,20p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
patterns=("$@")

src=$work/src
build=$work/build
pristine=$work/pristine
log=$work/log
mkdir -p "$work" "$log"

# ---- the scratch copy: tracked and new files of the working tree ----
# Staged in $work/next, then synced into $src by content: a file that
# changed gets a fresh mtime (so the build recompiles it; tar would keep
# the tree's older mtime and leave a mutant's object in place), an
# unchanged one keeps its build.
next=$work/next
rm -rf "$next" "$pristine"
mkdir -p "$next" "$src"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard |
	tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$next"
if [ -n "$tests_ref" ]; then
	rm -rf "$next/tests"
	(cd "$repo" && git archive "$tests_ref" tests) | tar -xf - -C "$next"
	# the mutation kit itself stays the working tree's
	rm -rf "$next/tests/mutation"
	cp -r "$here" "$next/tests/mutation"
fi
(cd "$next" && find . -type f) | while read -r f; do
	if ! cmp -s "$next/$f" "$src/$f"; then
		mkdir -p "$(dirname "$src/$f")"
		cp "$next/$f" "$src/$f"
	fi
done
(cd "$src" && find . -type f) | while read -r f; do
	[ -e "$next/$f" ] || rm -f "$src/$f"
done
rm -rf "$next"
cp -r "$src" "$pristine"

echo "mutation: scratch copy in $src${tests_ref:+ (tests from $tests_ref)}"
if ! cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLUB_BUILD_BENCH=OFF \
	>"$log/configure.txt" 2>&1; then
	echo "mutation: configure failed, see $log/configure.txt"
	exit 2
fi
if ! cmake --build "$build" -j "$jobs" >"$log/build.txt" 2>&1; then
	echo "mutation: the unmutated tree does not build, see $log/build.txt"
	exit 2
fi

# Build targets of a test name.
targets_of() {
	case $1 in
	workload_shim) echo "slub-malloc slub-workload" ;;
	shim_*) echo "slub-malloc shim-semantics shim-fork shim-churn" ;;
	check_fork) echo "slub-malloc shim-fork" ;;
	check_workload*) echo "slub-malloc slub-workload" ;;
	check_*) echo "test_stress" ;;
	*) echo "test_$1" ;;
	esac
}

# The tests of the scratch copy (an older suite may lack some).
known_tests=" $(cd "$build" && ctest -N | sed -n 's/^ *Test *#[0-9]*: //p' | tr '\n' ' ') "

# The mutants of this run (NAME-PATTERNs).
selected() {
	local p name pat
	for p in "$here"/mutants/*.patch; do
		name=$(basename "$p" .patch)
		if [ ${#patterns[@]} -gt 0 ]; then
			for pat in "${patterns[@]}"; do
				case $name in *"$pat"*) echo "$p"; break ;; esac
			done
		else
			echo "$p"
		fi
	done
}

# The unmutated tree must pass every test the selected mutants use.
all_tests=$(selected | xargs sed -n 's/^Tests: //p' | tr ' ' '\n' | sort -u)
base=()
for t in $all_tests; do
	case $known_tests in *" $t "*) base+=("$t") ;; esac
done
regex="^($(IFS='|'; echo "${base[*]}"))\$"
echo "mutation: baseline: ${base[*]}"
if ! (cd "$build" && ctest -R "$regex" --timeout "$test_timeout" >"$log/baseline.txt" 2>&1); then
	echo "mutation: the unmutated tree fails its tests, see $log/baseline.txt"
	exit 2
fi

start=$(date +%s)
killed=0 survived=0 equivalent=0 errors=0 notrun=0
table=$work/table.txt
: >"$table"
row() { printf '%-44s %-10s %5s  %s\n' "$@" | tee -a "$table"; }
row MUTANT RESULT SECS "DETAIL"

for p in "$here"/mutants/*.patch; do
	name=$(basename "$p" .patch)
	if [ ${#patterns[@]} -gt 0 ]; then
		hit=0
		for pat in "${patterns[@]}"; do
			case $name in *"$pat"*) hit=1 ;; esac
		done
		[ $hit = 1 ] || continue
	fi
	if grep -q '^Equivalent:' "$p"; then
		equivalent=$((equivalent + 1))
		row "$name" equivalent - "$(sed -n 's/^Equivalent: //p' "$p" | cut -c1-70)"
		continue
	fi
	if [ "$budget" -gt 0 ] && [ $(($(date +%s) - start)) -ge "$budget" ]; then
		notrun=$((notrun + 1))
		row "$name" "not run" - "over the time budget"
		continue
	fi
	t0=$(date +%s)
	files=$(sed -n 's|^+++ b/||p' "$p")
	if ! patch -s -p1 -d "$src" <"$p" >"$log/$name.txt" 2>&1; then
		errors=$((errors + 1))
		row "$name" error - "patch does not apply"
		for f in $files; do cp "$pristine/$f" "$src/$f"; done
		continue
	fi
	tests=() targets=()
	for t in $(sed -n 's/^Tests: //p' "$p"); do
		case $known_tests in *" $t "*) tests+=("$t"); targets+=($(targets_of "$t")) ;; esac
	done
	result= detail=
	if [ ${#tests[@]} -eq 0 ]; then
		result=survived detail="none of its tests exists in this suite"
	elif ! cmake --build "$build" -j "$jobs" --target "${targets[@]}" >>"$log/$name.txt" 2>&1; then
		result=error detail="does not build"
	else
		regex="^($(IFS='|'; echo "${tests[*]}"))\$"
		# A test's own TIMEOUT property overrides ctest --timeout: bound
		# the whole run too (timeout signals ctest's process group).
		(cd "$build" && timeout -k 10 $((test_timeout * ${#tests[@]})) \
			ctest -R "$regex" --timeout "$test_timeout" --stop-on-failure --output-on-failure \
			>>"$log/$name.txt" 2>&1)
		rc=$?
		if [ $rc = 0 ]; then
			result=survived detail="ran: ${tests[*]}"
		elif [ $rc = 124 ] || [ $rc = 137 ]; then
			result=killed detail="by: timeout (${tests[*]})"
		else
			result=killed
			detail="by: $(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' "$log/$name.txt" | tr '\n' ' ')"
		fi
	fi
	case $result in
	killed) killed=$((killed + 1)) ;;
	survived) survived=$((survived + 1)) ;;
	*) errors=$((errors + 1)) ;;
	esac
	row "$name" "$result" $(($(date +%s) - t0)) "$detail"
	# Back to the unmutated files; the fresh mtime makes the next build
	# recompile them.
	for f in $files; do cp "$pristine/$f" "$src/$f"; done
done

run=$((killed + survived))
echo
echo "mutation: $killed killed, $survived survived, $equivalent equivalent (not run)," \
	"$errors errors, $notrun not run; $(($(date +%s) - start)) s"
if [ $run -gt 0 ]; then
	echo "mutation score: $killed / $run = $((100 * killed / run))%"
fi
echo "table: $table, logs: $log/"
