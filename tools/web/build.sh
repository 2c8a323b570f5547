#!/usr/bin/env bash
# Rebuild the replay page's player (three.js and tools/web/player.js, bundled and
# minified) from the pinned packages: the bundle in the package is this script's output,
# byte for byte (tests/viewer/test_web.py rebuilds it and compares).
#
#   tools/web/build.sh [OUT]    (default: stratstone_cad/viewer/web/player.min.js)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../../stratstone_cad/viewer/web/player.min.js}"
cd "$here"
[ -x node_modules/.bin/esbuild ] && [ -d node_modules/three ] || npm ci --no-audit --no-fund --silent
node_modules/.bin/esbuild player.js --bundle --minify --format=iife --global-name=StratstonePlayer \
  --target=es2020 --legal-comments=inline --log-level=warning --outfile="$out"
