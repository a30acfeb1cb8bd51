#!/usr/bin/env python3
"""Whole-process figures, the way a user meets them (issue 12): release `trendyctl` processes against a release
`trendy-server --in-memory` on 127.0.0.1, trendyctl's default configuration, wall clock from exec to exit, peak RSS
from the kernel (wait4). Run by `make bench-user`; prints one Markdown table for docs/performance.md."""
import argparse, json, os, re, socket, statistics, subprocess, sys, tempfile, time, urllib.request, uuid

parser = argparse.ArgumentParser()
parser.add_argument("--server-bin", default=".build/release")
parser.add_argument("--cli-bin", default=".build/release")
parser.add_argument("--runs", type=int, default=3)
parser.add_argument("--bootstrap-events", type=int, default=100_000)
parser.add_argument("--push-events", type=int, default=10_000)
parser.add_argument("--adds", type=int, default=40)
args = parser.parse_args()
server_binary, cli_binary = os.path.abspath(args.server_bin), os.path.abspath(args.cli_bin)
work = tempfile.mkdtemp(prefix="trendy-user-path-")


def uuid7(milliseconds):
    raw = bytearray(milliseconds.to_bytes(6, "big") + os.urandom(10))
    raw[6] = (raw[6] & 0x0F) | 0x70
    raw[8] = (raw[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(raw)))


def rfc3339(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(seconds))


users = {f"user{n}": "0190f5c0-3f00-7a11-8b22-%012d" % n for n in range(1, 2 * args.runs + 4)}
with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
server_root = f"http://127.0.0.1:{port}"
server = subprocess.Popen(
    [f"{server_binary}/trendy-server", "--in-memory", "--port", str(port), "--log-level", "error"]
    + [f"--token={token}:{user}" for token, user in users.items()],
    stdout=subprocess.PIPE, text=True)
if "listening" not in (server.stdout.readline() if server.stdout else ""):
    sys.exit("trendy-server did not start")
tokens = iter(users)


def api(token, path, body=None):
    request = urllib.request.Request(
        server_root + path, data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                 "Idempotency-Key": str(uuid.uuid4())}, method="GET" if body is None else "POST")
    with urllib.request.urlopen(request) as answer:
        return json.loads(answer.read() or b"null")


def trendyctl(device, token, *arguments):
    """One trendyctl process: (seconds, peak RSS in MB, stdout)."""
    os.makedirs(device, exist_ok=True)
    with open(f"{device}/token", "w") as handle:
        handle.write(token)
    environment = dict(os.environ, TRENDY_DB=f"{device}/local.sqlite", TRENDY_CONFIG=f"{device}/config.toml",
                       TRENDY_TOKEN_FILE=f"{device}/token", TRENDY_SERVER=server_root, HOME=device)
    started = time.perf_counter()
    child = subprocess.Popen([f"{cli_binary}/trendyctl", *arguments], env=environment, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    output = child.stdout.read() if child.stdout else ""
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"trendyctl {' '.join(arguments)} failed: {output}")
    return seconds, usage.ru_maxrss / 1024, output


def requests_served():
    with urllib.request.urlopen(server_root + "/metrics") as answer:
        text = answer.read().decode()
    return sum(float(value) for value in re.findall(r'^trendy_http_requests_total\{[^}]*route="/api[^}]*\} (\S+)', text, re.M))


def export_file(path, event_types, events):
    with open(path, "w") as handle:
        json.dump({"format": "trendy-export", "version": 1, "exported_at": rfc3339(time.time()),
                   "event_types": event_types, "events": events, "geofences": [], "property_definitions": []}, handle)


rows = []
try:
    # Bootstrap: an account of N events, a fresh device each run.
    owner = next(tokens)
    start = 1_600_000_000
    seeded_type = api(owner, "/api/v1/event-types", {"id": uuid7(start * 1000), "name": "Seeded", "color": "#336699", "icon": "chart"})
    for first in range(0, args.bootstrap_events, 500):
        batch = [{"id": uuid7((start + n) * 1000), "event_type_id": seeded_type["id"], "timestamp": rfc3339(start + n),
                  "notes": f"seeded event {n}", "is_all_day": False, "source_type": "manual", "properties": {}}
                 for n in range(first, min(first + 500, args.bootstrap_events))]
        api(owner, "/api/v1/events/batch", {"events": batch})
    runs = [trendyctl(f"{work}/bootstrap{run}", owner, "sync", "--json") for run in range(args.runs)]
    best = min(runs, key=lambda run: run[0])
    rows.append((f"Bootstrap {args.bootstrap_events} events: `trendyctl sync` on a fresh database",
                 f"{best[0]:.2f} s, peak RSS {max(run[1] for run in runs):.0f} MB", json.loads(best[2])["pulled"]))

    # Push: an up-to-date device that made N events offline; the sync pushes them and pulls what follows.
    pushes, push_devices = [], []
    for run in range(args.runs):
        token, device = next(tokens), f"{work}/push{run}"
        push_devices.append((device, token))
        event_type = {"id": uuid7(int(time.time() * 1000)), "name": "Bench", "color": "#007AFF",
                      "icon": "circle.fill", "created_at": rfc3339(time.time()), "sync_status": "pending"}
        export_file(f"{device}.type.json", [event_type], [])
        events = [{"id": uuid7((1_700_000_000 + n) * 1000), "event_type_id": event_type["id"],
                   "timestamp": rfc3339(1_700_000_000 + n), "notes": f"offline event {n}", "is_all_day": False,
                   "source_type": "manual", "sync_status": "pending"} for n in range(args.push_events)]
        export_file(f"{device}.events.json", [], events)
        trendyctl(device, token, "import", f"{device}.type.json", "-q")
        trendyctl(device, token, "sync", "-q")
        trendyctl(device, token, "import", f"{device}.events.json", "-q")
        before = requests_served()
        seconds, rss, output = trendyctl(device, token, "sync", "--json")
        pushes.append((seconds, rss, json.loads(output), requests_served() - before - 1))
    best = min(pushes, key=lambda run: run[0])
    rows.append((f"Push {args.push_events} offline events: `trendyctl sync` on an up-to-date database",
                 f"{best[0]:.2f} s, {best[3]:.0f} requests, peak RSS {best[1]:.0f} MB",
                 f"pushed {best[2]['pushed']}, pulled {best[2]['pulled']}"))

    # No-op: the same device again.
    device, token = push_devices[0]
    before = requests_served()
    noop = min(trendyctl(device, token, "sync", "-q")[0] for _ in range(5))
    requests = (requests_served() - before - 1) / 5
    rows.append(("No-op sync: `trendyctl sync` on an up-to-date database", f"{requests:.0f} request, {noop * 1000:.0f} ms", ""))

    # events add on that device (10 000 events, warm), and process start alone.
    adds = sorted(trendyctl(device, token, "events", "add", "Bench", "-q")[0] for _ in range(args.adds))
    starts = sorted(trendyctl(device, token, "--version")[0] for _ in range(args.adds))
    rows.append(("`trendyctl events add` (database of the push above)",
                 f"p50 {statistics.median(adds) * 1000:.1f} ms, p90 {adds[int(len(adds) * 0.9)] * 1000:.1f} ms",
                 f"`--version` alone: p50 {statistics.median(starts) * 1000:.1f} ms"))
finally:
    server.terminate()
    server.wait()

print(f"| Scenario | Best of {args.runs} | Rows |")
print("|---|---|---|")
for scenario, figure, detail in rows:
    print(f"| {scenario} | {figure} | {detail} |")
