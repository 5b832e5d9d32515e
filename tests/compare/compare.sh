#!/bin/sh
# compare.sh SLUBTRACE: the verdicts of `slubtrace compare` (timing runs).
#  - an injected delay (the AFTER side sleeps 0.4 s more, and the workload
#    prints delay_ms, exact): exit 1, delay_ms is judged regressed with the
#    interval [400, 400] (an exact figure: no spread, so deterministic);
#    the wall time of every AFTER run is at least 0.4 s and its interval
#    is printed (never judged: timings are not pass/fail criteria);
#  - a delay injected into wall time alone (0.5 s on a 50 ms run, 8 runs a
#    side, --metric wall_s): exit 1, wall_s regressed, its interval above 0;
#  - identical sides, wall time deciding (the same 50 ms run, --threshold
#    50): exit 0; and judged on an exact figure (--metric): exit 0, the
#    interval is [0, 0];
#  - bad input: exit 2 with a message.
slubtrace=$1
work=$(mktemp -d /tmp/slubtrace-compare-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

# the workload: sleeps $DELAY seconds, prints its figures
cat >"$work/load.sh" <<'SH'
#!/bin/sh
sleep "${DELAY:-0}"
echo "units=1000"
echo "delay_ms=$(awk "BEGIN { print ${DELAY:-0} * 1000 }")"
echo "a line that is not a figure: x=1 y=2"
SH
chmod +x "$work/load.sh"

"$slubtrace" compare --timing-only -n 3 --json --before-env DELAY=0 --after-env DELAY=0.4 \
	-- "$work/load.sh" >"$work/delay.json"
rc=$?
cat "$work/delay.json"
[ $rc -eq 1 ] || bad "injected delay: exit $rc, want 1"
python3 - "$work/delay.json" <<'PY' || bad "injected delay: the JSON verdicts"
import json, sys
r = json.load(open(sys.argv[1]))
f = {x["name"]: x for x in r["figures"]}
assert r["schema"] == "slubtrace-compare/1" and r["method"] == "welch-t", r
assert r["exit"] == 1
w = f["wall_s"]
assert w["before"]["n"] == 3 and w["after"]["n"] == 3 and w["decides"], w
# every AFTER run sleeps 0.4 s: a floor, whatever the machine's load (the
# wall time's interval is printed, not judged: a stalled BEFORE run can
# widen it past 0 on a busy machine)
assert min(w["after"]["values"]) >= 0.4, w
# the interval is the mean difference +- t * se, t for Welch's df
assert w["ci"][0] < w["diff"] < w["ci"][1] and w["t"] > 1.96, w
print("wall_s: change %+.3f s, 95%% CI [%+.3f, %+.3f] (%s)" % (w["diff"], w["ci"][0], w["ci"][1], w["verdict"]))
d = f["delay_ms"]
assert d["before"]["values"] == [0, 0, 0] and d["after"]["values"] == [400, 400, 400], d
assert d["verdict"] == "regressed" and d["ci"] == [400, 400], d
u = f["units"]
assert not u["decides"] and u["verdict"] == "not distinguishable", u
assert "x" not in f and "y" not in f, f
print("delay: ok")
PY

# the delay measured, not printed: wall time alone decides.  The AFTER side
# sleeps 0.5 s more than a 50 ms run (+1000 %), 8 runs a side: a pause of
# the machine would have to stall most BEFORE runs by about half a second
# to hide it.  --threshold 50 is the gate of the identical sides below.
cat >"$work/sleep.sh" <<'SH'
#!/bin/sh
sleep "$DELAY"
SH
chmod +x "$work/sleep.sh"
"$slubtrace" compare --timing-only -n 8 --json --metric wall_s --threshold 50 \
	--before-env DELAY=0.05 --after-env DELAY=0.55 -- "$work/sleep.sh" >"$work/wall.json"
rc=$?
[ $rc -eq 1 ] || { cat "$work/wall.json"; bad "injected delay, wall time: exit $rc, want 1"; }
python3 - "$work/wall.json" <<'PY' || bad "injected delay, wall time: the JSON verdicts"
import json, sys
r = json.load(open(sys.argv[1]))
w = {x["name"]: x for x in r["figures"]}["wall_s"]
assert r["exit"] == 1 and w["decides"] and w["verdict"] == "regressed", w
assert w["ci"][0] > 0, w
print("wall_s (0.5 s injected): change %+.3f s, 95%% CI [%+.3f, %+.3f], %s" %
      (w["diff"], w["ci"][0], w["ci"][1], w["verdict"]))
PY
# identical sides, wall time deciding: the same 50 ms run both sides; a
# difference would have to be significant and past +50 % (25 ms) to fail
"$slubtrace" compare --timing-only -n 8 --json --metric wall_s --threshold 50 \
	--before-env DELAY=0.05 --after-env DELAY=0.05 -- "$work/sleep.sh" >"$work/same-wall.json"
rc=$?
python3 -c '
import json, sys
w = {x["name"]: x for x in json.load(open(sys.argv[1]))["figures"]}["wall_s"]
print("wall_s (identical sides): change %+.4f s, 95%% CI [%+.4f, %+.4f], %s" %
      (w["diff"], w["ci"][0], w["ci"][1], w["verdict"]))' "$work/same-wall.json"
[ $rc -eq 0 ] || bad "identical sides, wall time: exit $rc, want 0"

"$slubtrace" compare --timing-only -n 3 --metric units -- "$work/load.sh" >"$work/same.txt"
rc=$?
cat "$work/same.txt"
[ $rc -eq 0 ] || bad "identical sides: exit $rc, want 0"
grep -Eq '^  units +1000 \+- 0 +1000 \+- 0 +\+0\.00% +\[\+0\.00%, \+0\.00%\] +exact +not distinguishable from 0 at \+-0\.00%  \[decides\]$' \
	"$work/same.txt" || bad "identical sides: the units row"
grep -q "Welch's t" "$work/same.txt" || bad "the text names its method"

# library directories: each side's timing runs preload its own shim
bt=$(cd "$(dirname "$slubtrace")/../.." && pwd)
for side in b a; do
	mkdir -p "$work/lib-$side"
	ln -s "$bt/src/shim/libslub-malloc.so" "$work/lib-$side/libslub-malloc.so"
	ln -s "$bt/tracepoints/libslub-tp.so" "$work/lib-$side/libslub-tp.so"
done
cat >"$work/which.sh" <<'SH'
#!/bin/sh
case "$LD_PRELOAD:$LD_LIBRARY_PATH" in
*/lib-b/libslub-malloc.so:*/lib-b*) echo "side=1" ;;
*/lib-a/libslub-malloc.so:*/lib-a*) echo "side=2" ;;
*) echo "side=0" ;;
esac
SH
chmod +x "$work/which.sh"
"$slubtrace" compare --timing-only -n 2 --json --before-lib "$work/lib-b" \
	--after-lib "$work/lib-a" -- "$work/which.sh" >"$work/lib.json"
