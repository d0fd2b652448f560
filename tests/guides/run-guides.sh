#!/usr/bin/env bash
# Runs the shell blocks of guides as a newcomer pastes them: every ```sh
# block of each file, in order, in ONE bash (variables carry from block to
# block and from one file to the next), in a fresh folder that holds only
# var/demo.key (what `make start` leaves in the checkout). Blocks that run
# make (the stack itself) are skipped: the caller runs the stack.
#
#   run-guides.sh WORKDIR GUIDE.md...
#
# Environment: TRAVEL_PORT and TRAVEL_SANDBOX_PORT (the stack's ports, as
# the guides read them); WORKDIR/var/demo.key holds an API key.
#
# Every curl a block runs is recorded with its HTTP status. A status that
# is not 2xx fails the run unless the text between the previous block and
# this one (or the block itself) names that status: "answers `422
# payment_declined`" announces a 422. Exit status 0 when every block ran
# and every answer was a 2xx or announced; otherwise 1, with one line per
# problem. WORKDIR/guides.log has each block and its output.
set -u
work=$1; shift
[ -s "$work/var/demo.key" ] || { echo "no $work/var/demo.key" >&2; exit 2; }
blocks="$work/blocks"
rm -rf "$blocks"; mkdir -p "$blocks"
n=0
for f in "$@"; do
  # Each block to NNN.sh, the text before it to NNN.txt.
  n=$(awk -v dir="$blocks" -v n="$n" -v src="$f" '
    function name(ext) { return sprintf("%s/%03d.%s", dir, n, ext) }
    /^```sh[[:space:]]*$/ && !inblock { inblock = 1; n++; printf "%s", text > name("txt");
                                       close(name("txt")); print "# " src > name("sh"); text = ""; next }
    /^```/ && inblock { inblock = 0; close(name("sh")); next }
    /^```/ && !inother { inother = 1; next }
    /^```/ && inother { inother = 0; next }
    inblock { print > name("sh"); next }
    !inother { text = text $0 "\n" }
    END { print n }' "$f")
done

status="$work/statuses"
: >"$status"
script="$work/guides.sh"
{
  echo 'cd "$GUIDES_WORK" || exit 2'
  # The curl every block calls: the real one, its answer headers kept to
  # read the status from (the blocks own -w and -o stay theirs).
  echo 'curl() { local h rc; h=$(mktemp); command curl -D "$h" "$@"; rc=$?;'
  echo '  printf "%s %s %s\n" "$GUIDE_BLOCK" "$(awk '"'"'toupper($1) ~ /^HTTP\// {s=$2} END {print s ? s : "000"}'"'"' "$h")" "$(printf "%s " "$@" | tr "\n" " " | cut -c1-300)" >>"$GUIDES_STATUS";'
  echo '  rm -f "$h"; return $rc; }'
  for b in "$blocks"/*.sh; do
    id=$(basename "$b" .sh)
    if grep -qE '^[[:space:]]*make( |$)' "$b"; then
      echo "echo '# skipped (runs make): $id'"
      continue
    fi
    echo "GUIDE_BLOCK=$id; echo; echo '### block $id'; cat '$b'; echo '--- output'"
    echo ". '$b'"
    echo 'echo "$GUIDE_BLOCK exit $?" >>"$GUIDES_STATUS.exit"'
  done
} >"$script"
: >"$status.exit"
GUIDES_WORK="$work" GUIDES_STATUS="$status" bash "$script" >"$work/guides.log" 2>&1 </dev/null

fail=0
while read -r id st rest; do
  case "$st" in
    2??) continue ;;
  esac
  if grep -qwF -- "$st" "$blocks/$id.txt" "$blocks/$id.sh"; then
    continue
  fi
  echo "block $id ($(sed -n 1p "$blocks/$id.sh" | cut -c3-)): HTTP $st not announced by the text: curl $rest"
  fail=1
done <"$status"
while read -r id word rc; do
  if [ "$rc" != 0 ]; then
    echo "block $id ($(sed -n 1p "$blocks/$id.sh" | cut -c3-)): its last command exited $rc"
    fail=1
  fi
done <"$status.exit"
echo "guides: $(wc -l <"$status") requests in $(ls "$blocks"/*.sh | wc -l) blocks; log: $work/guides.log"
exit $fail
