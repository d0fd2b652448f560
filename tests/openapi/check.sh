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
exec node "$here/check.mjs" "$root/docs/openapi.yaml" "$@"
