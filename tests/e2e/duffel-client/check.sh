#!/bin/sh
# The Duffel client flow against the sandbox, then tsc --strict over the
# answers it recorded, typed as @duffel/api's types:
#   check.sh BASE_PATH TOKEN
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d /tmp/duffel-client.XXXXXX)
node "$here/flow.mjs" "$1" "$2" "$out" || { rm -rf "$out"; exit 1; }
node "$here/stays.mjs" "$1" "$2" "$out" || { rm -rf "$out"; exit 1; }
cp "$here/tsconfig.json" "$out/tsconfig.json"
ln -s "$here/node_modules" "$out/node_modules"
# typings.d.ts declares '@duffel/api/types' and the library's other modules.
sed -i 's#"types": \[\]#"types": [], "rootDir": "."#' "$out/tsconfig.json"
printf '{"extends": "./tsconfig.json", "files": ["recorded.ts", "stays.ts", "node_modules/@duffel/api/dist/typings.d.ts"]}\n' \
  > "$out/tsconfig.check.json"
if ! "$here/node_modules/.bin/tsc" -p "$out/tsconfig.check.json"; then
  echo "duffel client: the recorded answers are kept in $out/recorded.ts"
  exit 1
fi
rm -rf "$out"
echo "duffel client: tsc --strict accepts every recorded answer as @duffel/api types it"
