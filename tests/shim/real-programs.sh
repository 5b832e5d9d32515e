#!/bin/bash
# SPDX-License-Identifier: MIT
# Real programs on libslub-malloc.so, compared byte for byte with glibc.
#
#   real-programs.sh LIBSLUB_MALLOC WORKLOAD
#
# Runs the workload (see workloads.sh) three times: under glibc malloc, under
# the shim, and under the shim with SLUBTRACE_DEBUG=FZP (consistency checks,
# red zones, poisoning).  Passes when all three exit 0, leave identical
# outputs, and the shim runs wrote no slubtrace report other than notes
# about foreign pointers.  Exit 77 (skipped) when a program is missing.
set -u

shim=$1
wl=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/workloads.sh"

for p in $(wl_needs "$wl"); do
	command -v "$p" >/dev/null 2>&1 || { echo "skip: $p not installed"; exit 77; }
done
[ -f "$shim" ] || { echo "no $shim"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/shim-real.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0

run() {
	local cfg=$1
	shift
	mkdir -p "$tmp/$cfg"
	local t0=$(date +%s.%N)
	env "$@" timeout 600 bash -c '. "$1"; "wl_$2" "$3"' _ \
		"$here/workloads.sh" "$wl" "$tmp/$cfg" 2>"$tmp/$cfg.err"
	local rc=$?
	printf '%-12s exit %d  %.2fs\n' "$cfg" "$rc" "$(echo "$(date +%s.%N) - $t0" | bc 2>/dev/null || echo 0)"
	if [ $rc -ne 0 ]; then
		echo "FAIL: $wl under $cfg exited with $rc; stderr:"
		head -40 "$tmp/$cfg.err"
		fail=1
	fi
}

run glibc
run shim LD_PRELOAD="$shim"
run shim-FZP LD_PRELOAD="$shim" SLUBTRACE_DEBUG=FZP

for cfg in shim shim-FZP; do
	# every file the glibc run produced, byte for byte
	wl_outputs "$tmp/glibc" >"$tmp/files.glibc"
	wl_outputs "$tmp/$cfg" >"$tmp/files.$cfg"
	if ! cmp -s "$tmp/files.glibc" "$tmp/files.$cfg"; then
		echo "FAIL: $wl under $cfg produced a different set of files:"
		diff "$tmp/files.glibc" "$tmp/files.$cfg" | head -20
		fail=1
	fi
	n=0
	while read -r f; do
		[ -f "$tmp/$cfg/$f" ] || continue
		n=$((n + 1))
		if ! cmp -s "$tmp/glibc/$f" "$tmp/$cfg/$f"; then
			echo "FAIL: $wl: $f differs between glibc and $cfg"
			diff <(head -c 4000 "$tmp/glibc/$f") <(head -c 4000 "$tmp/$cfg/$f") | head -20
			fail=1
		fi
	done <"$tmp/files.glibc"
	echo "$cfg: $n output files identical to glibc's" | sed "s/^/  /"
	# the allocator's reports: corruption, misuse, assertions
	if grep -a '^slubtrace: ' "$tmp/$cfg.err" | grep -v '^slubtrace: note: ' >"$tmp/reports"; then
		echo "FAIL: $wl under $cfg: slubtrace reported:"
		head -40 "$tmp/reports"
		fail=1
	fi
	notes=$(grep -ac '^slubtrace: note: ' "$tmp/$cfg.err")
	[ "$notes" = 0 ] || echo "  $cfg: $notes foreign-pointer notes"
done

[ $fail -eq 0 ] && echo "PASS: $wl"
exit $fail
