"""Real etcd members (/usr/bin/etcd) on loopback for the tests of vigil's etcd client: one or
three, plain or with client TLS, each with its own data dir under the test's directory and ports
the kernel picked. Fast elections (heartbeat 50 ms, election 500 ms). Every wait is bounded;
stop_all(), or leaving the `with` block, kills whatever still runs, also when a test fails.
"""
import json
import os
import signal
import subprocess
import uuid
from pathlib import Path

from testing.harness.octavia_api import free_port
from testing.harness.wait import wait_for

ETCD = "/usr/bin/etcd"
ETCDCTL = "/usr/bin/etcdctl"


class EtcdCluster:
    """`tls`: None, or a dict with `ca`, `cert`, `key` (the members' server certificate, for
    127.0.0.1), optionally `client_cert_auth` (members require a client certificate of `ca`) and
    `client_cert`, `client_key` (what etcdctl presents then)."""

    def __init__(self, workdir, members=1, tls=None):
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.tls = tls
        self.names = [f"m{i}" for i in range(members)]
        self.client_ports = [free_port() for _ in self.names]
        self.peer_ports = [free_port() for _ in self.names]
        self.token = f"vigil-test-{uuid.uuid4()}"
        self.procs = [None] * members
        self.down = set()  # members stopped or killed on purpose
        scheme = "https" if tls else "http"
        self.endpoints = [f"{scheme}://127.0.0.1:{p}" for p in self.client_ports]
        self.initial_cluster = ",".join(
            f"{n}=http://127.0.0.1:{p}" for n, p in zip(self.names, self.peer_ports))
        try:
            for i in range(members):
                self._spawn(i, "new")
        except BaseException:
            self.stop_all()
            raise

    def _spawn(self, i, state):
        data = self.workdir / f"etcd-{self.names[i]}"
        args = [ETCD, "--name", self.names[i], "--data-dir", str(data),
                "--listen-client-urls", self.endpoints[i], "--advertise-client-urls", self.endpoints[i],
                "--listen-peer-urls", f"http://127.0.0.1:{self.peer_ports[i]}",
                "--initial-advertise-peer-urls", f"http://127.0.0.1:{self.peer_ports[i]}",
                "--initial-cluster", self.initial_cluster, "--initial-cluster-state", state,
                "--initial-cluster-token", self.token,
                "--heartbeat-interval", "50", "--election-timeout", "500", "--enable-v2=false"]
        if self.tls:
            args += ["--cert-file", self.tls["cert"], "--key-file", self.tls["key"]]
            # etcd 3.4 wants a client certificate from every client once it has a trusted CA.
            if self.tls.get("client_cert_auth"):
                args += ["--client-cert-auth", "--trusted-ca-file", self.tls["ca"]]
        log = open(self.workdir / f"etcd-{self.names[i]}.log", "ab")
        self.procs[i] = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()

    def etcdctl(self, *args, endpoints=None, timeout=10):
        """Runs etcdctl against `endpoints` (default: every member's) and returns its result."""
        cmd = [ETCDCTL, "--endpoints", ",".join(endpoints or self.endpoints), "--dial-timeout", "2s",
               "--command-timeout", "3s"]
        if self.tls:
            cmd += ["--cacert", self.tls["ca"]]
            if self.tls.get("client_cert"):
                cmd += ["--cert", self.tls["client_cert"], "--key", self.tls["client_key"]]
        env = {k: v for k, v in os.environ.items() if not k.startswith("ETCDCTL_")}
        env["ETCDCTL_API"] = "3"
        return subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=timeout, env=env)

    def running(self):
        return [i for i, p in enumerate(self.procs) if p is not None and p.poll() is None]

    def healthy(self, i):
        r = self.etcdctl("endpoint", "health", endpoints=[self.endpoints[i]])
        return r.returncode == 0

    def wait_ready(self, timeout=30):
        """Waits until every running member answers `etcdctl endpoint health` (which needs a
        leader); raises naming the members that did not."""
        def ready():
            for i, p in enumerate(self.procs):
                if i not in self.down and p is not None and p.poll() is not None:
                    raise AssertionError(f"etcd {self.names[i]} exited ({p.returncode}): "
                                         + self.log(i)[-2000:])
            return all(self.healthy(i) for i in self.running())
        wait_for(ready, timeout=timeout, interval=0.1, what="every etcd member healthy")

    def leader(self):
        """The index of the member that leads now, asked of the running members."""
        r = self.etcdctl("endpoint", "status", "-w", "json",
                         endpoints=[self.endpoints[i] for i in self.running()])
        for s in json.loads(r.stdout or "[]"):
            status = s["Status"]
            if status["leader"] == status["header"]["member_id"]:
                return self.endpoints.index(s["Endpoint"])
        raise AssertionError(f"no leader among the running members: {r.stdout} {r.stderr}")

    def kill(self, i):
        """SIGKILL member i and reap it."""
        self.down.add(i)
        p = self.procs[i]
        if p is not None and p.poll() is None:
            p.send_signal(signal.SIGKILL)
            p.wait(timeout=10)

    def stop(self, i):
        """SIGTERM member i and wait for it (SIGKILL after 10 s)."""
        self.down.add(i)
        p = self.procs[i]
        if p is not None and p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill(i)

    def start(self, i):
        """Restarts a stopped or killed member i with its data dir."""
        assert i not in self.running(), f"etcd {self.names[i]} still runs"
        self.down.discard(i)
        self._spawn(i, "existing")

    def stop_all(self):
        for i in range(len(self.procs)):
            self.stop(i)

    def compact(self, revision):
        r = self.etcdctl("compact", str(revision))
        assert r.returncode == 0, r.stderr

    def log(self, i):
        path = self.workdir / f"etcd-{self.names[i]}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop_all()
        return False

