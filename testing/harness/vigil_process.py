"""Starts the real vigil and apisim binaries on loopback ports the kernel picks, and talks to them.

Every wait is bounded: wait_for() (testing/harness/wait.py) polls a condition until a deadline and
fails the test after it.
"""
import json
import os
import signal
import socket
import socketserver
import ssl
import subprocess
import threading
import urllib.error
import urllib.request
from pathlib import Path

from testing.harness.paths import APISIM, VIGIL
from testing.harness.wait import wait_for

TOKEN = "integration-test-token"
# Never through a proxy from the environment: every request here goes to loopback.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def saved_state(state_file):
    """What vigil saved in admin.state_file: the state file with the records of its journal
    (`<state_file>.journal`, when its first line names the state file's "journal") carried out,
    as vigil loads it. The journal's last line is left out when it was cut short."""
    doc = json.loads(open(state_file).read())

    def journal_of_state(path):
        if not os.path.exists(path):
            return None
        lines = open(path).read().split("\n")
        return lines if lines[0] and json.loads(lines[0]).get("journal") == doc["journal"] else None
    if doc.get("journal"):
        # A kill between the state file's rename and the new journal's leaves it as `.next`.
        lines = (journal_of_state(f"{state_file}.journal")
                 or journal_of_state(f"{state_file}.journal.next"))
        if lines:
            for line in lines[1:-1]:  # the last is what follows the final newline
                record = json.loads(line)
                for lb in record.get("put", []):
                    at = [i for i, x in enumerate(doc["loadbalancers"]) if x["id"] == lb["id"]]
                    if at:
                        doc["loadbalancers"][at[0]] = lb
                    else:
                        doc["loadbalancers"].append(lb)
                gone = set(record.get("delete", []))
                doc["loadbalancers"] = [x for x in doc["loadbalancers"] if x["id"] not in gone]
                for change in record.get("members", []):  # a write of members only
                    lb = next(x for x in doc["loadbalancers"] if x["id"] == change["loadbalancer_id"])
                    pool = next(p for p in lb["pools"] if p["id"] == change["pool_id"])
                    removed = set(change["delete"])
                    pool["members"] = [m for m in pool["members"] if m["id"] not in removed]
                    for m in change["put"]:
                        at = [i for i, x in enumerate(pool["members"]) if x["id"] == m["id"]]
                        if at:
                            pool["members"][at[0]] = m
                        else:
                            pool["members"].append(m)
                if "member_overrides" in record:
                    doc["member_overrides"] = record["member_overrides"]
    if not doc.get("member_overrides"):
        doc.pop("member_overrides", None)
    return doc


def saved_bytes(state_file):
    """The bytes of the state file and of its journal: equal before and after a write that was
    refused, since nothing was saved."""
    journal = f"{state_file}.journal"
    return (open(state_file, "rb").read(),
            open(journal, "rb").read() if os.path.exists(journal) else None)


def read_ready_file(path, proc, timeout=15.0):
    """What vigil (or apisim) wrote to its --ready-file, once it has; fails when `proc` exits first."""
    def ready():
        if proc.poll() is not None:
            raise AssertionError(f"{proc.args} exited with {proc.returncode} before it was ready")
        try:
            text = Path(path).read_text()
            return text if text.strip() else None
        except FileNotFoundError:
            return None
    return wait_for(ready, timeout, what=f"ready file {path}")


def pool_config(monitor, members):
    """A config with one listener `api` in front of pool `masters`: `monitor` is the pool's
    indented health_monitor lines (or any other pool keys), `members` (name, port) pairs on
    127.0.0.1."""
    lines = "\n".join(f"      - {{name: {n}, address: 127.0.0.1, port: {p}}}" for n, p in members)
    return f"""
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters}}
pools:
  - name: masters
{monitor}
    members:
{lines}
"""


class Vigil:
    """One `vigil serve` process with a YAML config written to a temporary directory."""

    def __init__(self, tmp_path, config_text, extra_args=(), env=None):
        self.dir = Path(tmp_path)
        (self.dir / "token").write_text(TOKEN + "\n")
        (self.dir / "token").chmod(0o600)  # as the package makes it: vigil warns otherwise
        self.config = self.dir / "vigil.yaml"
        self.config.write_text(config_text.replace("@TOKEN_FILE@", str(self.dir / "token")))
        self.ready = self.dir / "vigil.ready"
        self.ready.unlink(missing_ok=True)
        self.log_path = self.dir / "vigil.log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [str(VIGIL), "serve", "-c", str(self.config), "--ready-file", str(self.ready), *extra_args],
            stdout=self.log, stderr=subprocess.STDOUT, env=None if env is None else dict(os.environ, **env))
        info = json.loads(read_ready_file(self.ready, self.proc))
        self.admin = info["admin"]
        self.listeners = info["listeners"]

    def listener(self, name):
        host, port = self.listeners[name].rsplit(":", 1)
        return host.strip("[]"), int(port)

    def get(self, path, token=TOKEN, headers=None):
        req = urllib.request.Request(f"http://{self.admin}{path}", headers=dict(headers or {}))
        if token is not None:
            req.add_header("X-Auth-Token", token)
        try:
            with _opener.open(req, timeout=5) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def status(self):
        code, body = self.get("/v1/status")
        assert code == 200, body
        return json.loads(body)

    def members(self, pool=None):
        out = {}
        for p in self.status()["pools"]:
            if pool is None or p["name"] == pool:
                for m in p["members"]:
                    out[m["name"]] = m
        return out

    def wait_member(self, name, status, timeout=15.0):
        return wait_for(lambda: (m := self.members().get(name)) and m["operating_status"] == status and m,
                        timeout, what=f"member {name} {status}")

    def cli(self, *args):
        env = dict(os.environ, VIGIL_ADMIN=f"http://{self.admin}", VIGIL_TOKEN=TOKEN)
        return subprocess.run([str(VIGIL), *args], capture_output=True, text=True, timeout=20, env=env)

    def log_text(self):
        if not self.log.closed:  # closed by stop()
            self.log.flush()
        return self.log_path.read_text()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.log.close()
        return self.proc.returncode


