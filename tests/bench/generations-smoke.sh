#!/bin/sh
# SPDX-License-Identifier: MIT
# ctest bench_generations: generations.sh at its smoke size prints a table
# for every workload with every row and column, and the summary; on the
# stress test (a real recording under each generation) the occupancy and
# locality figures are plausible: allocations, slabs, slabs touched per
# 1,000 allocations and list_lock acquisitions nonzero on both sides, and
# at most 1,000 slabs touched per 1,000 allocations.  Never a timing.
#
#   generations-smoke.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp /tmp/slubtrace-generations-smoke.XXXXXX)
trap 'rm -f "$out"' EXIT
sh "$here/generations.sh" -n small -o "$out" "$1"
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "FAIL: generations.sh exit $rc"; exit 1; }
/usr/bin/python3 - "$out" "$here/generations_table.py" <<'PY'
import importlib.util, re, sys
text = open(sys.argv[1]).read()
spec = importlib.util.spec_from_file_location("gt", sys.argv[2])
gt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gt)
fails = []
sections = re.split(r"^### ", text, flags=re.M)[1:]
workloads = [s for s in sections if not s.startswith("Summary")]
want = ["bundled workload", "stress test", "hackbench pipelines", "larson",
        "python3 dict churn", "sort --parallel=2"]
names = [s.splitlines()[0] for s in workloads]
for w in want:
    if w not in names:
        fails.append("no table for " + w)
rows = {}
for s in workloads:
    name = s.splitlines()[0]
    if "| figure | classic | sheaves | change | diff |" not in s:
        fails.append(name + ": no header row")
    rows[name] = {}
    for line in s.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 5:
            rows[name][cells[0]] = cells[1:]
    for label, _, _ in gt.ROWS:
        if label not in rows[name]:
            fails.append("{}: no row '{}'".format(name, label))
summary = [s for s in sections if s.startswith("Summary")]
if not summary:
    fails.append("no summary")
else:
    for n in names:
        if not re.search(r"^\| " + re.escape(n) + r" \|(.*\|){5}$", summary[0], re.M):
            fails.append("summary: no row for " + n)

def num(cell):
    try:
        return float(cell.replace(",", "").split()[0])
    except ValueError:
        return None

stress = rows.get("stress test", {})
for label in ("allocations (traced)", "slabs peak", "slabs mean",
              "slabs touched per 1,000 allocations",
              "list_lock acquisitions per 1,000 allocations"):
    for side, cell in zip(("classic", "sheaves"), stress.get(label, ["-", "-"])[:2]):
        v = num(cell)
        if v is None or v <= 0:
            fails.append("stress test, {}: {} is {!r}".format(side, label, cell))
        if label.startswith("slabs touched") and v is not None and v > 1000:
            fails.append("stress test, {}: {} slabs touched per 1,000".format(side, v))
for f in fails:
    print("FAIL:", f)
print("generations smoke: {} tables, {} failures".format(len(workloads), len(fails)))
sys.exit(1 if fails else 0)
PY
