#!/usr/bin/env python3
"""How a big account costs: for each size, bootstrap of an account of that many events with
`trendyctl sync` on a fresh database, then a push of that many offline events from an up-to-date device, and the
local database's size after each. Release binaries, one run per size. Run by `make bench-large`; prints the table
of docs/performance.md."""
import argparse, json, os, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Device, Server  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--server-bin", default=".build-shipped")
parser.add_argument("--cli-bin", default=".build-shipped")
parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
args = parser.parse_args()
cli, server_bin = os.path.abspath(args.cli_bin), os.path.abspath(args.server_bin)
work = tempfile.mkdtemp(prefix="trendy-scaling-")

# The first exec of a freshly built binary reads it from disk; keep that out of the first row.
subprocess.run([f"{cli}/trendyctl", "--version"], stdout=subprocess.DEVNULL, check=True)
print("| Events | Bootstrap (`trendyctl sync`, fresh) | Peak RSS | Local database | Push (`trendyctl sync`) | "
      "Peak RSS | Local database |")
print("|---:|---:|---:|---:|---:|---:|---:|")
try:
    for size in args.sizes:
        # A server per size, so that each account is measured on a server holding only it.
        server = Server(server_bin, users=2)
        try:
            owner, pusher = next(server.tokens), next(server.tokens)
            seeding = time.perf_counter()
            server.seed(owner, size)
            print(f"<!-- seeded {size} events in {time.perf_counter() - seeding:.0f} s -->", file=sys.stderr)
            fresh = Device(server, cli, f"{work}/bootstrap{size}", owner)
            boot_seconds, boot_rss, output = fresh.run("sync", "--json")
            assert json.loads(output)["pulled"] == size + 1, output
            pushing = Device(server, cli, f"{work}/push{size}", pusher)
            pushing.prepare_offline_events(size)
            push_seconds, push_rss, output = pushing.run("sync", "--json")
            assert json.loads(output)["pushed"] == size, output
            print(f"| {size:,} | {boot_seconds:.2f} s ({size / boot_seconds / 1000:.0f}k ev/s) | {boot_rss:.0f} MB | "
                  f"{fresh.database_bytes() / 1e6:.0f} MB | {push_seconds:.2f} s ({size / push_seconds / 1000:.1f}k ev/s)"
                  f" | {push_rss:.0f} MB | {pushing.database_bytes() / 1e6:.0f} MB |", flush=True)
        finally:
            server.stop()
            shutil.rmtree(f"{work}/bootstrap{size}", ignore_errors=True)
            shutil.rmtree(f"{work}/push{size}", ignore_errors=True)
finally:
    shutil.rmtree(work, ignore_errors=True)
