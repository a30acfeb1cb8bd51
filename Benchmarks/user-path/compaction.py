#!/usr/bin/env python3
"""Compaction of the change log as an operator and a user meet it (api-v1 §6.8): release `trendy-server` on a
SQLite file, release `trendyctl` processes timed from exec to exit.

`--events` events (10 000 by default) of one type, each then edited `--edits` times (100: 1 000 000 changes), one
`PUT /api/v1/events/{id}` each, over kept-alive connections. Two devices bootstrapped before the edits stay offline
through them. Then:

- device A catches up on the whole log (`trendyctl sync`): time, changes pulled;
- `trendy-server compact --older-than-days 0` beside the serving server: time, changes removed, its longest write
  transaction (how long a writer could wait), the log's size before and after;
- device B catches up on the compacted log: time, changes pulled, and `trendyctl sync --verify`;
- a fresh device bootstraps the same account, for comparison.

    make bench-compaction   # or: python3 Benchmarks/user-path/compaction.py --server-bin .build-shipped \\
                            #         --cli-bin .build-shipped [--events 10000] [--edits 100]
"""
import argparse, http.client, json, os, sqlite3, subprocess, sys, tempfile, threading, time, urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Device, Server  # noqa: E402


def edit_all(server, token, ids, edits, connections=4):
    """`edits` PUTs of each event's notes, spread over `connections` kept-alive connections."""
    root = urllib.parse.urlparse(server.root)
    failures = []

    def worker(share):
        connection = http.client.HTTPConnection(root.hostname, root.port)
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        for round in range(edits):
            for event in share:
                connection.request("PUT", f"/api/v1/events/{event}",
                                   body=json.dumps({"notes": f"edit {round}"}), headers=headers)
                answer = connection.getresponse()
                answer.read()
                if answer.status != 200:
                    failures.append(answer.status)
                    return
        connection.close()

    threads = [threading.Thread(target=worker, args=(ids[n::connections],)) for n in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise SystemExit(f"an edit failed: HTTP {failures[0]}")


def log_size(database):
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        return connection.execute("SELECT COUNT(*) FROM changes").fetchone()[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server-bin", required=True)
    parser.add_argument("--cli-bin", required=True)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--edits", type=int, default=100)
    args = parser.parse_args()
    cli, server_bin = os.path.abspath(args.cli_bin), os.path.abspath(args.server_bin)

    with tempfile.TemporaryDirectory(prefix="trendy-compaction-") as folder:
        database = f"{folder}/server.sqlite"
        server = Server(server_bin, users=1, database=database)
        try:
            token = next(server.tokens)
            server.seed(token, args.events)
            first = Device(server, cli, f"{folder}/a", token)
            second = Device(server, cli, f"{folder}/b", token)
            for device in (first, second):
                device.run("sync", "-q")
            ids = [event["id"] for event in json.loads(first.run("events", "list", "--limit",
                                                                 str(args.events), "--json")[2])]
            assert len(ids) == args.events, len(ids)

            started = time.perf_counter()
            edit_all(server, token, ids, args.edits)
            editing = time.perf_counter() - started
            print(f"{args.events * args.edits:,} edits in {editing:.0f} s", flush=True)

            whole_seconds, whole_rss, output = first.run("sync", "--json")
            whole = json.loads(output)
            assert not whole["bootstrapped"], output

            before = log_size(database)
            started = time.perf_counter()
            compacted = subprocess.run(
                [f"{server_bin}/trendy-server", "compact", "--db", database, "--older-than-days", "0"],
                capture_output=True, text=True, check=True)
            compact_seconds = time.perf_counter() - started
            after = log_size(database)

            caught_seconds, caught_rss, output = second.run("sync", "--json")
            caught = json.loads(output)
            assert not caught["bootstrapped"], output
            verify_seconds = second.run("sync", "--verify", "-q")[0]

            fresh = Device(server, cli, f"{folder}/fresh", token)
            boot_seconds, boot_rss, _ = fresh.run("sync", "-q")
        finally:
            server.stop()

    entities = args.events + 1
    rows = [
        ("The log before compaction", f"{before:,} changes", "–"),
        ("`trendy-server compact --older-than-days 0`, beside the serving server",
         f"{compact_seconds:.1f} s; {compacted.stdout.strip()}", "online"),
        ("The log after compaction", f"{after:,} changes ({after / entities:.2f} per entity)",
         f"≤ 2 × {entities:,} entities"),
        ("Catch-up of a device offline through every edit, uncompacted log",
         f"{whole_seconds:.1f} s, {whole['pulled']:,} changes pulled, peak RSS {whole_rss:.0f} MB", "–"),
        ("Catch-up of a device offline through every edit, compacted log",
         f"{caught_seconds:.1f} s, {caught['pulled']:,} changes pulled, peak RSS {caught_rss:.0f} MB, "
         f"incremental; `sync --verify` {verify_seconds:.1f} s, verified", "one incremental pull"),
        ("Bootstrap of a fresh device, for comparison", f"{boot_seconds:.1f} s, peak RSS {boot_rss:.0f} MB", "–"),
    ]
    print(f"\n{args.events:,} events × {args.edits} edits, this machine, {time.strftime('%Y-%m-%d')}:\n")
    print("| Measure | Result | Target |\n|---|---|---|")
    for measure, result, target in rows:
        print(f"| {measure} | {result} | {target} |")


if __name__ == "__main__":
    main()
