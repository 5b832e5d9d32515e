#!/bin/sh
# `cmake --install` honours the prefix and DESTDIR and writes nothing else:
# every installed file lies in the staging directory, the plugin is below
# the prefix, the staged slubtrace loads the staged plugin, and Babeltrace's
# system plugin directory is as it was.
#
#   install.sh BUILD_DIR MKTRACE LIBDIR EXPECT
set -u
build=$1 mktrace=$2 libdir=$3 expect=$4
stage=$build/tests/install/stage
prefix=/opt/slubtrace-install-test
fail() { echo "install: FAIL: $*" >&2; exit 1; }

sysdir=$(pkg-config --variable=libdir babeltrace2)/babeltrace2/plugins
snap() { ls -la --time-style=full-iso "$sysdir" 2>/dev/null; }
before=$(snap)

rm -rf "$stage"
DESTDIR=$stage cmake --install "$build" --prefix "$prefix" >"$build/tests/install/log" 2>&1 ||
	{ cat "$build/tests/install/log"; fail "cmake --install failed"; }
manifest=$build/install_manifest.txt
[ -s "$manifest" ] || fail "no install manifest"
n=0
while IFS= read -r f; do
	n=$((n + 1))
	# The manifest names the files without DESTDIR.
	case $f in
	"$prefix"/*) ;;
	*) fail "installed outside the prefix: $f" ;;
	esac
	[ -e "$stage$f" ] || fail "listed but not staged: $stage$f"
done <"$manifest"
[ "$n" -ge 5 ] || fail "only $n files installed"

plugin=$stage$prefix/$libdir/babeltrace2/plugins/babeltrace-plugin-slub.so
[ -f "$plugin" ] || fail "plugin not at $plugin"
for m in man1/slubtrace.1 man1/slubtrace-check.1 man7/babeltrace2-sink.slub.check.7; do
	[ -s "$stage$prefix/share/man/$m" ] || fail "manual page $m not installed"
done
[ "$(snap)" = "$before" ] || fail "the system plugin directory $sysdir changed"

# The staged command finds the staged plugin (the install layout comes
# first, relative to the executable), and gives the golden verdict.
work=$build/tests/install/work
rm -rf "$work" && mkdir -p "$work"
"$mktrace" clean "$work/trace" || fail "mktrace failed"
LD_DEBUG=files "$stage$prefix/bin/slubtrace" check "$work/trace" >"$work/out" 2>"$work/err"
rc=$?
[ $rc -eq 0 ] || { cat "$work/err" | grep -v '^ *[0-9]*:' >&2; fail "staged slubtrace check: exit $rc"; }
loaded=$(sed -n 's/.*file=\(.*babeltrace-plugin-slub\.so\) .*\[0\];  dynamically loaded.*/\1/p' "$work/err" | head -n 1)
[ -n "$loaded" ] || loaded=$(grep -o 'file=[^ ]*babeltrace-plugin-slub\.so' "$work/err" | head -n 1 | cut -d= -f2)
[ -n "$loaded" ] || fail "the staged slubtrace loaded no babeltrace-plugin-slub.so"
case $loaded in
"$stage$prefix"/*) ;;
*) fail "the staged slubtrace loaded $loaded, not the staged plugin" ;;
esac
cmp -s "$work/out" "$expect" || { diff -u "$expect" "$work/out"; fail "verdict differs from $expect"; }
echo "install: $n files, all below $stage$prefix; plugin loaded from the stage; $sysdir unchanged"