class ApiSim:
    """One simulated kube-apiserver (HTTPS unless plain=True) on 127.0.0.1, or another loopback
    address `host` (127.0.0.0/8 is all loopback: members at one port on several addresses)."""

    def __init__(self, tmp_path, name, port=0, args=(), host="127.0.0.1"):
        self.name = name
        self.host = host
        self.ready = Path(tmp_path) / f"{name}.ready"
        self.ready.unlink(missing_ok=True)
        self.log = open(Path(tmp_path) / f"{name}.log", "a")
        self.proc = subprocess.Popen(
            [str(APISIM), "--name", name, "--listen", f"{host}:{port}", "--ready-file", str(self.ready),
             *args], stdout=self.log, stderr=subprocess.STDOUT)
        self.port = int(read_ready_file(self.ready, self.proc).strip().rsplit(":", 1)[1])

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()


class ThreadedServer:
    """A threaded TCP server on 127.0.0.1 (port 0: the kernel's pick) running `handler`, a
    socketserver.BaseRequestHandler class, on a thread of its own until stop()."""

    def __init__(self, handler, port=0):
        class Server(socketserver.ThreadingTCPServer):
            allow_reuse_address = True  # started again on the same port when a test brings it back
            daemon_threads = True
            request_queue_size = 128  # not 5: a burst of connects must not see dropped SYNs

        self.server = Server(("127.0.0.1", port), handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class EchoServer(ThreadedServer):
    """A threaded TCP echo server on 127.0.0.1 that counts the connections it accepted."""

    def __init__(self, port=0):
        outer = self
        self.accepted = 0
        self.lock = threading.Lock()

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                with outer.lock:
                    outer.accepted += 1
                self.request.settimeout(10)
                try:
                    while data := self.request.recv(65536):
                        self.request.sendall(data)
                except OSError:
                    pass

        super().__init__(Handler, port)


def echo_once(host, port, payload, timeout=10):
    """Sends payload while reading the echo (both at once), then half-closes; returns the bytes."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        def send():
            try:
                s.sendall(payload)
                s.shutdown(socket.SHUT_WR)
            except OSError:
                pass  # the peer closed first: what was read says so
        t = threading.Thread(target=send)
        t.start()
        chunks = []
        try:
            while data := s.recv(65536):
                chunks.append(data)
        finally:
            t.join(timeout)  # before the socket closes under it
        return b"".join(chunks)


def start_with_two_echo_members(tmp_path, cleanup, config, wait=None):
    """Two EchoServers and a Vigil on config(b1, b2), once its members master-01 and master-02
    are ONLINE (`wait(vigil, name, status)` when given, else Vigil.wait_member); all three are
    stopped by `cleanup`. Returns (vigil, b1, b2)."""
    b1, b2 = EchoServer(), EchoServer()
    cleanup(b1)
    cleanup(b2)
    vigil = Vigil(tmp_path, config(b1, b2))
    cleanup(vigil)
    for name in ("master-01", "master-02"):
        (wait or Vigil.wait_member)(vigil, name, "ONLINE")
    return vigil, b1, b2


def hold(vigil, payload=b"hello", listener="api"):
    """A session through the listener, proven to be up by the echo of `payload`."""
    s = socket.create_connection(vigil.listener(listener), timeout=5)
    s.sendall(payload)
    got = b""
    while len(got) < len(payload):
        data = s.recv(65536)
        assert data, "closed before the echo"
        got += data
    assert got == payload, got
    return s


def closed_by_peer(s):
    """True once the peer closed or reset the connection (a recv that returns nothing)."""
    try:
        return s.recv(100) == b""
    except ConnectionResetError:
        return True


def https_get(host, port, path, timeout=5):
    """GET over TLS without verification (the simulator's certificate is self-signed)."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    import http.client
    conn = http.client.HTTPSConnection(host, port, timeout=timeout, context=ctx)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, dict(r.getheaders()), r.read().decode()
    finally:
        conn.close()
