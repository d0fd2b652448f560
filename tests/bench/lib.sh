# Shared by the bench scripts (sourced): free loopback ports, the machine's
# accepted TCP connections, the CPU ticks of a process tree, and booked
# flights and hotels through the API.

used=" "
free_port() {
  local p
  while :; do
    # Below the kernel's ephemeral range (32768-60999).
    p=$(( 20000 + RANDOM % 12000 ))
    [[ $used == *" $p "* ]] && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then used+="$p "; echo "$p"; return; fi
  done
}

# The machine's TCP connections accepted so far (PassiveOpens), read before
# and after a run: the new connections it made.
passive_opens() {
  awk '/^Tcp:/ && $7 ~ /^[0-9]+$/ {print $7}' /proc/net/snmp
}

# book_flights API KEY N [IDS_FILE]: books N SUPPLIER_A flights through API
# (.../v1); prints the last booking's id and appends every id to IDS_FILE.
book_flights() {
  local api=$1 key=$2 n=$3 ids=${4:-/dev/null} i day ref id status last=""
  for i in $(seq 1 "$n"); do
    day=$(date -u -d "+$((14 + i % 60)) days" +%F)
    ref=$(curl -s -H "x-api-key: $key" -H 'content-type: application/json' "$api/flight/offers" \
      -d "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\",\"date\":\"$day\"}],\"passengers\":{\"adults\":1},\"limit\":1}" \
      | grep -o '"offer_reference":"[^"]*"' | head -n 1 | cut -d'"' -f4)
    id=$(curl -s -H "x-api-key: $key" -H 'content-type: application/json' \
      -H "x-idempotency-key: bench-$RANDOM-$i" "$api/flight/prebook" \
      -d "{\"offer_reference\":\"$ref\",\"contact\":{\"first_name\":\"Ada\",\"last_name\":\"Byron\",\"email\":\"ada@example.com\",\"phone_number\":\"5550100\",\"phone_country_code\":\"44\"},\"passengers\":[{\"first_name\":\"Ada\",\"last_name\":\"Byron\",\"birthday\":\"1990-01-02\",\"type\":\"ADULT\",\"gender\":\"F\",\"nationality\":\"GB\"}]}" \
      | grep -o '"id":"[^"]*"' | head -n 1 | cut -d'"' -f4)
    status=$(curl -s -o /dev/null -w '%{http_code}' -H "x-api-key: $key" -H 'content-type: application/json' \
      "$api/flight/bookings/$id/book" -d '{"payment_instrument_id":"pi_test_visa"}')
    [ "$status" = 200 ] || { echo "booking $i: book answered $status" >&2; return 1; }
    echo "$id" >>"$ids"
    last=$id
  done
  echo "$last"
}

# book_hotels API KEY N [IDS_FILE]: books N SUPPLIER_A hotel stays (one room,
# two adults, paid by the service) through API: a London search, the first
# offer of one of its hotels, prebook, book. Prints the last booking's id and
# appends every id to IDS_FILE.
book_hotels() {
  local api=$1 key=$2 n=$3 ids=${4:-/dev/null} i stay hid ref id status last=""
  local guests='"guests":[{"first_name":"Ada","last_name":"Lovelace","type":"ADULT","is_lead":true},{"first_name":"Bo","last_name":"Lovelace","type":"ADULT","is_lead":false}]'
  for i in $(seq 1 "$n"); do
    stay="\"check_in\":\"$(date -u -d "+$((30 + i % 60)) days" +%F)\",\"check_out\":\"$(date -u -d "+$((32 + i % 60)) days" +%F)\",\"occupancy\":[{\"adults\":2}],\"guest_nationality\":\"GB\",\"guest_residence\":\"GB\",\"currency\":\"EUR\""
    hid=$(curl -s -H "x-api-key: $key" -H 'content-type: application/json' "$api/hotel/search" \
      -d "{\"destination\":{\"city\":\"London\",\"country_code\":\"GB\"},$stay,\"limit\":20,\"supplier\":\"SUPPLIER_A\"}" \
      | grep -o '"supplier_hotel_id":"[^"]*"' | sed -n "$((1 + i % 15))p" | cut -d'"' -f4)
    ref=$(curl -s -H "x-api-key: $key" -H 'content-type: application/json' "$api/hotel/offers" \
      -d "{\"supplier\":\"SUPPLIER_A\",\"supplier_hotel_ids\":[\"$hid\"],$stay,\"max_offers_per_hotel\":1}" \
      | grep -o '"offer_reference":"[^"]*"' | head -n 1 | cut -d'"' -f4)
    id=$(curl -s -H "x-api-key: $key" -H 'content-type: application/json' \
      -H "x-idempotency-key: bench-hotel-$RANDOM-$i" "$api/hotel/prebook" \
      -d "{\"offer_reference\":\"$ref\",\"reference_id\":\"bench-$i\",\"contact\":{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\",\"email\":\"ada@example.com\",\"phone\":\"+442079460000\"},\"rooms\":[{$guests}]}" \
      | grep -o '"id":"[^"]*"' | head -n 1 | cut -d'"' -f4)
    status=$(curl -s -o /dev/null -w '%{http_code}' -H "x-api-key: $key" -H 'content-type: application/json' \
      "$api/hotel/bookings/$id/book" -d '{"payment_instrument_id":"pi_test_visa"}')
    [ "$status" = 200 ] || { echo "hotel booking $i ($id): book answered $status" >&2; return 1; }
    echo "$id" >>"$ids"
    last=$id
  done
  echo "$last"
}

