#!/usr/bin/env bash
# Loopback benchmark of trendy-server (docs/performance.md): a 100-row change-feed page and a 500-item batch.
# Usage: Benchmarks/server/run.sh [seconds per scenario]   (needs wrk; `make bench-server` installs it)
set -euo pipefail
cd "$(dirname "$0")/../.."
duration=${1:-10}
user=0190f5c0-3f00-7a11-8b22-0000000000be
type=0190f5c0-3f00-7a11-8b22-000000000001
swift build -c release --product trendy-server >/dev/null
directory=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$directory"' EXIT
.build/release/trendy-server --port 0 --db "$directory/server.sqlite" --token "bench:$user" --log-level error \
    > "$directory/out" 2>"$directory/err" &
server=$!
until grep -q "listening on" "$directory/out" 2>/dev/null; do sleep 0.1; done
url=$(sed -n 's/.*listening on //p' "$directory/out")
curl -sf -H "Authorization: Bearer bench" -X POST -d "{\"id\":\"$type\",\"name\":\"Bench\",\"color\":\"#000\",\"icon\":\"b\"}" \
    "$url/api/v1/event-types" >/dev/null
# Seed the feed with 200 rows so the measured page is a full 100 rows.
TRENDY_BENCH_TYPE=$type wrk -t1 -c1 -d1s -s Benchmarks/server/batch.lua "$url" >/dev/null 2>&1 || true
echo "== GET /api/v1/changes (100-row page), ${duration}s, 2 threads, 32 connections"
wrk -t2 -c32 -d"${duration}s" --latency -s Benchmarks/server/feed.lua "$url" | grep -E "Requests/sec|99%|Latency  "
echo "== POST /api/v1/events/batch (500 new events per request), ${duration}s, 2 threads, 4 connections"
TRENDY_BENCH_TYPE=$type wrk -t2 -c4 -d"${duration}s" --latency -s Benchmarks/server/batch.lua "$url" \
    | grep -E "Requests/sec|99%|Latency  "
