"""vigil and HAProxy as bench/scale drives them: start with a generated config, CPU (whole
process and the checking thread), RSS, how many members have a first check result, and one API
change timed from request to answer.
"""

import csv
import io
import json
import os
import resource
import shutil
import socket
import time

from bench.benchlib import CLK_TCK, HOST, admin_call, free_port, process_cpu, stat_ticks, tail
from bench.scale.configs import haproxy_config, listener_address, vigil_config
from testing.harness.wait import wait_until

TOKEN = "bench-scale-token"


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


class Target:
    """What both targets share: the process, CPU and RSS."""

    name = "?"

    def __init__(self, procs, tmp, label):
        self.procs, self.tmp, self.label = procs, tmp, label
        self.proc = None

    def cpu(self):
        """(whole process, checking thread) CPU seconds: vigil's control thread is its main
        thread; HAProxy (nbthread 1) checks in its one thread, so both are the process."""
        pid = self.proc.pid
        return process_cpu([pid], skip_gone=False), stat_ticks(f"/proc/{pid}/task/{pid}/stat") / CLK_TCK

    def rss_kb(self):
        return rss_kb(self.proc.pid)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        if self.proc is not None:
            self.procs.stop(self.proc)


class Vigil(Target):
    name = "vigil"

    def __init__(self, procs, tmp, label, binary):
        super().__init__(procs, tmp, label)
        self.binary = binary
        token = os.path.join(tmp, "token")
        if not os.path.exists(token):
            with open(token, "w") as f:
                f.write(TOKEN + "\n")
            os.chmod(token, 0o600)

    def write_config(self, lbs, check, interval, listen_port, member_port, workers):
        self.config = os.path.join(self.tmp, f"vigil-{check}-{lbs}.yaml")
        self.lbs = lbs
        state = os.path.join(self.tmp, "vigil-state.json")
        if os.path.exists(state):
            os.remove(state)  # each run starts from the file alone
        vigil_config(self.config, lbs, check, interval, listen_port, member_port, self.tmp, workers)

    def start(self):
        """Spawns vigil; returns at once (the caller times the start-up)."""
        self.ready_path = os.path.join(self.tmp, f"{self.label}.ready.json")
        if os.path.exists(self.ready_path):
            os.remove(self.ready_path)
        self.proc = self.procs.spawn(self.label, [self.binary, "serve", "-c", self.config,
                                                  "--ready-file", self.ready_path, "--log-level", "warn"])
        self.admin = None

    def ready(self):
        """True once the ready file is there (listeners bound, admin API up)."""
        if self.admin is None and os.path.exists(self.ready_path):
            with open(self.ready_path) as f:
                self.admin = json.load(f)["admin"]
        return self.admin is not None

    def call(self, method, path, body=None, timeout=60):
        """(status, body bytes, seconds)."""
        return admin_call(self.admin, TOKEN, method, path, body, timeout)

    def checked(self):
        """(members with a check result, members, members up) from GET /v1/status."""
        status, body, _ = self.call("GET", "/v1/status")
        if status != 200:
            raise RuntimeError(f"GET /v1/status answered {status}: {body[:200]!r}")
        done = total = up = 0
        for pool in json.loads(body).get("pools", []):
            for m in pool.get("members", []):
                total += 1
                done += m.get("check") is not None
                up += m.get("health") == "up"
        return done, total, up

    def api_change(self, i):
        """One runtime change of a file member, PUT .../admin (the `vigil member weight` call):
        seconds from request to answer."""
        lb = i % self.lbs
        status, body, s = self.call("PUT", f"/v1/pools/lb{lb}/members/m{lb * 3}/admin",
                                    {"state": "ready", "weight": 1 + i % 100})
        if status != 200:
            raise RuntimeError(f"PUT admin answered {status}: {body[:200]!r}")
        return s

    def octavia_setup(self):
        """A load balancer, listener and pool created through the Octavia API beside the file's,
        for api_create(); returns the pool id."""
        def created(kind, answer):
            status, body, s = answer
            if status != 201:
                raise RuntimeError(f"creating the {kind} answered {status}: {body[:200]!r}")
            return json.loads(body)[kind]["id"]
        lb = created("loadbalancer", self.call("POST", "/v2.0/lbaas/loadbalancers",
                                                {"loadbalancer": {"name": "bench-api"}}, timeout=120))
        listener = created("listener", self.call("POST", "/v2.0/lbaas/listeners", {"listener": {
            "loadbalancer_id": lb, "protocol": "TCP", "protocol_port": free_port()}}, timeout=120))
        self.api_pool = created("pool", self.call("POST", "/v2.0/lbaas/pools", {"pool": {
            "listener_id": listener, "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN"}}, timeout=120))
        return self.api_pool

    def api_create(self, i, member_port):
        """One Octavia member create (`openstack loadbalancer member create`): seconds."""
        status, body, s = self.call("POST", f"/v2.0/lbaas/pools/{self.api_pool}/members", {"member": {
            "address": listener_address(i), "protocol_port": member_port, "name": f"api{i}"}}, timeout=120)
        if status != 201:
            raise RuntimeError(f"member create answered {status}: {body[:200]!r}")
        return s