# tree_ticks PID: CPU ticks (user + system) of PID and its children, each
# with the children it has reaped (an exited httpd child or PostgreSQL
# backend stays counted in its parent's cutime/cstime).
HZ=$(getconf CLK_TCK)
tree_ticks() {
  local pid t=0
  for pid in "$1" $(ps -o pid= --ppid "$1"); do
    t=$(( t + $(awk '{print $14 + $15 + $16 + $17}' "/proc/$pid/stat" 2>/dev/null || echo 0) ))
  done
  echo "$t"
}

# jobs_settle CONNINFO: waits (up to 60 s) until no job is due in the next
# 15 seconds (the minutely webhook.retention aside). A flight's completion
# and its first order sync run seconds after its book and change the
# booking, whose rendering is then made again: a measurement that catches
# that half-way counts renders instead of reads.
jobs_settle() {
  local i n
  for i in $(seq 1 120); do
    n=$(psql "$1" -Atc "SELECT count(*) FROM jobs WHERE status IN ('queued', 'running')
                          AND available_at < now() + interval '15 seconds'
                          AND kind <> 'webhook.retention'")
    [ "$n" = 0 ] && return 0
    sleep 0.5
  done
  echo "jobs_settle: $n jobs still due after 60 s" >&2
  return 1
}

# The callgrind scripts' folder and clean-up: OUT (kept) or a temporary
# folder named after $1 (removed), writable by httpd's child (it runs as
# www-data and writes callgrind's file at its end); at exit, valgrind ($vg)
# and the stack ($dir, stopped by checkout $c's own stack.sh) go.
ir_setup() {
  keep=${OUT:-}
  out=${OUT:-$(mktemp -d "/tmp/$1.XXXXXX")}
  mkdir -p "$out"
  chmod 777 "$out"
  dir="" vg="" c=""
  trap ir_cleanup EXIT
}

ir_cleanup() {
  [ -n "$vg" ] && kill "$vg" 2>/dev/null
  if [ -n "$dir" ]; then "$c/scripts/stack.sh" stop "$dir" >/dev/null 2>&1; rm -rf "$dir"; fi
  [ -n "$keep" ] || rm -rf "$out"
}

# ir_stack CHECKOUT PREFIX: a stack of CHECKOUT's own scripts (sandbox
# latency 0, no rate limits) in a new folder /tmp/PREFIX.*, with an
# organization and a key. Sets c (CHECKOUT's absolute path), label (its
# commit, "+" when it has changes), dir, org and key for the caller, whose
# ir_cleanup stops the stack.
ir_stack() {
  c=$(cd "$1" && pwd)
  label=$(git -C "$c" rev-parse --short HEAD 2>/dev/null || basename "$c")
  git -C "$c" diff --quiet HEAD 2>/dev/null || label+="+"
  dir=$(mktemp -d "/tmp/$2.XXXXXX")
  chmod 755 "$dir"
  export TRAVEL_PORT=$(free_port) TRAVEL_SANDBOX_PORT=$(free_port) TRAVEL_PG_PORT=$(free_port)
  export STACK_PG_FAST=1 TRAVEL_SANDBOX_LATENCY="0ms 0ms" TRAVEL_RATE_LIMIT=0 TRAVEL_AUTH_FAIL_LIMIT=0
  "$c/scripts/stack.sh" pg-start "$dir" >/dev/null 2>&1
  "$c/scripts/stack.sh" sandbox-start "$dir" >/dev/null
  "$c/scripts/stack.sh" httpd-start "$dir" a >/dev/null
  org=$("$c/bin/travelctl" --db "$(cat "$dir/db.conninfo")" org create bench 2>/dev/null | tail -n 1)
  key=$("$c/bin/travelctl" --db "$(cat "$dir/db.conninfo")" key create --org "$org" --user bench 2>/dev/null | tail -n 1)
}