python3 - "$work/lib.json" <<'PY' || bad "library directories"
import json, sys
r = json.load(open(sys.argv[1]))
f = {x["name"]: x for x in r["figures"]}["side"]
assert f["before"]["values"] == [1, 1] and f["after"]["values"] == [2, 2], f
assert r["before"]["lib"].endswith("lib-b"), r
print("lib: ok")
PY

# bad input: exit 2 and one line saying why
expect2() { # pattern args...
	pat=$1
	shift
	"$slubtrace" compare "$@" >"$work/out" 2>"$work/err"
	rc=$?
	[ $rc -eq 2 ] || bad "compare $*: exit $rc, want 2"
	grep -q -- "$pat" "$work/err" || { cat "$work/err"; bad "compare $*: no '$pat'"; }
}
expect2 "expected NAME=VALUE" --before-env NOEQUALS -- true
expect2 "expected NAME=VALUE" --after-env =1 -- true
expect2 "not a directory" --before-lib "$work/none" --after-lib "$work" -- true
expect2 "no libslub-malloc.so" --after-lib "$work" -- true
expect2 "expected a whole number" -n 0 -- true
expect2 "expected a whole number" --runs 65 -- true
expect2 "expected a percentage" --threshold -3 -- true
expect2 "exclude each other" --timing-only --record-only -- true
expect2 "expected -- CMD" --timing-only
expect2 "command not found" --timing-only -- "$work/none"
expect2 "exit status 3" --timing-only -n 2 -- sh -c 'echo oops; exit 3'
grep -q oops "$work/err" || bad "a failing run's output is shown"
expect2 "unrecognized option" --no-such-option -- true

"$slubtrace" compare --help | grep -q "^Usage: slubtrace compare" || bad "--help"
"$slubtrace" help compare | grep -q "Exit status: 0 no regression" || bad "help compare"
[ $fail -eq 0 ] && echo "compare: all passed"
exit $fail