class Haproxy(Target):
    name = "haproxy"

    def write_config(self, lbs, check, interval, listen_port, member_port, threads):
        self.config = os.path.join(self.tmp, f"haproxy-{check}-{lbs}.cfg")
        self.socket_path = os.path.join(self.tmp, "haproxy.sock")
        self.lbs = lbs
        nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        haproxy_config(self.config, lbs, check, interval, listen_port, member_port, self.socket_path, threads,
                       min(nofile, 2 * 2000 + 4 * lbs + 1000))

    def start(self):
        if shutil.which("haproxy") is None:
            raise RuntimeError("haproxy is not installed (run.sh installs it)")
        if os.path.exists(self.socket_path):
            os.remove(self.socket_path)
        # -db: foreground, one process (no master-worker): the pid's CPU time is the checker's.
        self.proc = self.procs.spawn(self.label, ["haproxy", "-db", "-f", self.config])

    def ready(self):
        """True once the stats socket answers (HAProxy binds its listeners before that)."""
        if not os.path.exists(self.socket_path):
            return False
        try:
            return "Name" in self.command("show info", timeout=5)[0]
        except OSError:
            return False

    def command(self, line, timeout=30):
        """One runtime API command on the stats socket: (answer, seconds)."""
        start = time.perf_counter()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(self.socket_path)
            s.sendall(line.encode() + b"\n")
            chunks = []
            while True:
                b = s.recv(1 << 16)
                if not b:
                    break
                chunks.append(b)
        return b"".join(chunks).decode(errors="replace"), time.perf_counter() - start

    def checked(self):
        """(servers whose check_status is past INI, servers, servers UP) from `show stat`."""
        text, _ = self.command("show stat")
        rows = csv.DictReader(io.StringIO(text.lstrip("# ")))
        done = total = up = 0
        for row in rows:
            if row.get("svname") in ("FRONTEND", "BACKEND", None):
                continue
            total += 1
            st = (row.get("check_status") or "").lstrip("* ").strip()
            done += st not in ("", "INI")
            up += (row.get("status") or "").startswith("UP")
        return done, total, up

    def api_change(self, i):
        """`set server lbI/mJ weight W` on the runtime API: seconds."""
        lb = i % self.lbs
        answer, s = self.command(f"set server lb{lb}/m{lb * 3} weight {1 + i % 100}")
        if answer.strip():
            raise RuntimeError(f"set server weight answered {answer.strip()[:200]!r}")
        return s

    def api_create(self, i, member_port):
        """`add server lb0/apiI ADDR:PORT` (a dynamic server, unchecked), for reference: seconds."""
        answer, s = self.command(f"add server lb0/api{i} {listener_address(i)}:{member_port}")
        if "New server registered" not in answer:
            raise RuntimeError(f"add server answered {answer.strip()[:200]!r}")
        return s


def start_and_wait_ready(target, timeout):
    """Starts the target; returns seconds from spawn to ready()."""
    t0 = time.monotonic()
    target.start()
    ok = wait_until(lambda: target.proc.poll() is not None or target.ready(), timeout, interval=0.02)
    if target.proc.poll() is not None:
        raise RuntimeError(f"{target.name} exited with {target.proc.returncode}:\n{tail(target.proc.logpath)}")
    if not ok:
        raise RuntimeError(f"{target.name} was not ready within {timeout} s:\n{tail(target.proc.logpath)}")
    return time.monotonic() - t0, t0


__all__ = ["Haproxy", "Vigil", "start_and_wait_ready", "HOST"]
