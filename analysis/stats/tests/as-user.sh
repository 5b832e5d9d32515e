# Sourced by the e2e scripts of this directory, before they make their
# work directory: a session daemon of root is the machine's global one, so
# every other recording running at the same time (another test, another
# suite) would be recorded into this script's traces too.  As root, run the
# script again as `nobody` when it can reach the build (setpriv); then
# LTTNG_HOME, set by the script below its work directory, is private, and
# each `slubtrace record` starts its own session daemon there and stops it.
# SLUBTRACE_E2E_ROOT=1 keeps root (and the global daemon).  The script sets
# $slubtrace and the program it records: $as_user_program, else $hackbench.
if [ "$(id -u)" = 0 ] && [ -z "${SLUBTRACE_E2E_AS_USER:-}" ] &&
	[ -z "${SLUBTRACE_E2E_ROOT:-}" ] && command -v setpriv >/dev/null 2>&1 &&
	id nobody >/dev/null 2>&1; then
	as_uid=$(id -u nobody)
	as_gid=$(id -g nobody)
	if setpriv --reuid="$as_uid" --regid="$as_gid" --clear-groups \
		test -x "$slubtrace" -a -x "${as_user_program:-$hackbench}" -a -r "$0"; then
		exec setpriv --reuid="$as_uid" --regid="$as_gid" --clear-groups \
			env SLUBTRACE_E2E_AS_USER=1 HOME=/tmp sh "$0" "$@"
	fi
	echo "note: nobody cannot reach $slubtrace: recording as root, through the global session daemon"
fi
