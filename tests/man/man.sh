#!/bin/sh
# The manual pages: one for slubtrace, one per command `slubtrace --help`
# lists, one per sink component class of the plugin; each renders without
# a groff warning; a command's page holds every word of its --help (the
# page is made from it: nothing may be lost on the way); a component's page
# documents exactly the parameters its source accepts.
#
#   man.sh BUILD_DIR SOURCE_DIR
set -u
build=$1 src=$2
man=$build/man
slubtrace=$build/src/cli/slubtrace
export SLUBTRACE_PLUGIN_PATH=$build/analysis/plugin
fails=0
fail() { echo "man: FAIL: $*" >&2; fails=$((fails + 1)); }

# Plain words of a roff page: escapes and requests out.
words_of_page() {
	sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\&//g' \
		-e 's/^\.[A-Z][A-Z]* *//' "$1" | tr -s ' \t"' '\n\n\n' | sort -u
}

check_render() {
	w=$(groff -man -ww -z "$1" 2>&1)
	[ -z "$w" ] || fail "$1: groff: $w"
	[ "$(head -c 3 "$1")" = '.\"' ] || fail "$1: not a generated page"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/slubtrace-man.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

[ -s "$man/slubtrace.1" ] || fail "no slubtrace.1"
check_render "$man/slubtrace.1"

cmds=$("$slubtrace" --help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' | grep -v '^help$')
[ -n "$cmds" ] || fail "slubtrace --help lists no command"
n=0
for c in $cmds; do
	page=$man/slubtrace-$c.1
	if [ ! -s "$page" ]; then
		fail "slubtrace $c has no page ($page): add it to doc/man/CMakeLists.txt"
		continue
	fi
	n=$((n + 1))
	check_render "$page"
	grep -q "slubtrace\\\\-$c" "$man/slubtrace.1" || fail "slubtrace.1 does not name slubtrace-$c"
	"$slubtrace" help --man "$c" | cmp -s - "$page" || fail "$page is stale"
	have=$(words_of_page "$page")
	# Titles become upper-case section names: compare without case and
	# without a title's colon; "Usage:" becomes SYNOPSIS.
	# One pass, not two greps a word: hundreds of processes a page made
	# this test take minutes on a loaded machine.
	printf '%s\n' "$have" >"$tmp/have"
	missing=$("$slubtrace" "$c" --help | sed 's/^Usage: //' | tr -s ' \t"' '\n\n\n' | sort -u |
		awk 'NR == FNR { have[tolower($0)] = 1; next }
		     $0 != "" { w = tolower($0); v = w; sub(/:$/, "", v)
				if (!(w in have) && !(v in have)) printf "%s ", $0 }' "$tmp/have" -)
	[ -z "$missing" ] || fail "$page lacks words of \`slubtrace $c --help\`: $missing"
	for s in NAME SYNOPSIS DESCRIPTION; do
		grep -q "^\.SH $s" "$page" || fail "$page has no $s section"
	done
done
for p in "$man"/slubtrace-*.1; do
	c=${p##*/slubtrace-}
	c=${c%.1}
	printf '%s\n' $cmds | grep -qx "$c" || fail "$p: no such command in slubtrace --help"
done

sinks=$(babeltrace2 --plugin-path="$SLUBTRACE_PLUGIN_PATH" list-plugins 2>/dev/null |
	sed -n "s/^ *'sink\.slub\.\([a-z]*\)'.*/\1/p")
[ -n "$sinks" ] || fail "babeltrace2 help slub lists no sink component class"
for k in $sinks; do
	page=$man/babeltrace2-sink.slub.$k.7
	if [ ! -s "$page" ]; then
		fail "sink.slub.$k has no page ($page)"
		continue
	fi
	n=$((n + 1))
	check_render "$page"
	# Parameters the source accepts: its slub_param table.
	# (entries `.name = "x"`, and the shared SLUB_REORDER_PARAMS and
	# SLUB_HISTORY_PARAM of analysis/plugin/sink.h)
	accepted=$({
		cat "$src"/analysis/plugin/$k/*.c | sed -n 's/.*{ \.name = "\([a-z-]*\)", \.type = SLUB_P_.*/\1/p'
		if grep -q 'SLUB_REORDER_PARAMS(' "$src"/analysis/plugin/$k/*.c; then
			sed -n 's/.*\.name = "\(reorder-[a-z]*\|window-[a-z-]*\)".*/\1/p' "$src"/analysis/plugin/sink.h
		fi
		if grep -q 'SLUB_HISTORY_PARAM(' "$src"/analysis/plugin/$k/*.c; then
			sed -n 's/.*\.name = "\(history\)".*/\1/p' "$src"/analysis/plugin/sink.h
		fi
	} | sort -u)
	documented=$(sed -n '/^\.SH "INITIALIZATION PARAMETERS"/,/^\.SH/p' "$page" |
		sed -n '/^\.TP/{n;s/^\\fB\([a-z\\-]*\)=.*/\1/p}' | sed 's/\\-/-/g' | sort -u)
	[ -n "$accepted" ] || fail "sink.slub.$k: no parameter table found in analysis/plugin/$k"
	[ "$accepted" = "$documented" ] ||
		fail "sink.slub.$k: parameters accepted [$(echo $accepted)] but documented [$(echo $documented)]"
done

[ "$fails" -eq 0 ] || exit 1
echo "man: $n pages checked (plus slubtrace.1)"
