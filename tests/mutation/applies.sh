#!/bin/sh
# applies.sh SOURCE_DIR: every mutant of tests/mutation/mutants still applies
# to the source tree (`patch --dry-run`), so that run.sh measures the suite
# and not rotten patches.  A mutant that no longer applies is named with
# the file it touches: make it again with the same intent.
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
done
echo "mutants: $n, not applying: $bad"
[ "$bad" -eq 0 ]
