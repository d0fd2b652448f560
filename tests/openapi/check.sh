#!/usr/bin/env bash
# Checks docs/openapi.yaml with tests/openapi/check.mjs: as OpenAPI 3.1, and,
# given the file of exchanges the e2e tests recorded, against what the
# service really answered. Skipped (exit 0, with a notice) when node or the
# checker's npm packages are missing; `make test` installs them.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/openapi"
if ! command -v node >/dev/null 2>&1 \
   || [ ! -f "$here/node_modules/@seriousme/openapi-schema-validator/package.json" ] \
   || [ ! -f "$here/node_modules/@apidevtools/swagger-parser/package.json" ]; then
  echo "openapi: skipped (node or the checker's npm packages are missing; make test installs them)"
  exit 0
fi
# Without exchanges (the first call of make test) the checker's own test
# runs first: it must catch wrong examples (selftest.mjs).
if [ $# -eq 0 ]; then
  node "$here/selftest.mjs" "$root/docs/openapi.yaml" || exit 1
fi
exec node "$here/check.mjs" "$root/docs/openapi.yaml" "$@"
