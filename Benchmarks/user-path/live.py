#!/usr/bin/env python3
"""Live sync as a user meets it: release `trendy-server` and the installed `trendyctl`, whole processes.

1. `trendyctl events add` on device A, whose `sync --watch` runs, until device B's `sync --watch --json` prints the
   entry applied: `--writes` samples, one at a time, timed from A's exec to B's line.
2. A burst: `--burst` events created on A in one batch (A's watcher pushes them), until B's watcher has applied all
   of them; B's applied cursors must be gapless and its database must then hold every event.
3. Idle streams: `--streams` change streams held open by one server (raw sockets from this process); the server's
   resident memory per stream, then the delivery time of one write to every stream (p50, p99, max).

    make bench-live              # or: python3 Benchmarks/user-path/live.py --server-bin .build-shipped \\
                                 #         --cli-bin .build-shipped
"""
import argparse, json, os, resource, selectors, socket, subprocess, tempfile, threading, time

from common import Device, Server, rfc3339, uuid7


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(len(ordered) * fraction + 0.5)) - 1))]


class Watcher:
    """`trendyctl sync --watch --json` on `device`, its stdout read line by line on a thread."""

    def __init__(self, device):
        environment = dict(os.environ, TRENDY_DB=device.database, TRENDY_CONFIG=f"{device.folder}/config.toml",
                           TRENDY_TOKEN_FILE=f"{device.folder}/token", TRENDY_SERVER=device.server.root,
                           HOME=device.folder)
        self.process = subprocess.Popen([f"{device.cli_folder}/trendyctl", "sync", "--watch", "--json"],
                                        env=environment, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.lines = []
        self.condition = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            with self.condition:
                self.lines.append((time.perf_counter(), json.loads(line)))
                self.condition.notify_all()

    def wait(self, predicate, timeout=30, after=0):
        """The first (time, line) from line `after` on that satisfies `predicate`."""
        deadline = time.perf_counter() + timeout
        with self.condition:
            while True:
                for seen, line in self.lines[after:]:
                    if predicate(line):
                        return seen, line
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    raise SystemExit(f"timed out; the watcher printed {self.lines[-3:]}")
                self.condition.wait(remaining)

    def applied(self):
        with self.condition:
            return [line for _, line in self.lines if line.get("event") == "applied"]

    def stop(self):
        self.process.send_signal(2)
        self.process.wait()


def server_rss_kb(server):
    with open(f"/proc/{server.process.pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def open_stream(port, token):
    connection = socket.create_connection(("127.0.0.1", port))
    connection.sendall(f"GET /api/v1/changes/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                       f"Authorization: Bearer {token}\r\n\r\n".encode())
    return connection


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server-bin", required=True)
    parser.add_argument("--cli-bin", required=True)
    parser.add_argument("--writes", type=int, default=50)
    parser.add_argument("--burst", type=int, default=10_000)
    parser.add_argument("--streams", type=int, default=5000)
    parser.add_argument("--readers", type=int, default=1,
                        help="processes reading the idle streams after the write, each a share of the sockets: "
                             "one process alone adds its own serial reading to the figure")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.streams * 2 + 256)), hard))

    rows = []
    print("| Measure | Figure |")
    print("|---|---|", flush=True)

    class Rows(list):
        def append(self, row):
            super().append(row)
            print(f"| {row[0]} | {row[1]} |", flush=True)

    rows = Rows()
    with tempfile.TemporaryDirectory(prefix="trendy-live-") as folder:
        server = Server(args.server_bin, users=1, database=f"{folder}/server.sqlite")
        try:
            token = next(server.tokens)
            a = Device(server, args.cli_bin, f"{folder}/a", token)
            b = Device(server, args.cli_bin, f"{folder}/b", token)
            a.run("types", "add", "Live", "-q")
            a.run("sync", "-q")
            b.run("sync", "-q")
            watch_a, watch_b = Watcher(a), Watcher(b)
            for watcher in (watch_a, watch_b):
                watcher.wait(lambda line: "outcome" in line)
            time.sleep(0.5)  # both streams open

            samples = []
            for index in range(args.writes):
                with watch_b.condition:
                    already = len(watch_b.lines)
                started = time.perf_counter()
                a.run("events", "add", "Live", "--notes", f"live {index}", "-q")
                seen, _ = watch_b.wait(lambda line: line.get("event") == "applied", after=already)
                samples.append(seen - started)
            rows.append(("`trendyctl events add` on A (its `sync --watch` running) → B's `sync --watch` prints it "
                         f"applied, {args.writes} writes",
                         f"p50 {percentile(samples, 0.5) * 1000:.0f} ms, p99 {percentile(samples, 0.99) * 1000:.0f} ms"))

            # The burst: one import on A (one transaction, A's watcher pushes it in batches of 500).
            events = [{"id": uuid7((1_700_000_000 + n) * 1000), "event_type_id": None, "timestamp":
                       rfc3339(1_700_000_000 + n), "notes": f"burst {n}", "is_all_day": False,
                       "source_type": "manual", "sync_status": "pending"} for n in range(args.burst)]
            _, _, listed = a.run("types", "list", "--json")
            type_id = json.loads(listed)[0]["id"]
            for event in events:
                event["event_type_id"] = type_id
            with open(f"{folder}/burst.json", "w") as handle:
                json.dump({"format": "trendy-export", "version": 1, "exported_at": rfc3339(time.time()),
                           "event_types": [], "events": events, "geofences": [], "property_definitions": []}, handle)
            before = watch_b.applied()
            rounds_before = len(watch_b.lines)
            started = time.perf_counter()
            a.run("import", f"{folder}/burst.json", "-q")
            imported = time.perf_counter()
            total = args.writes + args.burst
            target = 1 + total  # the type, the writes, the burst: one change each
            seen, _ = watch_b.wait(lambda line: line.get("cursor", 0) >= target, timeout=120)
            bursts = watch_b.applied()[len(before):]
            with watch_b.condition:
                rounds = [line for _, line in watch_b.lines[rounds_before:] if "outcome" in line]
            cursors = [line["cursor"] for line in bursts]
            gapless = all(later > earlier for earlier, later in zip(cursors, cursors[1:]))
            _, _, listed = b.run("events", "list", "--limit", str(total + 10), "--json")
            held = len(json.loads(listed))
            rows.append((f"Burst: {args.burst} events created on A in one import → all applied on B",
                         f"{seen - started:.2f} s ({seen - imported:.2f} s after the import; "
                         f"{sum(line['changes'] for line in bursts)} entries in {len(bursts)} bursts, "
                         f"{sum(line['pulled'] for line in rounds)} pulled by {len(rounds)} rounds, "
                         f"{'gapless' if gapless else 'NOT gapless'}, B holds {held} of {total})"))
            watch_a.stop()
            watch_b.stop()

        finally:
            server.stop()

        # Idle streams of one user, held by this process; the per-user cap raised to hold them all.
        server = Server(args.server_bin, users=1, extra=("--max-streams-per-user", str(args.streams)))
        try:
            token = next(server.tokens)
            idle_kb = server_rss_kb(server)
            port = int(server.root.rsplit(":", 1)[1])
            selector = selectors.DefaultSelector()
            received = {}
            for _ in range(args.streams):
                connection = open_stream(port, token)
                connection.setblocking(False)
                selector.register(connection, selectors.EVENT_READ)
                received[connection] = b""

            def read_until(marker, timeout):
                """Reads every stream until each has `marker`; the time each got it."""
                arrived = {}
                deadline = time.perf_counter() + timeout
                while len(arrived) < len(received) and time.perf_counter() < deadline:
                    for key, _ in selector.select(timeout=1):
                        connection = key.fileobj
                        received[connection] += connection.recv(65536)
                        if connection not in arrived and marker in received[connection]:
                            arrived[connection] = time.perf_counter()
                return arrived

            opened = len(read_until(b": open", 120))
            time.sleep(2)
            held_kb = server_rss_kb(server) - idle_kb
            # Each reader process waits on its share of the sockets and reports when each got the change
            # (time.monotonic is one clock for all processes).
            connections = list(received)
            readers = []
            for share in range(max(1, args.readers)):
                results_read, results_write = os.pipe()
                child = os.fork()
                if child == 0:
                    os.close(results_read)
                    mine = connections[share::max(1, args.readers)]
                    own = selectors.DefaultSelector()
                    for connection in mine:
                        own.register(connection, selectors.EVENT_READ)
                    seen, times = {connection: b"" for connection in mine}, []
                    deadline = time.monotonic() + 120
                    while len(times) < len(mine) and time.monotonic() < deadline:
                        for key, _ in own.select(timeout=1):
                            connection = key.fileobj
                            seen[connection] += connection.recv(65536)
                            if b"event: change" in seen[connection]:
                                times.append(time.monotonic())
                                own.unregister(connection)
                    os.write(results_write, json.dumps(times).encode())
                    os._exit(0)
                os.close(results_write)
                readers.append((child, results_read))
            time.sleep(1)  # every reader is waiting in select
            written = time.monotonic()
            server.api(token, "/api/v1/event-types",
                       {"id": uuid7(int(time.time() * 1000)), "name": "T", "color": "#000000", "icon": "i"})
            delivery = []
            for child, results_read in readers:
                chunks = []
                while chunk := os.read(results_read, 1 << 20):
                    chunks.append(chunk)
                os.waitpid(child, 0)
                delivery += [moment - written for moment in json.loads(b"".join(chunks))]
            for connection in received:
                connection.close()
            rows.append((f"Idle streams held by one server: {opened} of {args.streams}",
                         f"{held_kb / max(opened, 1):.1f} KB server memory each ({held_kb / 1024:.0f} MB in all)"))
            rows.append((f"One write, delivered to all {len(delivery)} streams ({args.readers} reader processes)",
                         f"p50 {percentile(delivery, 0.5) * 1000:.0f} ms, p99 {percentile(delivery, 0.99) * 1000:.0f}"
                         f" ms, last {max(delivery) * 1000:.0f} ms"))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
