#!/usr/bin/env bash
# Loopback benchmark of trendy-server (docs/performance.md): a 100-row change-feed page and a 500-item batch, on
# SQLite, and, when TRENDY_TEST_POSTGRES_URL names a database (`make bench-server` runs this under
# scripts/with-postgres), on PostgreSQL with one instance and with two instances sharing the database.
#
#   Benchmarks/server/run.sh [seconds per scenario]   (needs wrk; `make bench-server` installs it)
#
# With TRENDY_BENCH_FIGURES=FILE, each scenario's requests per second are also appended to FILE as a JSON line, which
# Benchmarks/targets.py reads.
#
# Every scenario drives two users, one wrk process each (wrk's threads and connections split between them), and
# sums their requests per second. With two instances each user's wrk talks to its own instance, so the two setups
# differ only in the number of servers. The load generator shares the two cores with the servers and PostgreSQL:
# these are lower bounds for the server alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
duration=${1:-10}
users=(0190f5c0-3f00-7a11-8b22-0000000000be 0190f5c0-3f00-7a11-8b22-0000000000bf)
types=(0190f5c0-3f00-7a11-8b22-000000000001 0190f5c0-3f00-7a11-8b22-000000000002)
# A server named by TRENDY_SERVER_BIN (`make bench` names the shipped one) is run as it is; only without it is one built.
[[ -n "${TRENDY_SERVER_BIN:-}" ]] || swift build -c release --product trendy-server >/dev/null
directory=$(mktemp -d)
servers=()
stop_servers() {
    for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${servers[@]}"; do wait "$pid" 2>/dev/null || true; done
    servers=()
}
trap 'stop_servers; rm -rf "$directory"' EXIT

# start NAME STORAGE_ARGUMENTS… — starts an instance, sets $url to its address.
start() {
    local name=$1
    shift
    "${TRENDY_SERVER_BIN:-.build/release/trendy-server}" --port 0 "$@" --token "bench0:${users[0]}" --token "bench1:${users[1]}" \
        --log-level error >"$directory/$name.out" 2>"$directory/$name.err" &
    servers+=($!)
    until grep -q "listening on" "$directory/$name.out" 2>/dev/null; do
        kill -0 "${servers[-1]}" 2>/dev/null || { cat "$directory/$name.err" >&2; exit 1; }
        sleep 0.1
    done
    url=$(sed -n 's/.*listening on //p' "$directory/$name.out")
}

# seed URL — each user's event type, and 200+ rows in each user's feed so the measured page is a full 100 rows.
seed() {
    for user in 0 1; do
        curl -sf -H "Authorization: Bearer bench$user" -X POST \
            -d "{\"id\":\"${types[$user]}\",\"name\":\"Bench\",\"color\":\"#000\",\"icon\":\"b\"}" \
            "$1/api/v1/event-types" >/dev/null
        TRENDY_BENCH_TOKEN=bench$user TRENDY_BENCH_TYPE=${types[$user]} \
            wrk -t1 -c1 -d1s -s Benchmarks/server/batch.lua "$1" >/dev/null 2>&1 || true
    done
}

# measure LABEL SCRIPT CONNECTIONS URL0 URL1 — user 0's wrk against URL0, user 1's against URL1, at once; prints the
# summed requests per second (and, for batches, inserted events per second) and the worse p99.
measure() {
    local label=$1 script=$2 connections=$3 loads=()
    for user in 0 1; do
        local target=$4
        [[ $user == 1 ]] && target=$5
        TRENDY_BENCH_TOKEN=bench$user TRENDY_BENCH_TYPE=${types[$user]} wrk -t1 -c"$connections" -d"${duration}s" \
            --latency -s "Benchmarks/server/$script" "$target" >"$directory/wrk$user" 2>&1 &
        loads+=($!)
    done
    wait "${loads[@]}"
    awk -v label="$label" -v script="$script" '
        /Requests\/sec/ { rps += $2 }
        $1 == "99%" { p = $2; ms = (p ~ /us$/) ? p / 1000 : (p ~ /ms$/) ? p + 0 : p * 1000; if (ms > worst) worst = ms }
        /unexpected status/ { bad++ }
        END {
            line = sprintf("%-34s %9.0f req/s", label, rps)
            if (script == "batch.lua") line = line sprintf("  = %7.0f events/s", rps * 500)
            line = line sprintf("  p99 %.1f ms", worst)
            if (bad) line = line sprintf("  (%d unexpected answers)", bad)
            print line
            if (figures != "") printf("{\"measure\": \"%s\", \"requests_per_second\": %.2f}\n", label, rps) >> figures
        }' figures="${TRENDY_BENCH_FIGURES:-}" "$directory/wrk0" "$directory/wrk1"
}

# analyze — PostgreSQL's planner statistics and visibility map for the seeded tables, as autovacuum makes them within
# a minute of a table's first rows (without statistics the first minute's feed pages are planned as a sort of the
# whole feed, and autovacuum would otherwise run during the measurement).
analyze() {
    psql -q "$TRENDY_TEST_POSTGRES_URL" -c "VACUUM ANALYZE" >/dev/null
}

# scenarios NAME URL0 URL1
scenarios() {
    measure "$1: feed page (100 rows)" feed.lua 16 "$2" "$3"
    measure "$1: latest cursor (tiny answer)" path.lua 16 "$2" "$3"
    measure "$1: batch (500 events)" batch.lua 2 "$2" "$3"
}

echo "== trendy-server release, wrk 2×(1 thread, 16 connections) for the feed, 2×(1 thread, 2 connections) for batches, ${duration}s each"
start sqlite --db "$directory/server.sqlite"
seed "$url"
scenarios "SQLite, 1 instance" "$url" "$url"
stop_servers

if [[ -z "${TRENDY_TEST_POSTGRES_URL:-}" ]]; then
    echo "PostgreSQL: not measured (${TRENDY_TEST_POSTGRES_SKIPPED:-run under scripts/with-postgres, as make bench-server does})"
    exit 0
fi
separator='?'
[[ $TRENDY_TEST_POSTGRES_URL == *\?* ]] && separator='&'
start postgres1 --postgres "${TRENDY_TEST_POSTGRES_URL}${separator}schema=bench_one"
seed "$url"
analyze
scenarios "PostgreSQL, 1 instance" "$url" "$url"
stop_servers

start postgres2a --postgres "${TRENDY_TEST_POSTGRES_URL}${separator}schema=bench_two"
first=$url
start postgres2b --postgres "${TRENDY_TEST_POSTGRES_URL}${separator}schema=bench_two"
seed "$first"
analyze
scenarios "PostgreSQL, 2 instances" "$first" "$url"
