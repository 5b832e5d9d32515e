# SPDX-License-Identifier: MIT
# Real-program workloads shared by real-programs.sh (test) and
# real-programs-bench.sh (figures).  Sourced by bash.
#
# Each wl_NAME DIR runs its programs in DIR and leaves its outputs there:
# files named *.out, *.gz, *.xz, *.o, which the caller compares; other files
# (a git repository, a database file) hold timestamps, inode numbers or the
# order of a threaded delta search and are not compared.  The
# outputs depend only on the inputs: fixed seeds, fixed dates, fixed names.
# Whatever allocator the caller preloads applies to every program started.

SHIM_WORKLOADS="python sort-gzip-xz git gcc sqlite"
SHIM_TEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SHIM_PYTHON=/usr/bin/python3

# The outputs of a run in DIR that must match across allocators.
wl_outputs() {
	(cd "$1" && find . -maxdepth 1 -type f \( -name '*.out' -o -name '*.gz' \
		-o -name '*.xz' -o -name '*.o' \) | sort)
}

# Programs a workload needs (for skipping when one is missing).
wl_needs() {
	case $1 in
	python) echo "$SHIM_PYTHON" ;;
	sort-gzip-xz) echo "$SHIM_PYTHON sort gzip xz" ;;
	git) echo "git" ;;
	gcc) echo "gcc" ;;
	sqlite) echo "sqlite3" ;;
	esac
}

wl_python() {
	PYTHONMALLOC=malloc PYTHONHASHSEED=0 "$SHIM_PYTHON" \
		"$SHIM_TEST_DIR/workload.py" run >"$1/python.out"
}

wl_sort-gzip-xz() {
	local d=$1
	PYTHONMALLOC=malloc PYTHONHASHSEED=0 "$SHIM_PYTHON" \
		"$SHIM_TEST_DIR/workload.py" gen 100000 >"$d/data.in"
	LC_ALL=C sort "$d/data.in" >"$d/sort-plain.out"
	LC_ALL=C sort --parallel=2 -S 8M -t, -k3,3n -k1,1 "$d/data.in" >"$d/sort-numeric.out"
	LC_ALL=C sort -u -t, -k1,1 "$d/data.in" >"$d/sort-unique.out"
	gzip -n -6 -c "$d/data.in" >"$d/data.gz"
	gzip -dc "$d/data.gz" >"$d/gunzip.out"
	xz -T2 -3 --block-size=1MiB -c "$d/data.in" >"$d/data.xz"
	xz -dc "$d/data.xz" >"$d/unxz.out"
	cmp "$d/data.in" "$d/gunzip.out" && cmp "$d/data.in" "$d/unxz.out"
}

wl_git() {
	local d=$1 i
	(
		export HOME=$d GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
		export GIT_AUTHOR_NAME="Slab Tester" GIT_AUTHOR_EMAIL=slab@example.org
		export GIT_COMMITTER_NAME="Slab Tester" GIT_COMMITTER_EMAIL=slab@example.org
		export GIT_AUTHOR_DATE="2024-01-02T03:04:05+00:00"
		export GIT_COMMITTER_DATE="2024-01-02T03:04:05+00:00"
		export TZ=UTC LC_ALL=C
		cd "$d" || exit 1
		git -c init.defaultBranch=main init -q repo && cd repo || exit 1
		mkdir -p src docs
		for i in $(seq 1 120); do
			printf 'int f%d(int x)\n{\n\treturn x * %d + %d;\n}\n' "$i" "$i" $((i * 7)) >"src/f$i.c"
		done
		seq 1 5000 | sed 's/^/line /' >docs/big.txt
		git add -A && git commit -q -m "initial import"
		for i in $(seq 1 20); do
			sed -i "s/return x \* $i /return x * $((i + 1000)) /" "src/f$i.c"
			echo "change $i" >>docs/big.txt
			git commit -q -am "change $i"
		done
		git checkout -q -b topic HEAD~5
		echo topic >docs/topic.txt
		git add docs/topic.txt && git commit -q -m topic
		git checkout -q main
		git merge -q --no-edit topic
		git log --stat --format='%H %an %ad %s' >../git-log.out
		git rev-parse HEAD HEAD^{tree} >../git-rev.out
		git diff --stat HEAD~10 HEAD >../git-diff.out
		git gc -q --aggressive
		git fsck --full 2>&1 | sort >../git-fsck.out
		git count-objects -v | grep -v '^size' >../git-count.out
		git archive --format=tar HEAD | sha256sum >../git-archive.out
	)
}

wl_gcc() {
	local d=$1 i
	{
		echo '#include <stdio.h>'
		echo '#include <stdlib.h>'
		echo '#include <string.h>'
		for i in $(seq 1 300); do
			printf 'static unsigned long g%d(unsigned long x) { unsigned long r = x; for (int i = 0; i < %d; i++) r = r * 6364136223846793005ul + %d; return r ^ (r >> 17); }\n' "$i" $((i % 13 + 1)) "$i"
		done
		echo 'int main(void) { unsigned long acc = 1; char *buf = malloc(1 << 16);'
		for i in $(seq 1 300); do
			printf '\tacc += g%d(acc);\n' "$i"
		done
		echo '	for (int i = 0; i < 1000; i++) { snprintf(buf, 1 << 16, "%lu-%d", acc, i); acc += strlen(buf); }'
		echo '	printf("%lu\n", acc); free(buf); return 0; }'
	} >"$d/prog.c"
	(cd "$d" && gcc -O2 -c -o prog.o prog.c && gcc -o prog prog.o && ./prog >prog.out) &&
		mv "$d/prog.c" "$d/prog.c.in" && rm -f "$d/prog"
}

wl_sqlite() {
	local d=$1
	sqlite3 "$d/db.sqlite" >"$d/sqlite.out" <<'EOF'
PRAGMA journal_mode=WAL;
CREATE TABLE t(id INTEGER PRIMARY KEY, k TEXT, v INTEGER, payload BLOB);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 60000)
INSERT INTO t(k, v, payload)
	SELECT printf('key-%05d', (x * 7919) % 60000), (x * 2654435761) % 100003,
	       zeroblob(x % 900) FROM c;
CREATE INDEX t_k ON t(k);
CREATE INDEX t_v ON t(v);
SELECT count(*), sum(v), sum(length(payload)) FROM t;
SELECT k, v FROM t ORDER BY v DESC, k LIMIT 20;
SELECT v % 97 AS b, count(*), min(k), max(k) FROM t GROUP BY b ORDER BY b;
UPDATE t SET payload = randomblob(0), v = v + 1 WHERE id % 3 = 0;
DELETE FROM t WHERE id % 5 = 0;
SELECT count(*), sum(v) FROM t;
SELECT group_concat(k, ';') FROM (SELECT k FROM t WHERE v < 200 ORDER BY k);
VACUUM;
PRAGMA integrity_check;
SELECT json_group_array(json_object('k', k, 'v', v)) FROM (SELECT k, v FROM t ORDER BY k LIMIT 50);
EOF
}
