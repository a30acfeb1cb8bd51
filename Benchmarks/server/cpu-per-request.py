#!/usr/bin/env python3
"""The server's CPU time per request, requests sent one at a time (docs/performance.md, server).

    python3 Benchmarks/server/cpu-per-request.py [--server-bin .build-shipped] [--batches 40] [--keys]

Starts trendy-server on a fresh SQLite file, sends `--batches` POST /api/v1/events/batch of 500 new events (with an
Idempotency-Key each when `--keys`, as clients send them) and checks that every event was created, then ten times as
many 100-row change-feed pages, and prints the server's user+system CPU (from /proc) per request. Throughput under
wrk moves with the host's load on this VM by ±30 %; CPU per request moves less, which makes it the figure to
compare two builds with (alternate them, several runs each).
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "user-path"))
from common import Server, rfc3339, uuid7  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server-bin", default=".build-shipped", help="the folder of the trendy-server binary")
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--keys", action="store_true", help="send an Idempotency-Key with every batch")
    args = parser.parse_args()
    server = Server(os.path.abspath(args.server_bin), users=1, database=f"{tempfile.mkdtemp()}/server.sqlite")
    try:
        token = next(server.tokens)
        start = 1_600_000_000
        event_type = server.api(token, "/api/v1/event-types",
                                {"id": uuid7(start * 1000), "name": "Bench", "color": "#000", "icon": "b"})
        sent = 0

        def batch():
            nonlocal sent
            events = [{"id": uuid7((start + n) * 1000), "event_type_id": event_type["id"],
                       "timestamp": rfc3339(start + n), "notes": f"bench {n}", "source_type": "manual",
                       "properties": {"cups": {"type": "number", "value": 2}}}
                      for n in range(sent, sent + 500)]
            sent += 500
            answer = server.api(token, "/api/v1/events/batch", {"events": events}, key=args.keys)
            if answer["success"] != 500:
                raise SystemExit(f"a batch created {answer['success']} of 500 events: {answer['errors'][:2]}")

        for _ in range(3):  # warm-up: statement caches, the first pages of each table
            batch()
        before = server.cpu_seconds()
        for _ in range(args.batches):
            batch()
        batches = server.cpu_seconds() - before
        for _ in range(20):
            server.api(token, "/api/v1/changes?since=0&limit=100")
        pages = args.batches * 10
        before = server.cpu_seconds()
        for _ in range(pages):
            server.api(token, "/api/v1/changes?since=0&limit=100")
        feed = server.cpu_seconds() - before
        print(f"batch of 500: {1000 * batches / args.batches:.1f} ms CPU "
              f"({500 * args.batches / batches:,.0f} events per CPU-second)"
              f"{' with Idempotency-Key' if args.keys else ''}; feed page of 100: {1e6 * feed / pages:.0f} µs CPU")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
