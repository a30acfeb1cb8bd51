"""Large answers beside small ones (docs/performance.md, "Large answers"): one user has 1000
events with 16 KB of notes each; four clients (curl processes) read its largest pages in a loop while another user's
requests (`GET /api/v1/changes/latest-cursor`, a new connection each, every 10 ms) are timed.

Usage: python3 Benchmarks/user-path/large-answers.py --server-bin .build-shipped
"""
import argparse, multiprocessing, subprocess, threading, time, urllib.request

from common import Server, rfc3339, uuid7


def reader(root, token, path, until):
    while time.time() < until:
        subprocess.run(["curl", "-s", "-o", "/dev/null", "-H", f"Authorization: Bearer {token}", root + path])


def measure(server, big, small, path, readers, seconds=9):
    until = time.time() + seconds + 1
    processes = [multiprocessing.Process(target=reader, args=(server.root, big, path, until)) for _ in range(readers)]
    for process in processes:
        process.start()
    time.sleep(0.5)
    latencies = []
    end = time.time() + seconds
    while time.time() < end:
        start = time.perf_counter()
        request = urllib.request.Request(
            server.root + "/api/v1/changes/latest-cursor", headers={"Authorization": f"Bearer {small}"})
        with urllib.request.urlopen(request) as answer:
            answer.read()
        latencies.append((time.perf_counter() - start) * 1000)
        time.sleep(0.01)
    for process in processes:
        process.join()
    latencies.sort()
    return latencies[len(latencies) // 2], latencies[int(len(latencies) * 0.99) - 1], len(latencies)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server-bin", default=".build-shipped")
    arguments = parser.parse_args()
    server = Server(arguments.server_bin, users=2)
    big, small = list(server.users)
    try:
        seeded = server.api(big, "/api/v1/event-types", {"name": "Big", "color": "#000000", "icon": "doc"})
        start = 1_600_000_000
        for first in range(0, 1000, 200):
            server.api(big, "/api/v1/events/batch", {"events": [
                {"id": uuid7((start + n) * 1000), "event_type_id": seeded["id"], "timestamp": rfc3339(start + n),
                 "notes": "n" * 16000, "is_all_day": False, "source_type": "manual", "properties": {}}
                for n in range(first, first + 200)]})
        for label, path, readers in [
            ("no readers", "/api/v1/events?limit=1000", 0),
            ("4 readers of offset pages (1000 events, 16.5 MB)", "/api/v1/events?limit=1000&offset=0", 4),
            ("4 readers of keyset pages (capped at 4 MiB)", "/api/v1/events?limit=1000", 4),
        ]:
            p50, p99, count = measure(server, big, small, path, readers)
            print(f"another user's request, {label}: p50 {p50:.1f} ms, p99 {p99:.1f} ms ({count} requests)")
    finally:
        server.process.terminate()
        server.process.wait()


if __name__ == "__main__":
    main()
