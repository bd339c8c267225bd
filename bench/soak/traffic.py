"""The soak's clients: a pool of threads sending HTTP requests through vigil, each answer checked,
and the flood that opens connections up to the fd budget and holds them.

Every request is recorded in Traffic (start, end, ok, the member that answered); the requests in
flight are kept in a dict so that a kill can take a snapshot of them at its instant. Python 3
standard library only; loopback only.
"""

import http.client
import itertools
import socket
import threading
import time

HOST = "127.0.0.1"
SLOW_BYTES = 32 * 1024  # /slow: served at nginx's limit_rate, about 250 ms in flight


class Traffic:
    """What the client threads share: the log of finished requests and those in flight.
    The threads only append and the dict operations are atomic under the GIL."""

    def __init__(self, members):
        self.members = set(members)
        self.ids = itertools.count()
        self.in_flight = {}  # request id -> member the connection was last answered by, or None
        self.done = []  # (start, end, ok, member, error, request id)
        self.stale_retries = 0  # kept-alive connections found closed after their member's kill
        self.kills = []  # (time, member): read by the clients to tell a stale connection
        self.stop = threading.Event()

    def killed_between(self, member, since, until):
        return any(m == member and since <= t <= until for t, m in self.kills)


def check(resp, body, path):
    """None when the answer is the right one, else what is wrong."""
    member = resp.getheader("X-Member")
    if resp.status != 200:
        return member, f"status {resp.status}"
    if path == "/slow":
        if len(body) != SLOW_BYTES or body.strip(b"x"):
            return member, f"/slow body of {len(body)} bytes"
    elif member is None or body != f"{member}\n".encode():
        return member, f"body {body[:40]!r}"
    return member, None


def client(traffic, port, keepalive, rate, slow_every, timeout=10.0):
    """One client thread: `rate` requests a second, every `slow_every`-th one to /slow; with
    `keepalive`, over one connection for as long as it lasts, else one connection each."""
    conn, conn_member, conn_last_ok = None, None, 0.0
    period = 1.0 / rate
    next_at = time.monotonic()
    for n in itertools.count():
        if traffic.stop.wait(max(0.0, next_at - time.monotonic())):
            break
        next_at = max(next_at + period, time.monotonic() - period)  # no burst after a stall
        path = "/slow" if slow_every and n % slow_every == slow_every - 1 else "/"
        rid = next(traffic.ids)
        reused = conn is not None
        if conn is None:
            conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
        traffic.in_flight[rid] = conn_member if reused else None
        start = time.time()
        member, error, got_head = None, None, False
        try:
            conn.request("GET", path, headers={} if keepalive else {"Connection": "close"})
            resp = conn.getresponse()
            got_head = True
            body = resp.read()
            member, error = check(resp, body, path)
        except (OSError, http.client.HTTPException) as e:
            error = f"{'reused' if reused else 'new'} connection: {type(e).__name__}: {e}"
        end = time.time()
        traffic.in_flight.pop(rid, None)
        if (error and reused and not got_head
                and traffic.killed_between(conn_member, conn_last_ok, start)):
            # The connection's member was killed while the connection sat idle between requests
            # (a request in flight at the kill is not retried: it counts as failed): nothing of
            # this request was answered, so it is sent again on a new connection, as HTTP clients
            # do for an idempotent request on a reused connection. Counted apart.
            traffic.stale_retries += 1
            conn.close()
            conn, conn_member = None, None
            next_at = time.monotonic()
            continue
        traffic.done.append((start, end, error is None, member, error, rid))
        if error or not keepalive:
            conn.close()
            conn, conn_member = None, None
        else:
            conn_member, conn_last_ok = member, end


def start_clients(traffic, port, keepalive_threads, newconn_threads, rate, slow_every):
    threads = []
    for i in range(keepalive_threads + newconn_threads):
        t = threading.Thread(target=client, name=f"client-{i}", daemon=True,
                             args=(traffic, port, i < keepalive_threads, rate, slow_every))
        t.start()
        threads.append(t)
    return threads


def flood(port, count, hold, stop):
    """Opens `count` connections to port as fast as it can, sends nothing, holds them for `hold`
    seconds and closes them. Returns what happened: how many opened, how many vigil closed at once
    (over its limit) and how many were still open at the end of the hold."""
    socks, refused = [], 0
    started = time.monotonic()
    for _ in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(2.0)
        try:
            s.connect((HOST, port))
            s.setblocking(False)
            socks.append(s)
        except OSError:
            refused += 1
            s.close()
    opened_in = time.monotonic() - started
    stop.wait(hold)
    open_at_end = 0
    for s in socks:
        try:
            s.recv(1)  # b"": vigil closed it; bytes would be unexpected: neither is "open"
        except BlockingIOError:
            open_at_end += 1  # nothing to read, not closed: the session is still there
        except OSError:
            pass
        s.close()
    return {"connections": count, "connected": len(socks), "refused": refused,
            "open_at_end": open_at_end, "closed_by_vigil": len(socks) - open_at_end,
            "open_seconds": round(opened_in, 2)}
