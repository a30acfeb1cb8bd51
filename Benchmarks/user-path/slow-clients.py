"""Slow and hostile clients against a release trendy-server (docs/performance.md, "Slow clients").

1. Server RSS idle, then with 1000 connections each sending a POST whose body trickles (a valid token, so the body
   is read: the worst case for memory), then with 1000 such connections without a token (answered from the head).
2. `/health` latency (p50, p99 of 200 requests, each on a new connection) while 3000 clients trickle request heads,
   a byte every few seconds.

Usage: python3 Benchmarks/user-path/slow-clients.py --server-bin .build-shipped
"""
import argparse, os, socket, statistics, subprocess, time

from common import Server


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise SystemExit("no VmRSS")


def open_slow(port, count, head, first_body=b""):
    sockets = []
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", port))
        connection.setblocking(False)
        try:
            connection.send(head + first_body)
        except BlockingIOError:
            pass
        sockets.append(connection)
    return sockets


def trickle(sockets, byte=b"x"):
    alive = 0
    for connection in sockets:
        try:
            connection.send(byte)
            alive += 1
        except (BlockingIOError, BrokenPipeError, ConnectionResetError):
            pass
    return alive


def health_latencies(port, count):
    latencies = []
    for _ in range(count):
        start = time.perf_counter()
        with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
            connection.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            answer = b""
            while b"\r\n\r\n" not in answer:
                chunk = connection.recv(4096)
                if not chunk:
                    break
                answer += chunk
        if not answer.startswith(b"HTTP/1.1 200"):
            raise SystemExit(f"/health answered {answer[:40]!r}")
        latencies.append((time.perf_counter() - start) * 1000)
    latencies.sort()
    return latencies[len(latencies) // 2], latencies[int(len(latencies) * 0.99) - 1]


def settle(pid):
    time.sleep(2)
    return rss_kib(pid)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server-bin", default=".build-shipped")
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--heads", type=int, default=3000)
    arguments = parser.parse_args()

    server = Server(arguments.server_bin, users=1)
    port = int(server.root.rsplit(":", 1)[1])
    token = next(iter(server.users))
    pid = server.process.pid
    try:
        health_latencies(port, 20)  # warm up
        idle = settle(pid)
        body_head = (f"POST /api/v1/event-types HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                     "Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n").encode()
        # Without a token first: the allocator keeps what the authenticated bodies take, so the other order would
        # hide this figure.
        anonymous_head = body_head.replace(f"Authorization: Bearer {token}\r\n".encode(), b"")
        anonymous = open_slow(port, arguments.connections, anonymous_head, b"{" + b" " * 1023)
        with_anonymous = settle(pid)
        for connection in anonymous:
            connection.close()
        time.sleep(1)
        authenticated = open_slow(port, arguments.connections, body_head, b"{" + b" " * 1023)
        trickle(authenticated)
        with_bodies = settle(pid)
        alive = trickle(authenticated)
        for connection in authenticated:
            connection.close()
        print(f"RSS idle {idle / 1024:.1f} MB; with {arguments.connections} slow bodies without a token "
              f"{with_anonymous / 1024:.1f} MB (+{(with_anonymous - idle) / 1024:.1f} MB); with "
              f"{arguments.connections} slow authenticated bodies {with_bodies / 1024:.1f} MB "
              f"(+{(with_bodies - idle) / 1024:.1f} MB, {alive} still open)")

        heads = open_slow(port, arguments.heads, b"GET /api/v1/event-types HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        time.sleep(1)
        trickle(heads)
        p50, p99 = health_latencies(port, 200)
        alive = trickle(heads)
        print(f"/health with {arguments.heads} clients trickling heads ({alive} still open): "
              f"p50 {p50:.2f} ms, p99 {p99:.2f} ms")
        for connection in heads:
            connection.close()
    finally:
        server.process.terminate()
        server.process.wait()


if __name__ == "__main__":
    main()
