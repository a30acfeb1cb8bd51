#!/usr/bin/env python3
"""The sync digest at scale (100 000 entities digested in under 0.5 s), as a user meets it.

A release `trendy-server` on a SQLite file holds an account of `--events` events (and their type). The table gives,
best of `--runs`: the server's `GET /api/v1/sync/digest` and one `?bucket=` list, timed from request to last byte
over loopback; then a device bootstrapped with the release `trendyctl` runs a no-op `trendyctl sync` and
`trendyctl sync --verify`. The difference between those two is what verification adds to a sync: the device's own
digest of every row, the server's digest over HTTP, and the comparison.

    make bench-digest            # or: python3 Benchmarks/user-path/digest.py --server-bin .build-shipped \\
                                 #         --cli-bin .build-shipped --events 100000 --runs 5
"""
import argparse, tempfile, time, urllib.request

from common import Device, Server


def timed_get(server, token, path):
    request = urllib.request.Request(server.root + path, headers={"Authorization": f"Bearer {token}"})
    started = time.perf_counter()
    with urllib.request.urlopen(request) as answer:
        body = answer.read()
    return time.perf_counter() - started, body


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server-bin", required=True)
    parser.add_argument("--cli-bin", required=True)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="trendy-digest-") as folder:
        server = Server(args.server_bin, users=1, database=f"{folder}/server.sqlite")
        try:
            token = next(server.tokens)
            print(f"seeding {args.events} events …", flush=True)
            server.seed(token, args.events)
            server_digest = min(timed_get(server, token, "/api/v1/sync/digest")[0] for _ in range(args.runs))
            _, body = timed_get(server, token, "/api/v1/sync/digest")
            bucket = min(timed_get(server, token, "/api/v1/sync/digest?bucket=7f")[0] for _ in range(args.runs))

            device = Device(server, args.cli_bin, f"{folder}/device", token)
            device.run("sync", "-q")
            noop = min(device.run("sync", "-q")[0] for _ in range(args.runs))
            verify_runs = [device.run("sync", "--verify", "--json") for _ in range(args.runs)]
            verify = min(seconds for seconds, _, _ in verify_runs)
            verify_rss = max(rss for _, rss, _ in verify_runs)
            if '"verified":true' not in verify_runs[-1][2]:
                raise SystemExit(f"the device did not verify: {verify_runs[-1][2]}")
        finally:
            server.stop()

    entities = args.events + 1
    print(f"\n{entities} entities, best of {args.runs} ({len(body)} bytes of digest)\n")
    print("| What | Time |")
    print("|---|---|")
    print(f"| server: `GET /api/v1/sync/digest` | {server_digest * 1000:.0f} ms |")
    print(f"| server: `GET /api/v1/sync/digest?bucket=7f` | {bucket * 1000:.0f} ms |")
    print(f"| `trendyctl sync` (no-op) | {noop * 1000:.0f} ms |")
    print(f"| `trendyctl sync --verify` | {verify * 1000:.0f} ms, {verify_rss:.0f} MB peak RSS |")
    print(f"| what `--verify` adds (the difference) | {(verify - noop) * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
