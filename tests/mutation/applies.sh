#!/bin/sh
# applies.sh SOURCE_DIR: every mutant of tests/mutation/mutants still applies
# to the source tree (`patch --dry-run`), so that run.sh measures the suite
# and not rotten patches.  A mutant that no longer applies is named with
# the file it touches: make it again with the same intent.  Each names the
# tests that must kill it (or says why it is equivalent), and no two share
# a number.
src=$1
command -v patch >/dev/null 2>&1 || { echo "patch not installed: skipped"; exit 77; }
cd "$src" || exit 2
bad=0 n=0
for p in tests/mutation/mutants/*.patch; do
	n=$((n + 1))
	if ! patch -p1 --dry-run -s -f <"$p" >/dev/null 2>&1; then
		echo "FAIL: $p no longer applies to $(sed -n 's/^+++ b\///p' "$p" | head -1)"
		bad=$((bad + 1))
	fi
	# run.sh needs a Tests: line (or Equivalent:) to run or skip it
	if ! grep -q '^Tests: [^ ]' "$p" && ! grep -q '^Equivalent: ' "$p"; then
		echo "FAIL: $p names no test (Tests:) and is not marked Equivalent:"
		bad=$((bad + 1))
	fi
done
# one number per mutant: run.sh's selection and the README refer to them
dup=$(ls tests/mutation/mutants/*.patch | sed 's|.*/||; s|-.*||' | sort | uniq -d)
if [ -n "$dup" ]; then
	echo "FAIL: mutant numbers used twice: $dup"
	bad=$((bad + 1))
fi
echo "mutants: $n, failing: $bad"
[ "$bad" -eq 0 ]
