#!/bin/sh
# recorded.sh SLUBTRACE WORKLOAD: `slubtrace compare` with recorded runs, the
# default against itself, two runs per side: the traces are recorded (a
# private LTTNG_HOME; record starts and stops its session daemon), pooled
# per side and diffed: exit 0 (nothing regressed, as `slubtrace diff` on
# the same runs says), every figure's verdict in the JSON, and the traces
# kept under -o.  Then --cache: one run a side, every figure of the diff
# that cache's; a cache the runs do not have is refused (exit 2) with the
# list of those they have.  Exit 77 (skipped) without lttng.
slubtrace=$1 workload=$2
# As root, again as nobody: a root session daemon is the machine's global
# one, shared with every other recording (another suite) running meanwhile.
as_user_program=$workload
. "$(dirname "$0")/../../analysis/stats/tests/as-user.sh"
command -v lttng >/dev/null 2>&1 || { echo "no lttng: skipped"; exit 77; }
command -v lttng-sessiond >/dev/null 2>&1 || { echo "no lttng-sessiond: skipped"; exit 77; }
work=$(mktemp -d /tmp/slubtrace-compare-rec.XXXXXX)
trap 'rm -rf "$work"' EXIT
export LTTNG_HOME=$work/home
mkdir -p "$LTTNG_HOME"
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

"$slubtrace" compare --record-only -n 2 --json -o "$work/traces" -- "$workload" -r 3 \
	>"$work/out.json" 2>"$work/err"
rc=$?
cat "$work/err"
[ $rc -eq 0 ] || { cat "$work/out.json"; bad "default against default: exit $rc, want 0"; }
python3 - "$work/out.json" <<'PY' || bad "the JSON"
import json, os, sys
r = json.load(open(sys.argv[1]))
assert r["recorded"] and not r["timing"] and r["figures"] == [], r
for side in ("before", "after"):
    t = r[side]["traces"]
    assert len(t) == 2 and all(os.path.isdir(x) for x in t), t
d = r["diff"]
assert d["regressed"] == 0, d
names = {f["name"] for f in d["figures"] if f["scope"] == "overall"}
assert "lock_acq_per_1k_allocs" in names, names
judged = [f for f in d["figures"] if f["verdict"] in ("ok", "improved")]
assert judged, d
print("recorded: ok,", len(judged), "figures judged")
PY
# the pooled diff is the one `slubtrace diff` prints for the same traces
"$slubtrace" diff --procname slub-workload --before "$work/traces/before-1" \
	--before "$work/traces/before-2" --after "$work/traces/after-1" \
	--after "$work/traces/after-2" >/dev/null
rc=$?
[ $rc -eq 0 ] || bad "slubtrace diff on the same traces: exit $rc"

# --cache: the diff of one cache
"$slubtrace" compare --record-only -n 1 --json --cache kmalloc-64 -o "$work/cache" -- \
	"$workload" -r 3 >"$work/cache.json" 2>"$work/err"
rc=$?
[ $rc -le 1 ] || { cat "$work/err"; bad "--cache kmalloc-64: exit $rc, want 0 or 1"; }
python3 - "$work/cache.json" <<'PY' || bad "--cache kmalloc-64: the JSON"
import json, sys
d = json.load(open(sys.argv[1]))["diff"]
scopes = {f["scope"] for f in d["figures"]}
assert d["figures"] and scopes == {"kmalloc-64"}, scopes
print("compare --cache: ok,", len(d["figures"]), "figures of kmalloc-64")
PY
"$slubtrace" compare --record-only -n 1 --json --cache no-such-cache -o "$work/nocache" -- \
	"$workload" -r 1 >/dev/null 2>"$work/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "no cache \`no-such-cache\` in it; its caches: .*kmalloc-64" "$work/err"; then
	echo "compare --cache no-such-cache: refused, naming the caches"
else
	cat "$work/err"
	bad "--cache no-such-cache: exit $rc, or no list of the caches"
fi
[ $fail -eq 0 ] && echo "compare recorded: all passed"
exit $fail
