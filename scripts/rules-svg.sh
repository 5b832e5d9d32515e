#!/bin/sh
# Draw the slab state machine from the checker's own transition table:
#   scripts/rules-svg.sh [BUILD_DIR]   (default: build)  ->  doc/slub-states.svg
# and the sheaves generation's, doc/slub-states-sheaves.svg.
# Needs Graphviz (apt-get install graphviz).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
"$build/src/cli/slubtrace" rules --dot > "$here/doc/slub-states.dot"
dot -Tsvg "$here/doc/slub-states.dot" > "$here/doc/slub-states.svg"
echo "doc/slub-states.svg: $(grep -c '<g id="edge' "$here/doc/slub-states.svg") edges"
"$build/src/cli/slubtrace" rules --generation sheaves --dot > "$here/doc/slub-states-sheaves.dot"
dot -Tsvg "$here/doc/slub-states-sheaves.dot" > "$here/doc/slub-states-sheaves.svg"
echo "doc/slub-states-sheaves.svg: $(grep -c '<g id="edge' "$here/doc/slub-states-sheaves.svg") edges"
