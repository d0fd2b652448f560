# Shared by the bench scripts (sourced): free loopback ports, the CPU ticks
# of a process tree, and a few booked flights through the API.

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

# book_flights API KEY N: books N SUPPLIER_A flights through API (.../v1);
# prints the last booking's id.
book_flights() {
  local api=$1 key=$2 n=$3 i day ref id status last=""
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
