#!/usr/bin/env python3
"""The server's CPU time per request, requests sent one at a time (docs/performance.md, server).

    python3 Benchmarks/server/cpu-per-request.py [--server .build/release/trendy-server] [--batches 40] [--keys]

Starts trendy-server on a fresh SQLite file, sends `--batches` POST /api/v1/events/batch of 500 new events (with an
Idempotency-Key each when `--keys`, as clients send them), then ten times as many 100-row change-feed pages, and
prints the server's user+system CPU (from /proc) per request. Throughput under wrk moves with the host's load on
this VM by ±30 %; CPU per request moves less, which makes it the figure to compare two builds with (alternate them,
several runs each).
"""
import argparse
import json
import os
import random
import re
import subprocess
import tempfile
import time
import urllib.request
import uuid

USER = "0190f5c0-3f00-7a11-8b22-0000000000be"
TYPE = "0190f5c0-3f00-7a11-8b22-000000000001"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default=".build/release/trendy-server")
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--keys", action="store_true", help="send an Idempotency-Key with every batch")
    args = parser.parse_args()
    folder = tempfile.mkdtemp()
    server = subprocess.Popen(
        [args.server, "--port", "0", "--db", f"{folder}/server.sqlite", "--token", f"bench:{USER}",
         "--log-level", "error"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        root = re.search(r"listening on (\S+)", server.stdout.readline()).group(1)
        sent = 0

        def call(method, path, body=None):
            nonlocal sent
            sent += 1
            headers = {"Authorization": "Bearer bench", "Content-Type": "application/json"}
            if method == "POST" and args.keys:
                headers["Idempotency-Key"] = f"bench-{sent}"
            request = urllib.request.Request(root + path, method=method, data=body, headers=headers)
            with urllib.request.urlopen(request) as response:
                return response.read()

        def cpu_seconds():
            fields = open(f"/proc/{server.pid}/stat").read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

        call("POST", "/api/v1/event-types",
             json.dumps({"id": TYPE, "name": "Bench", "color": "#000", "icon": "b"}).encode())
        stamp = 1_700_000_000_000

        def batch():
            nonlocal stamp
            events = []
            for _ in range(500):
                stamp += 1
                seconds, milliseconds = divmod(stamp, 1000)
                events.append({
                    "id": str(uuid.UUID(int=(random.getrandbits(128) & ~(0xF << 76)) | (7 << 76))),
                    "event_type_id": TYPE,
                    "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{milliseconds:03d}Z",
                    "notes": f"bench {stamp}", "source_type": "manual",
                    "properties": {"cups": {"type": "number", "value": 2}}})
            return json.dumps({"events": events}).encode()

        bodies = [batch() for _ in range(args.batches + 3)]
        for body in bodies[:3]:  # warm-up: statement caches, the first pages of each table
            call("POST", "/api/v1/events/batch", body)
        start = cpu_seconds()
        for body in bodies[3:]:
            call("POST", "/api/v1/events/batch", body)
        batches = cpu_seconds() - start
        for _ in range(20):
            call("GET", "/api/v1/changes?since=0&limit=100")
        pages = args.batches * 10
        start = cpu_seconds()
        for _ in range(pages):
            call("GET", "/api/v1/changes?since=0&limit=100")
        feed = cpu_seconds() - start
        print(f"batch of 500: {1000 * batches / args.batches:.1f} ms CPU "
              f"({500 * args.batches / batches:,.0f} events per CPU-second)"
              f"{' with Idempotency-Key' if args.keys else ''}; feed page of 100: {1e6 * feed / pages:.0f} µs CPU")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
