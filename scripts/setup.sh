#!/usr/bin/env bash
# Install what slubtrace needs from Debian, only what is missing, and
# nothing when everything is there.  Idempotent.
#
#   scripts/setup.sh [build|test|bench|all]   (default: build)
#
#   build  compiler, CMake, LTTng-UST, lttng-tools, Babeltrace 2, libunwind,
#          elfutils, GLib and jansson: enough to build and record traces
#   test   build + the programs the test suite runs under the shim
#          (python3, git, sqlite3, xz, gcc), the peer allocators, and
#          chromium (the report test renders the HTML page headless)
#   bench  test + hyperfine, valgrind, the peer allocators
set -euo pipefail

what=${1:-build}
case "$what" in
build | test | bench | all) ;;
-h | --help)
	sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
*)
	echo "setup.sh: unknown set '$what' (build, test, bench or all)" >&2
	exit 2
	;;
esac

pkgs=(gcc g++ make cmake pkg-config
	liblttng-ust-dev lttng-tools liblttng-ctl-dev
	babeltrace2 libbabeltrace2-dev
	libunwind-dev libdw-dev libelf-dev
	libglib2.0-dev libjansson-dev)
if [[ $what != build ]]; then
	pkgs+=(python3 git sqlite3 xz-utils gzip coreutils time procps
		libjemalloc2 libmimalloc2.0 libtcmalloc-minimal4 binutils bc chromium patch)
fi
if [[ $what == bench || $what == all ]]; then
	pkgs+=(hyperfine valgrind)
fi

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
if ((${#missing[@]} == 0)); then
	echo "setup: all ${#pkgs[@]} packages present"
	exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=()
if [[ $(id -u) != 0 ]]; then
	if command -v sudo >/dev/null; then
		sudo=(sudo)
	else
		echo "setup: need root (or sudo) to install: ${missing[*]}" >&2
		exit 1
	fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
