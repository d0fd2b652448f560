#!/usr/bin/env bash
# make docs: renders docs/openapi.yaml as one HTML page, build/docs/api.html,
# with Redocly's CLI (tools/reference/package.json, installed by npm ci on
# first use). The page works offline: Redoc's scripts are inlined
# (--inlineBundle; without it the page loads them from Redocly's CDN), its
# telemetry is off (REDOCLY_TELEMETRY=off, which also keeps the CLI itself
# from reporting the build), and a Content-Security-Policy meta tag lets it
# load nothing from the network (Redoc's footer logo is an <img> from a
# CDN; the policy blocks it and Redoc hides it). check-offline.mjs checks
# the result.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tool="$root/tools/reference"
out=${1:-$root/build/docs/api.html}
if ! command -v npm >/dev/null 2>&1; then
  echo "make docs needs node and npm (scripts/install-deps.sh installs them)" >&2
  exit 1
fi
if [ ! -f "$tool/node_modules/@redocly/cli/package.json" ] \
   || [ "$tool/package-lock.json" -nt "$tool/node_modules/.package-lock.json" ]; then
  (cd "$tool" && npm ci --no-audit --no-fund --silent)
fi
mkdir -p "$(dirname "$out")"
tmp="$out.tmp.html"
# Each operation's curl sample, made from its examples (samples.mjs; the
# OpenAPI checks make sure every operation has one), added to a JSON copy.
spec="$out.spec.json"
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
  "$tool/node_modules/.bin/redocly" bundle "$root/docs/openapi.yaml" \
  --ext json --output "$spec" >"$out.log" 2>&1 \
  && node "$tool/add-samples.mjs" "$spec" "$spec" >>"$out.log" 2>&1 \
  || { cat "$out.log" >&2; rm -f "$spec"; exit 1; }
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
  "$tool/node_modules/.bin/redocly" build-docs "$spec" \
  --output "$tmp" --inlineBundle --title "mod_travel API" >>"$out.log" 2>&1 \
  || { cat "$out.log" >&2; rm -f "$tmp" "$spec"; exit 1; }
rm -f "$spec"
csp="default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval' blob:; worker-src blob:; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'"
# The policy goes first in <head>, before any script.
sed -i "0,/<head>/s||<head><meta http-equiv=\"Content-Security-Policy\" content=\"$csp\">|" "$tmp"
node "$tool/check-offline.mjs" "$tmp" || { rm -f "$tmp"; exit 1; }
mv -f "$tmp" "$out"
echo "make docs: $out"
