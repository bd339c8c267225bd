"""The soak's disturbances, each on a thread of its own with its own period: a member killed and
restarted, a reload, a member drained and made ready through the API, a client flood; and the
sampler of vigil's fd count and RSS. Each records what it did in the shared Soak object."""

import json
import os
import signal
import socket
import threading
import time
import urllib.error
import urllib.request

from bench import benchlib
from bench.soak import traffic
from testing.harness.wait import wait_until

_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def api(admin, token, method, path, body=None, timeout=10):
    """(status, parsed JSON or None); status 0 when no answer came within `timeout`."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://{admin}{path}", data=data, method=method,
                                 headers={"X-Auth-Token": token, "Content-Type": "application/json"})
    try:
        with _opener.open(req, timeout=timeout) as r:
            raw = r.read()
            return r.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        return e.code, None
    except (OSError, ValueError):
        return 0, None


def member_health(admin, token):
    """{member name: "up"/"down"/...} from /v1/status, or {} when it did not answer."""
    status, body = api(admin, token, "GET", "/v1/status")
    if status != 200 or not body:
        return {}
    return {m["name"]: m.get("health") for p in body.get("pools", []) for m in p.get("members", [])}


def established(port):
    """ESTABLISHED TCP connections whose local port is `port` on 127.0.0.1: a member's sessions
    (and a health check in progress), as the member's side sees them."""
    want = f"{socket.inet_aton(benchlib.HOST)[::-1].hex().upper()}:{port:04X}"
    n = 0
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            parts = line.split()
            if len(parts) > 3 and parts[1] == want and parts[3] == "01":
                n += 1
    return n


def every(stop, period, offset, action):
    """Runs action() at offset, offset + period, ... until stop is set."""
    next_at = time.monotonic() + offset
    while not stop.wait(max(0.0, next_at - time.monotonic())):
        try:
            action()
        except Exception as e:  # a failed disturbance is reported, the soak goes on
            benchlib.log(f"{action.__name__}: {type(e).__name__}: {e}")
        next_at += period


class Chaos:
    def __init__(self, soak):
        self.s = soak
        self.kill_index = 0
        self.api_index = 0
        self.reload_index = 0

    def kill_member(self):
        s = self.s
        name = s.member_names[self.kill_index % len(s.member_names)]
        self.kill_index += 1
        backend = s.backends[name]
        sessions = established(backend.port)
        t = time.time()
        in_flight = dict(s.traffic.in_flight)  # the snapshot at the kill instant
        s.traffic.kills.append((t, name))  # before the kill: a client may see it at once
        s.backends.kill(name)
        record = {"member": name, "t": t, "sessions_on_member": sessions,
                  "in_flight": len(in_flight),
                  "in_flight_on_member": sum(1 for m in in_flight.values() if m == name),
                  "in_flight_ids": set(in_flight)}
        s.stop.wait(s.args.down_seconds)
        s.backends.start(name)
        back = time.time()
        record["restarted_after_s"] = round(back - t, 2)
        s.outages.append((name, t, back))
        up = wait_until(lambda: s.stop.is_set() or
                                 member_health(s.admin, s.token).get(name) == "up", 30, 0.2)
        record["up_after_s"] = round(time.time() - back, 2) if up and not s.stop.is_set() else None
        s.kills.append(record)

    def reload(self):
        s = self.s
        self.reload_index += 1
        # A real change each time, so that the reload applies something.
        s.write_config(idle_timeout="59m" if self.reload_index % 2 else "1h")
        try:
            os.kill(s.vigil.pid, signal.SIGHUP)
            s.reloads["sent"] += 1
        except OSError:
            s.reloads["failed"] += 1

    def admin_change(self):
        s = self.s
        i = self.api_index
        self.api_index += 1
        name = s.member_names[(i // 2) % len(s.member_names)]
        state = "drain" if i % 2 == 0 else "ready"
        status, _ = api(s.admin, s.token, "PUT", f"/v1/pools/web/members/{name}/admin",
                        {"state": state})
        s.api_changes["sent"] += 1
        if status != 200:
            s.api_changes["failed"] += 1
            benchlib.log(f"PUT {name} {state}: answered {status or 'nothing'}")

    def flood(self):
        s = self.s
        result = {}
        watching = threading.Event()
        up_counts, fds = [], []

        def watch():
            while not watching.wait(0.5):
                health = member_health(s.admin, s.token)
                if health:
                    up_counts.append(sum(1 for h in health.values() if h == "up"))
                fds.append(s.fd_count())
        watcher = threading.Thread(target=watch, daemon=True)
        s.flooding = True
        watcher.start()
        try:
            result = traffic.flood(s.flood_port, s.flood_count, s.args.flood_hold, s.stop)
        finally:
            s.flooding = False
            watching.set()
            watcher.join(15)
        result["fds_peak"] = max((f for f in fds if f is not None), default=None)
        result["members_up_min"] = min(up_counts, default=None)
        s.floods.append(result)
        benchlib.log(f"flood: {result}")

    def sample(self):
        s = self.s
        s.samples.append({"t": time.monotonic() - s.t0_mono, "fds": s.fd_count(),
                          "rss_mb": s.rss_mb(), "flood": s.flooding})

    def start(self, stop):
        a = self.s.args
        plan = [(a.kill_every, 15, self.kill_member), (a.reload_every, 30, self.reload),
                (a.api_every, 3, self.admin_change), (a.flood_every, a.flood_every / 2, self.flood),
                (10, 0, self.sample)]
        threads = []
        for period, offset, action in plan:
            if period > 0:
                t = threading.Thread(target=every, args=(stop, period, offset, action),
                                     name=action.__name__, daemon=True)
                t.start()
                threads.append(t)
        return threads
