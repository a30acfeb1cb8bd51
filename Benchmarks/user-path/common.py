"""What the user-path benchmarks share: a release `trendy-server --in-memory` on 127.0.0.1 with static tokens,
release `trendyctl` processes timed from exec to exit (peak RSS from wait4), and the accounts they work on."""
import json, os, re, socket, subprocess, time, urllib.request, uuid


def uuid7(milliseconds):
    raw = bytearray(milliseconds.to_bytes(6, "big") + os.urandom(10))
    raw[6] = (raw[6] & 0x0F) | 0x70
    raw[8] = (raw[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(raw)))


def rfc3339(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(seconds))


class Server:
    """`trendy-server --in-memory` (or on the SQLite file `database`) with tokens `user1` … `userN`, each for a user of
    its own."""

    def __init__(self, binary_folder, users, database=None, extra=()):
        self.users = {f"user{n}": "0190f5c0-3f00-7a11-8b22-%012d" % n for n in range(1, users + 1)}
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.root = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [f"{binary_folder}/trendy-server", *(["--db", database] if database else ["--in-memory"]),
             "--port", str(port), "--log-level", "error", *extra]
            + [f"--token={token}:{user}" for token, user in self.users.items()],
            stdout=subprocess.PIPE, text=True)
        if "listening" not in (self.process.stdout.readline() if self.process.stdout else ""):
            raise SystemExit("trendy-server did not start")
        self.tokens = iter(self.users)

    def api(self, token, path, body=None, key=True):
        """One request; a POST carries a fresh Idempotency-Key unless `key` is False."""
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        if key and body is not None:
            headers["Idempotency-Key"] = str(uuid.uuid4())
        request = urllib.request.Request(
            self.root + path, data=None if body is None else json.dumps(body).encode(), headers=headers,
            method="GET" if body is None else "POST")
        with urllib.request.urlopen(request) as answer:
            return json.loads(answer.read() or b"null")

    def requests_served(self):
        with urllib.request.urlopen(self.root + "/metrics") as answer:
            text = answer.read().decode()
        pattern = r'^trendy_http_requests_total\{[^}]*route="/api[^}]*\} (\S+)'
        return sum(float(value) for value in re.findall(pattern, text, re.M))

    def seed(self, token, events):
        """An account of `events` events of one type, one second apart, through 500-event batches; each carries a
        note and one number property, as real accounts' events do (and as ../shared/bench/user-path-check.py seeds)."""
        start = 1_600_000_000
        seeded_type = self.api(token, "/api/v1/event-types",
                               {"id": uuid7(start * 1000), "name": "Seeded", "color": "#336699", "icon": "chart"})
        for first in range(0, events, 500):
            batch = [{"id": uuid7((start + n) * 1000), "event_type_id": seeded_type["id"],
                      "timestamp": rfc3339(start + n), "notes": f"seeded event {n}", "is_all_day": False,
                      "source_type": "manual", "properties": {"k": {"type": "number", "value": n}}}
                     for n in range(first, min(first + 500, events))]
            self.api(token, "/api/v1/events/batch", {"events": batch})

    def cpu_seconds(self):
        """User and system CPU time the server has used so far."""
        with open(f"/proc/{self.process.pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.process.terminate()
        self.process.wait()


class Device:
    """One trendyctl configuration folder (database, config, token) against `server`."""

    def __init__(self, server, cli_folder, folder, token):
        self.server, self.cli_folder, self.folder, self.token = server, cli_folder, folder, token
        os.makedirs(folder, exist_ok=True)
        # trendyctl refuses a token file others can read (docs/security.md), as ssh does a key.
        with open(os.open(f"{folder}/token", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as handle:
            handle.write(token)

    def run(self, *arguments):
        """One trendyctl process: (seconds, peak RSS in MB, stdout); its CPU seconds are left in `last_cpu`."""
        environment = dict(os.environ, TRENDY_DB=self.database, TRENDY_CONFIG=f"{self.folder}/config.toml",
                           TRENDY_TOKEN_FILE=f"{self.folder}/token", TRENDY_SERVER=self.server.root,
                           HOME=self.folder)
        started = time.perf_counter()
        child = subprocess.Popen([f"{self.cli_folder}/trendyctl", *arguments], env=environment,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        output = child.stdout.read() if child.stdout else ""
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        self.last_cpu = usage.ru_utime + usage.ru_stime
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"trendyctl {' '.join(arguments)} failed: {output}")
        return seconds, usage.ru_maxrss / 1024, output

    @property
    def database(self):
        return f"{self.folder}/local.sqlite"

    def database_bytes(self):
        """The local database with its WAL, as it stands on disk."""
        return sum(os.path.getsize(path) for path in (self.database, self.database + "-wal")
                   if os.path.exists(path))

    def prepare_offline_events(self, count):
        """An up-to-date device (one type, synced) that then made `count` events offline (imported, pending).
        Returns the seconds the import of the events took."""
        event_type = {"id": uuid7(int(time.time() * 1000)), "name": "Bench", "color": "#007AFF",
                      "icon": "circle.fill", "created_at": rfc3339(time.time()), "sync_status": "pending"}
        export_file(f"{self.folder}/type.json", [event_type], [])
        events = [{"id": uuid7((1_700_000_000 + n) * 1000), "event_type_id": event_type["id"],
                   "timestamp": rfc3339(1_700_000_000 + n), "notes": f"offline event {n}", "is_all_day": False,
                   "source_type": "manual", "sync_status": "pending"} for n in range(count)]
        export_file(f"{self.folder}/events.json", [], events)
        self.run("import", f"{self.folder}/type.json", "-q")
        self.run("sync", "-q")
        return self.run("import", f"{self.folder}/events.json", "-q")[0]


def export_file(path, event_types, events):
    with open(path, "w") as handle:
        json.dump({"format": "trendy-export", "version": 1, "exported_at": rfc3339(time.time()),
                   "event_types": event_types, "events": events, "geofences": [], "property_definitions": []},
                  handle)
