#!/bin/sh
# prefetch.sh LIB...: the variant prefetch-freelist is compiled in: the
# slow allocation path ___slab_alloc of each library holds a prefetch of the
# next free pointer (prefetcht0 on x86-64, prfm on arm64), the only one in
# that function (the fast path has none).  Removing the call from cpu.c
# makes this fail.  Exit 77 (skipped) without objdump or without the symbol
# (a stripped library).
command -v objdump >/dev/null 2>&1 || { echo "no objdump: skipped"; exit 77; }
fail=0
for lib in "$@"; do
	body=$(objdump -d --no-show-raw-insn "$lib" | awk '/<___slab_alloc>:/,/^$/')
	[ -n "$body" ] || { echo "$lib: no ___slab_alloc symbol: skipped"; exit 77; }
	n=$(printf '%s\n' "$body" | grep -Ec 'prefetch|prfm')
	if [ "$n" -ge 1 ]; then
		echo "ok: $lib: ___slab_alloc has $n prefetch instruction(s)"
	else
		echo "FAIL: $lib: no prefetch in ___slab_alloc" >&2
		fail=1
	fi
done
exit $fail
