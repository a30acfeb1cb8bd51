#!/usr/bin/env python3
"""Whole-process figures, the way a user meets them: release `trendyctl` processes against a release
`trendy-server --in-memory` on 127.0.0.1, trendyctl's default configuration, wall clock from exec to exit, peak RSS
from the kernel (wait4). Run by `make bench-user`; prints one Markdown table for docs/performance.md."""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Device, Server  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--server-bin", default=".build-shipped")
parser.add_argument("--cli-bin", default=".build-shipped")
parser.add_argument("--runs", type=int, default=3)
parser.add_argument("--bootstrap-events", type=int, default=100_000)
parser.add_argument("--push-events", type=int, default=10_000)
parser.add_argument("--adds", type=int, default=40)
parser.add_argument("--figures", help="also write the push's seconds and `events add`'s p50 here, as JSON lines "
                    "(Benchmarks/targets.py reads them)")
args = parser.parse_args()
cli = os.path.abspath(args.cli_bin)
work = tempfile.mkdtemp(prefix="trendy-user-path-")
server = Server(os.path.abspath(args.server_bin), users=2 * args.runs + 3)

rows = []
try:
    # Bootstrap: an account of N events, a fresh device each run.
    owner = next(server.tokens)
    server.seed(owner, args.bootstrap_events)
    runs = [Device(server, cli, f"{work}/bootstrap{run}", owner).run("sync", "--json") for run in range(args.runs)]
    best = min(runs, key=lambda run: run[0])
    rows.append((f"Bootstrap {args.bootstrap_events} events: `trendyctl sync` on a fresh database",
                 f"{best[0]:.2f} s, peak RSS {max(run[1] for run in runs):.0f} MB", json.loads(best[2])["pulled"]))

    # Push: an up-to-date device that made N events offline; the sync pushes them and pulls what follows.
    pushes, push_devices, imports = [], [], []
    for run in range(args.runs):
        device = Device(server, cli, f"{work}/push{run}", next(server.tokens))
        push_devices.append(device)
        imports.append(device.prepare_offline_events(args.push_events))
        before, server_cpu = server.requests_served(), server.cpu_seconds()
        seconds, rss, output = device.run("sync", "--json")
        pushes.append((seconds, rss, json.loads(output), server.requests_served() - before - 1, device.last_cpu,
                       server.cpu_seconds() - server_cpu))
    best = best_push = min(pushes, key=lambda run: run[0])
    rows.append((f"Push {args.push_events} offline events: `trendyctl sync` on an up-to-date database",
                 f"{best[0]:.2f} s, {best[3]:.0f} requests, peak RSS {best[1]:.0f} MB; CPU: client {best[4]:.2f} s, "
                 f"server {best[5]:.2f} s",
                 f"pushed {best[2]['pushed']}, pulled {best[2]['pulled']}"))
    rows.append((f"Import {args.push_events} events: `trendyctl import` of an export (the push's offline events)",
                 f"{min(imports):.2f} s", "one transaction"))

    # No-op: the same device again.
    device = push_devices[0]
    before = server.requests_served()
    noop = min(device.run("sync", "-q")[0] for _ in range(5))
    requests = (server.requests_served() - before - 1) / 5
    rows.append(("No-op sync: `trendyctl sync` on an up-to-date database", f"{requests:.0f} request, {noop * 1000:.0f} ms", ""))

    # events add on that device (10 000 events, warm), and process start alone.
    adds = sorted(device.run("events", "add", "Bench", "-q")[0] for _ in range(args.adds))
    starts = sorted(device.run("--version")[0] for _ in range(args.adds))
    rows.append(("`trendyctl events add` (database of the push above)",
                 f"p50 {statistics.median(adds) * 1000:.1f} ms, p90 {adds[int(len(adds) * 0.9)] * 1000:.1f} ms",
                 f"`--version` alone: p50 {statistics.median(starts) * 1000:.1f} ms"))
    if args.figures:
        with open(args.figures, "a") as file:
            file.write(json.dumps({"measure": "push", "seconds": best_push[0]}) + "\n")
            file.write(json.dumps({"measure": "events_add_p50", "seconds": statistics.median(adds)}) + "\n")
finally:
    server.stop()

# The binaries as `make install` puts them: stripped copies of the two measured here.
sizes = []
for binary in (os.path.join(cli, "trendyctl"), os.path.join(os.path.abspath(args.server_bin), "trendy-server")):
    stripped = os.path.join(work, os.path.basename(binary) + ".stripped")
    shutil.copyfile(binary, stripped)
    subprocess.run(["strip", stripped], check=True)
    sizes.append(f"{os.path.basename(binary)} {os.path.getsize(stripped) / 1e6:.0f} MB "
                 f"({os.path.getsize(binary) / 1e6:.0f} MB unstripped)")
rows.append(("Installed binaries (stripped, as `make install`)", ", ".join(sizes), ""))

print(f"| Scenario | Best of {args.runs} | Rows |")
print("|---|---|---|")
for scenario, figure, detail in rows:
    print(f"| {scenario} | {figure} | {detail} |")
