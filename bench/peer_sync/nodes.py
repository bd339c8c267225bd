"""The processes of bench/peer_sync: a vigil node (with or without `peers:`), the load (load.c, an
echo backend and a client), and what is read of them: CPU time per thread, RssAnon, the peer
families of /metrics, and the bytes a peer stream carried (from the kernel, with ss).
"""

import json
import os
import re
import subprocess

from bench.benchlib import CLK_TCK, HOST, admin_call, stat_ticks, tail, wait_until

TOKEN = "bench-peer-sync-token"
PEERS_TOKEN = "bench-peer-sync-peers-token"
SAMPLE = re.compile(r"^([a-z_:]+)(?:\{(.*)\})? (\S+)$")


def write_secret(path, text):
    with open(path, "w") as f:
        f.write(text + "\n")
    os.chmod(path, 0o600)


class Node:
    """One vigil: node `name` of `peer_ports` ({name: port}; empty: no `peers:` at all), with one
    listener to the echo backend."""

    def __init__(self, procs, tmp, binary, name, echo_port, peer_ports, workers, max_connections):
        self.procs, self.name, self.peer_ports = procs, name, peer_ports
        self.dir = os.path.join(tmp, name + ("-peers" if peer_ports else "-alone"))
        os.makedirs(self.dir, exist_ok=True)
        write_secret(os.path.join(self.dir, "token"), TOKEN)
        lines = ["admin: {listen: \"127.0.0.1:0\", token_file: " + os.path.join(self.dir, "token") + "}",
                 f"workers: {workers}",
                 "listeners:",
                 f"  - {{name: api, bind: \"{HOST}:0\", pool: echo, max_connections: {max_connections}}}",
                 "pools:",
                 "  - name: echo",
                 "    health_monitor: none",
                 f"    members: [{{name: e, address: {HOST}, port: {echo_port}}}]"]
        if peer_ports:
            write_secret(os.path.join(self.dir, "peers.token"), PEERS_TOKEN)
            lines.append("peers:")
            lines += [f"  - {{name: {n}, address: {HOST}, port: {p}}}" for n, p in peer_ports.items()]
            lines += [f"peers_auth: {{token_file: {os.path.join(self.dir, 'peers.token')}}}",
                      f"peer_name: {name}"]
        self.config = os.path.join(self.dir, "vigil.yaml")
        with open(self.config, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.binary = binary
        self.proc = None

    def start(self):
        ready = os.path.join(self.dir, "ready.json")
        if os.path.exists(ready):
            os.remove(ready)
        label = os.path.basename(self.dir)
        self.proc = self.procs.spawn(label, [self.binary, "serve", "-c", self.config, "--ready-file", ready])
        if not wait_until(lambda: os.path.exists(ready) or self.proc.poll() is not None, 30):
            raise RuntimeError(f"vigil {label}: no ready file within 30 s:\n{tail(self.proc.logpath)}")
        if self.proc.poll() is not None:
            raise RuntimeError(f"vigil {label} exited with {self.proc.returncode}:\n{tail(self.proc.logpath)}")
        with open(ready) as f:
            info = json.load(f)
        self.admin = info["admin"]
        self.listen_port = int(info["listeners"]["api"].rsplit(":", 1)[1])

    def stop(self):
        if self.proc is not None:
            self.procs.stop(self.proc)
            self.proc = None

    def metrics(self):
        """{(family, labels text): value} of /metrics' vigil_ families."""
        status, body, _ = admin_call(self.admin, TOKEN, "GET", "/metrics", timeout=10)
        if status != 200:
            raise RuntimeError(f"GET /metrics answered {status}")
        out = {}
        for line in body.decode().splitlines():
            m = SAMPLE.match(line)
            if m and m.group(1).startswith("vigil_"):
                out[(m.group(1), m.group(2) or "")] = float(m.group(3))
        return out

    def metric(self, family, **labels):
        """The value of the first sample of `family` with `labels`; None when there is none."""
        for (f, text), value in self.metrics().items():
            if f == family and all(f'{k}="{v}"' in text for k, v in labels.items()):
                return value
        return None

    def threads_cpu(self):
        """{"control": s, "workers": s}: the main thread is the control thread; every other
        thread (the workers, and any helper) is counted as a worker."""
        return threads_cpu(self.proc.pid)

    def rss_anon_kb(self):
        return status_kb(self.proc.pid, "RssAnon")


def threads_cpu(pid):
    out = {"control": 0.0, "workers": 0.0}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            ticks = stat_ticks(f"/proc/{pid}/task/{tid}/stat")
        except OSError:
            continue  # a thread that ended: the process's own counter is not read here
        out["control" if int(tid) == pid else "workers"] += ticks / CLK_TCK
    return out


def process_ticks(pid):
    return stat_ticks(f"/proc/{pid}/stat") / CLK_TCK


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


def stream_bytes(dport):
    """Bytes acknowledged on the established TCP connection to HOST:dport (the peer stream's
    sending side), from `ss -ti`; None unless exactly one such connection is found."""
    r = subprocess.run(["ss", "-tinH", "state", "established", f"( dst {HOST}:{dport} )"],
                       capture_output=True, text=True, timeout=10)
    found = re.findall(r"bytes_acked:(\d+)", r.stdout)
    return int(found[0]) if len(found) == 1 else None


class Load:
    """load.c, twice: an echo backend, and a client that holds and churns sessions through one
    vigil. `label` names the processes' logs."""

    def __init__(self, procs, tmp, binary, label):
        self.procs, self.binary, self.label = procs, binary, label
        port_file = os.path.join(tmp, f"echo-{label}.port")
        if os.path.exists(port_file):
            os.remove(port_file)  # the last round's
        self.echo = procs.spawn(f"echo-{label}", [binary, "echo", port_file])
        if not wait_until(lambda: os.path.exists(port_file) or self.echo.poll() is not None, 10):
            raise RuntimeError("the echo backend did not start")
        if self.echo.poll() is not None:
            raise RuntimeError(f"the echo backend exited: {tail(self.echo.logpath)}")
        with open(port_file) as f:
            self.echo_port = int(f.read())
        self.client = None

    def start_client(self, port, min_ms, max_ms):
        self.client = self.procs.spawn(f"client-{self.label}",
                                       [self.binary, "client", str(port), str(min_ms), str(max_ms)], pipes=True)

    def say(self, line):
        self.client.stdin.write(line + "\n")
        self.client.stdin.flush()

    def stat(self):
        """{"held", "short", "pending", "opened", "closed", "failed", "lost"} from the client."""
        self.say("stat")
        words = self.client.stdout.readline().split()
        if len(words) != 14:
            raise RuntimeError(f"the load client answered {' '.join(words)!r}: {tail(self.client.logpath)}")
        return {words[i]: int(words[i + 1]) for i in range(0, 14, 2)}

    def stop_client(self):
        if self.client is not None:
            self.say("drop")
            self.procs.stop(self.client)
            self.client = None

    def stop(self):
        self.stop_client()
        self.procs.stop(self.echo)

    def cpu(self):
        """Client and echo backend together, CPU seconds."""
        return (process_ticks(self.client.pid) if self.client else 0.0) + process_ticks(self.echo.pid)
