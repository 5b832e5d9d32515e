#!/bin/bash
# SPDX-License-Identifier: MIT
# What tracing costs, side by side with the LTTng libc wrapper, before and
# after: prints each command, then its figures.
#   1. record-figures.sh: events, discarded events, bytes per event, and the
#      program's own time traced and untraced (the pipeline figure), for
#      BUILD (and BEFORE), the wrapper's rows last
#   2. process-start.sh: the start of a traced process (BEFORE's record as
#      one more column)
# Figures, never a test; the load average is printed with them.
#
#   tracing-cost.sh [-r RUNS] [-n START_RUNS] [-b BEFORE_BUILD] BUILD
set -u
runs=3 starts=20 before=
while getopts r:n:b:h o; do
	case $o in
	r) runs=$OPTARG ;;
	n) starts=$OPTARG ;;
	b) before=$OPTARG ;;
	*) sed -n '3,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: $0 [-r RUNS] [-n START_RUNS] [-b BEFORE_BUILD] BUILD" >&2; exit 2; }
here=$(dirname "$0")
builds=("$1")
[[ -n $before ]] && builds+=("$before")
cmd=("$here/record-figures.sh" -r "$runs" "${builds[@]}")
echo "\$ ${cmd[*]}"
"${cmd[@]}"
echo
cmd=("$here/process-start.sh" -n "$starts" -r 3)
[[ -n $before ]] && cmd+=(-b "$before")
cmd+=("$1")
echo "\$ ${cmd[*]}"
"${cmd[@]}"
