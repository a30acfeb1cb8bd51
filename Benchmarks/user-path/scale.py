#!/usr/bin/env python3
"""A million-event account as a user meets it: release `trendy-server` on a SQLite file,
release `trendyctl` processes timed from exec to exit (peak RSS from wait4).

The account: `--events` events (1 000 000 by default) over 200 types, each event with notes and one number
property, 2000 property definitions (10 a type) and 50 geofences, seeded through `POST /events/batch`. Then:

- a fresh device bootstraps it (`trendyctl sync`): time and peak RSS;
- every keyset page of `GET /api/v1/events?limit=100&after=…`, first to deepest, over one kept-alive connection:
  p50 and p99 of the first and the last tenth of the pages (depth must not matter);
- `trendyctl export --output FILE` of the whole account: time and peak RSS;
- `trendyctl events list --limit 50` on the bootstrapped database: median of 5;
- the server's digest of the account (`GET /api/v1/sync/digest`, api-v1 §14), best of 3, and `trendyctl sync
  --verify` (the device's digest, the server's, the comparison).

    make bench-scale             # or: python3 Benchmarks/user-path/scale.py --server-bin .build-shipped \\
                                 #         --cli-bin .build-shipped [--events 1000000]
"""
import argparse, http.client, json, os, statistics, sys, tempfile, time, urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Device, Server, rfc3339, uuid7  # noqa: E402

TYPES, DEFINITIONS_PER_TYPE, GEOFENCES = 200, 10, 50


def seed(server, token, events):
    """The account of the docstring; returns when every batch is stored."""
    start = 1_600_000_000
    types = []
    for index in range(TYPES):
        created = server.api(token, "/api/v1/event-types", {
            "id": uuid7((start - 10_000 + index) * 1000), "name": f"Type {index}", "color": "#336699",
            "icon": "chart"})
        types.append(created["id"])
        for order in range(DEFINITIONS_PER_TYPE):
            server.api(token, f"/api/v1/event-types/{created['id']}/properties", {
                "id": uuid7((start - 20_000 + index * DEFINITIONS_PER_TYPE + order) * 1000),
                "event_type_id": created["id"], "key": f"k{order}", "label": f"Key {order}",
                "property_type": "number", "display_order": order})
    for index in range(GEOFENCES):
        server.api(token, "/api/v1/geofences", {
            "id": uuid7((start - 30_000 + index) * 1000), "name": f"Place {index}",
            "latitude": 52.0 + index / 100, "longitude": 13.0 + index / 100, "radius": 150,
            "event_type_entry_id": types[index % TYPES]})
    for first in range(0, events, 500):
        batch = [{"id": uuid7((start + n) * 1000), "event_type_id": types[n % TYPES],
                  "timestamp": rfc3339(start + n), "notes": f"seeded event {n} with a note like real ones",
                  "is_all_day": False, "source_type": "manual",
                  "properties": {"k0": {"type": "number", "value": n % 97}}}
                 for n in range(first, min(first + 500, events))]
        server.api(token, "/api/v1/events/batch", {"events": batch})


def page_times(server, token):
    """Milliseconds of each keyset page of 100 events, first to last, request to last byte."""
    root = urllib.parse.urlparse(server.root)
    connection = http.client.HTTPConnection(root.hostname, root.port)
    headers = {"Authorization": f"Bearer {token}"}
    times, after = [], None
    while True:
        path = "/api/v1/events?limit=100" + (f"&after={urllib.parse.quote(after)}" if after else "")
        started = time.perf_counter()
        connection.request("GET", path, headers=headers)
        answer = connection.getresponse()
        body = answer.read()
        times.append((time.perf_counter() - started) * 1000)
        assert answer.status == 200, body[:200]
        after = answer.getheader("X-Next-After")
        if not after:
            break
    connection.close()
    return times


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server-bin", required=True)
    parser.add_argument("--cli-bin", required=True)
    parser.add_argument("--events", type=int, default=1_000_000)
    args = parser.parse_args()
    cli = os.path.abspath(args.cli_bin)

    with tempfile.TemporaryDirectory(prefix="trendy-scale-") as folder:
        server = Server(os.path.abspath(args.server_bin), users=1, database=f"{folder}/server.sqlite")
        try:
            token = next(server.tokens)
            seeding = time.perf_counter()
            seed(server, token, args.events)
            print(f"seeded {args.events:,} events, {TYPES} types, {TYPES * DEFINITIONS_PER_TYPE} definitions, "
                  f"{GEOFENCES} geofences in {time.perf_counter() - seeding:.0f} s", flush=True)

            device = Device(server, cli, f"{folder}/device", token)
            boot_seconds, boot_rss, output = device.run("sync", "--json")
            assert json.loads(output)["pulled"] >= args.events, output

            pages = page_times(server, token)
            tenth = max(1, len(pages) // 10)
            first, last = pages[:tenth], pages[-tenth:]

            export_seconds, export_rss, _ = device.run("export", "--output", f"{folder}/export.json")
            export_bytes = os.path.getsize(f"{folder}/export.json")

            lists = sorted(device.run("events", "list", "--limit", "50")[0] for _ in range(5))

            digest = []
            for _ in range(3):
                started = time.perf_counter()
                server.api(token, "/api/v1/sync/digest")
                digest.append(time.perf_counter() - started)
            # Exit 0 is "verified" (trendyctl.md §1.2); anything else stops the run.
            verify_seconds, verify_rss, _ = device.run("sync", "--verify", "--json")
        finally:
            server.stop()

    rows = [
        ("Bootstrap, fresh device (`trendyctl sync`)", f"{boot_seconds:.1f} s, peak RSS {boot_rss:.0f} MB",
         "≤ 25 s, ≤ 150 MB"),
        (f"`GET /events` keyset page of 100 ({len(pages):,} pages)",
         f"first tenth p50 {statistics.median(first):.1f} ms, p99 {percentile(first, 0.99):.1f} ms; "
         f"last tenth p50 {statistics.median(last):.1f} ms, p99 {percentile(last, 0.99):.1f} ms",
         "p99 ≤ 20 ms at any depth"),
        ("`trendyctl export` (JSON)", f"{export_seconds:.1f} s, peak RSS {export_rss:.0f} MB, "
         f"{export_bytes / 1e6:.0f} MB written", "streams, ≤ 100 MB"),
        ("`trendyctl events list --limit 50`", f"median {statistics.median(lists) * 1000:.0f} ms",
         "≤ 50 ms"),
        ("Digest (`GET /api/v1/sync/digest`)", f"best {min(digest):.2f} s", "≤ 3 s"),
        ("`trendyctl sync --verify`, up to date", f"{verify_seconds:.1f} s, peak RSS {verify_rss:.0f} MB", "–"),
    ]
    print(f"\n{args.events:,} events, this machine, {time.strftime('%Y-%m-%d')}:\n")
    print("| Measure | Result | Target |\n|---|---|---|")
    for measure, result, target in rows:
        print(f"| {measure} | {result} | {target} |")


if __name__ == "__main__":
    main()
