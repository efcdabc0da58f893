#!/usr/bin/env bash
# Rebuild static/vendor/plotly-cocoweb.min.js, cocoweb's partial plotly.js bundle (the trace types
# of entry.js), from the npm registry's packages pinned in package-lock.json (node >= 20, npm).
# Takes about a minute; nothing is left behind but the bundle.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT="$HERE/../../static/vendor/plotly-cocoweb.min.js"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp "$HERE"/package.json "$HERE"/package-lock.json "$HERE"/entry.js "$HERE"/build.js "$WORK"/
cd "$WORK"
npm ci --no-audit --no-fund --ignore-scripts
node build.js entry.js "$OUT"
ls -l "$OUT"
