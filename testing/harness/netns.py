"""System-test harness: the seed's experiment (a master lost while clients keep working) in a
private network namespace.

One experiment = one fresh namespace `vigil-sys-<random>` with only `lo` up, in which run:

  - three simulated kube-apiservers (`vigil-apisim`) on 127.0.0.11:6443, 127.0.0.12:6443 and
    127.0.0.13:6443 (`lo` in a namespace accepts all of 127/8);
  - one or more load balancers in front of them on 127.0.0.1 (vigil here; bench/failover adds
    HAProxy and NGINX through the same LoadBalancer interface);
  - per load balancer, three clients that run for the whole scenario and record every request:
    a new TLS connection with `GET /api/v1/nodes/master-01` every 200 ms, the real kubectl about
    once a second, and one long-lived watch that reconnects at once when its stream ends;
  - per load balancer, a monitor that samples how the load balancer sees master-01.

Then one scenario takes master-01 away (power-off, graceful shutdown, crash, hang, reset or
read-reset) and brings it back with a 10 s warm-up, or restarts all three one after another
(rolling-restart), and `Result` says what the clients saw.

Processes run with `ip netns exec NS ...`. Python threads that talk to them (clients, monitors)
first move themselves into the namespace with setns(2), which in Linux applies to the calling
thread only: the test process itself never sends a packet outside the namespace, and nothing in
it can reach anything outside. The namespace, its iptables rules and every process in it are
removed by NetNS.destroy() (a fixture finaliser in the tests).

Every wait is bounded (wait_for); the only plain sleeps are the scenario's own timeline ("the
master stays off for 20 s") and poll intervals.

Python 3 standard library only: bench/failover imports this module too.
"""
from __future__ import annotations

import ctypes
import dataclasses
import http.client
import json
import math
import os
import re
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

from testing.harness.paths import APISIM, VIGIL
from testing.harness.process import stop
from testing.harness.vigil_process import read_ready_file
from testing.harness.wait import wait_for

TOKEN = "system-test-token"

# ---------------------------------------------------------------------------------------------
# The experiment's constants, in one place.

MASTER_PORT = 6443
MASTERS = {"master-01": "127.0.0.11", "master-02": "127.0.0.12", "master-03": "127.0.0.13"}
VICTIM = "master-01"                  # the master every scenario takes away
LB_HOST = "127.0.0.1"                 # load balancers listen here, inside the namespace

# vigil's pool for the API servers. This is the health monitor the product recommends for
# kube-apiservers (HTTPS /readyz, verbose on failure) with brisk timings:
# with vigil's scheduling formula (docs/configuration.md, "How long failover takes") a dead
# member is out within 1.1 x 2 + 1 x max(0.55, 1) + 1 = 4.2 s and a recovered one back within
# max(2.2, 1) + 1 x 0.55 + 1 = 3.75 s. OpenShift asks for at most 30 s; these are far below it
# and still only one check per member every 2 s. Passive health (a failed connect takes the
# member out at once) and the connect path (1 s connect timeout, retry elsewhere, hedging) are
# what keep clients from noticing before the checks decide; those use vigil's defaults except
# connect_timeout, which is written out because the scenario depends on it.
VIGIL_HEALTH_MONITOR = {
    "type": "HTTPS",
    "path": "/readyz",
    "interval": "2s",
    "fast_interval": "500ms",
    "timeout": "1s",
    "healthy_threshold": 2,
    "unhealthy_threshold": 2,
}
VIGIL_CONNECT_TIMEOUT = "1s"
# The seed's own checks (an Octavia HTTPS health monitor on /readyz: --delay 5 --timeout 2
# --max-retries 2 --max-retries-down 3), fast_interval and everything else at vigil's defaults.
# With them a dead master's checks take 2 s each to time out, and the thresholds need three:
# the data plane's signals alone must end its sessions in time (hang and power-off run with them).
SEED_HEALTH_MONITOR = {
    "type": "HTTPS",
    "path": "/readyz",
    "interval": "5s",
    "timeout": "2s",
    "healthy_threshold": 2,
    "unhealthy_threshold": 3,
}
VIGIL_WORST_MARK_DOWN = 4.2          # seconds, from the formula above
VIGIL_WORST_MARK_UP = 3.75

# Clients.
NEWCONN_PERIOD = 0.2                 # a new TLS connection + GET every 200 ms
KUBECTL_PERIOD = 1.0                 # kubectl about once a second
REQUEST_TIMEOUT = 10.0               # per request (socket timeout; kubectl --request-timeout)
WATCH_IDLE_TIMEOUT = 60.0            # a watch stream silent this long is given up by the client
#                                      (longer than any outage here: ending a dead stream is the
#                                      load balancer's job, not the client's)
REQUEST_PATH = f"/api/v1/nodes/{VICTIM}"
WATCH_PATH = "/api/v1/nodes?watch=true"

# Timeline.
WARM_CLIENTS = 3.0                   # clients run this long before the fault
POWER_OFF_SECONDS = 20.0             # power-off: the master is unreachable this long
FAULT_SECONDS = 20.0                 # hang, reset, read-reset: the fault lasts this long
CRASH_DOWN_SECONDS = 10.0            # crash: restarted this long after SIGKILL
SHUTDOWN_DELAY = 30.0                # graceful: apisim --shutdown-delay
WARMUP = 10.0                        # every restart: apisim --warmup
SETTLE = 3.0                         # run on this long after master-01 is back in rotation
ROLLING_SHUTDOWN_DELAY = 5.0         # rolling-restart: each master's --shutdown-delay
ROLLING_WARMUP = 3.0                 # rolling-restart: each master's --warmup

# Bounds asserted by the system tests (a bound on behaviour, not a benchmark).
LATENCY_BOUND = 5.0                  # no client request slower than this
WATCH_GAP_BOUND = 5.0                # a watch is streaming again within this
# Tighter per scenario where the load balancer sees the fault on the data plane at once: a
# member that accepts and then stays silent or resets is left after first_byte_timeout (1 s).
# The watch bound, 3 s, holds for every single-master fault. hang's gap is the longest, made of
# up to 1 s since the watch's last event (its interval) when the fault comes, up to ~0.6 s until
# a new connection reaches the stopped master, then 1 s: the check started when that connection's
# ClientHello had waited a tenth of first_byte_timeout has had no byte either when the ClientHello
# times out, and the member's sessions close then (docs/failover.md, "A hung master"). Measured
# on a quiet 2-core machine (2026-12-04, Linux 6.18): 2.11 s at worst, the fault 1.0 s after the
# watch's last event; the rest of the 3 s is what a loaded machine adds.
# The node-local tests' changes of the API's list (tests/system/test_node_local.py) fail no master:
# nothing should be slow, and a watch cut off a removed master is back as after a crash.
SCENARIO_LATENCY_BOUND = {"hang": 1.5, "reset": 1.5, "read-reset": 1.5, "endpoints-change": 1.5,
                          "slices-refused": 1.5}
SCENARIO_WATCH_GAP_BOUND = {"power-off": 3.0, "graceful": 3.0, "crash": 3.0, "hang": 3.0,
                            "reset": 3.0, "read-reset": 3.0, "endpoints-change": 3.0,
                            "slices-refused": 3.0}
STALL_THRESHOLD = 1.0                # a request slower than this counts as "stalled" time

SCENARIOS = ("power-off", "graceful", "crash", "hang", "reset", "read-reset", "rolling-restart")


def duration_s(text):
    """Seconds in a vigil duration such as "500ms" or "5s"."""
    return float(text[:-2]) / 1000 if text.endswith("ms") else float(text[:-1])


def latency_bound(scenario):
    return SCENARIO_LATENCY_BOUND.get(scenario, LATENCY_BOUND)


def watch_gap_bound(scenario):
    return SCENARIO_WATCH_GAP_BOUND.get(scenario, WATCH_GAP_BOUND)

_CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL("libc.so.6", use_errno=True)
_no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))
_HOST_NETNS = os.stat("/proc/self/ns/net").st_ino   # the main thread's, which never moves


def require_netns():
    """Refuses to go on in a thread that is still in the host's network namespace: every socket
    the harness opens must be inside the experiment's namespace."""
    if os.stat("/proc/thread-self/ns/net").st_ino == _HOST_NETNS:
        raise RuntimeError("refusing to open a socket from the host's network namespace "
                           "(run this through NetNS.call or a NetNS.thread)")


# ---------------------------------------------------------------------------------------------
# Utilities

def sleep_until(t):
    """The scenario's timeline: sleeps until monotonic time t (not a stand-in for a condition)."""
    while (left := t - time.monotonic()) > 0:
        time.sleep(min(left, 0.5))


def missing_prerequisites():
    """Why the system tests cannot run here (None when they can)."""
    if os.geteuid() != 0:
        return "system tests need root (they create network namespaces and iptables rules)"
    for tool, package in (("ip", "iproute2"), ("iptables", "iptables")):
        if shutil.which(tool) is None:
            return f"`{tool}` is not installed (apt-get install {package})"
    return None


def find_kubectl():
    """A real kubectl client binary, or None.

    On these machines /usr/bin/kubectl is a version dispatcher that first probes /version on a
    connection of its own (with a ~5 s limit): that would measure the dispatcher, so use a real
    client that sits beside it (kubectl.1.29 by preference, else the newest kubectl.1.*), else
    plain kubectl."""
    if env := os.environ.get("VIGIL_KUBECTL"):
        return env
    k = shutil.which("kubectl")
    if k is None:
        return None
    d = Path(os.path.realpath(k)).parent
    if (d / "kubectl.1.29").is_file():
        return str(d / "kubectl.1.29")
    versions = []
    for p in d.glob("kubectl.1.*"):
        m = re.fullmatch(r"kubectl\.1\.(\d+)", p.name)
        if m and os.access(p, os.X_OK):
            versions.append((int(m.group(1)), p))
    if versions:
        return str(max(versions)[1])
    return k


def insecure_tls():
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def percentile(values, p):
    if not values:
        return 0.0
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(p / 100 * len(s)) - 1))
    return s[k]


def union_length(intervals):
    """Total length covered by a list of (start, end) intervals."""
    total, cur_s, cur_e = 0.0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


# ---------------------------------------------------------------------------------------------
# The namespace

class NetNS:
    """A fresh network namespace with only loopback up; destroy() removes it and all in it."""

    def __init__(self, prefix="vigil-sys"):
        self.name = f"{prefix}-{secrets.token_hex(4)}"
        self.procs = []
        subprocess.run(["ip", "netns", "add", self.name], check=True, capture_output=True, timeout=10)
        try:
            self.run(["ip", "link", "set", "lo", "up"])
        except Exception:
            self.destroy()
            raise

    def argv(self, argv):
        return ["ip", "netns", "exec", self.name, *map(str, argv)]

    def run(self, argv, timeout=10, check=True):
        r = subprocess.run(self.argv(argv), capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, argv))} in {self.name}: exit {r.returncode}: "
                               f"{r.stderr.strip()}")
        return r

    def spawn(self, argv, log_path, env=None):
        """Starts a process in the namespace (`ip netns exec` execs it: the pid is the program's)."""
        log = open(log_path, "ab")
        try:
            p = subprocess.Popen(self.argv(argv), stdout=log, stderr=subprocess.STDOUT, env=env)
        finally:
            log.close()
        self.procs.append(p)
        return p

    def iptables(self, *args):
        return self.run(["iptables", "-w", "5", *args])

    def enter(self):
        """Moves the calling thread (only it) into the namespace."""
        fd = os.open(f"/run/netns/{self.name}", os.O_RDONLY)
        try:
            if _libc.setns(fd, _CLONE_NEWNET) != 0:
                err = ctypes.get_errno()
                raise OSError(err, f"setns({self.name}): {os.strerror(err)}")
        finally:
            os.close(fd)

    def thread(self, target, name):
        """A daemon thread that runs target() inside the namespace."""
        def run():
            self.enter()
            target()
        return threading.Thread(target=run, name=name, daemon=True)

    def call(self, fn, *args, timeout=30):
        """Runs fn(*args) in a thread inside the namespace and returns its result."""
        box = {}

        def run():
            try:
                box["value"] = fn(*args)
            except BaseException as e:  # noqa: BLE001 - re-raised in the caller
                box["error"] = e
        t = self.thread(run, "netns-call")
        t.start()
        t.join(timeout)
        if t.is_alive():
            raise AssertionError(f"{getattr(fn, '__name__', fn)} did not return within {timeout}s")
        if "error" in box:
            raise box["error"]
        return box.get("value")

    def pids(self):
        r = subprocess.run(["ip", "netns", "pids", self.name], capture_output=True, text=True, timeout=10)
        return [int(x) for x in r.stdout.split()]

    def destroy(self):
        """Kills every process in the namespace (stopped ones too) and deletes it."""
        for _ in range(3):
            pids = self.pids()
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.1)
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True, timeout=10)


def http_get(host, port, path, timeout=2.0, tls=True, headers=None):
    """One GET (from a thread inside the namespace): (status, headers dict, body)."""
    require_netns()
    cls = http.client.HTTPSConnection if tls else http.client.HTTPConnection
    kw = {"context": insecure_tls()} if tls else {}
    conn = cls(host, port, timeout=timeout, **kw)
    try:
        conn.request("GET", path, headers=dict(headers or {}))
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode(errors="replace")
    finally:
        conn.close()


def http_post(host, port, path, timeout=2.0):
    """One POST with an empty body over a new TLS connection (from a thread inside the
    namespace): the HTTP status."""
    require_netns()
    conn = http.client.HTTPSConnection(host, port, timeout=timeout, context=insecure_tls())
    try:
        conn.request("POST", path, body=b"")
        r = conn.getresponse()
        r.read()
        return r.status
    finally:
        conn.close()


def tls_request_outcome(host, port, timeout):
    """'answered', 'reset', 'closed' or 'timeout' for a new TLS connection and a GET /readyz (from a
    thread inside the namespace): how a master treats a new connection."""
    try:
        http_get(host, port, "/readyz", timeout=timeout)
        return "answered"
    except ConnectionResetError:
        return "reset"
    except (socket.timeout, TimeoutError):
        return "timeout"
    except (ssl.SSLError, http.client.HTTPException, OSError) as e:
        return "reset" if "reset" in str(e).lower() else f"closed: {type(e).__name__}: {e}"


def tcp_connect_outcome(host, port, timeout):
    """'connected', 'refused' or 'timeout' (from a thread inside the namespace)."""
    require_netns()
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect((host, port))
        return "connected"
    except ConnectionRefusedError:
        return "refused"
    except (socket.timeout, TimeoutError):
        return "timeout"
    except OSError as e:
        return f"error: {e}"
    finally:
        s.close()


# ---------------------------------------------------------------------------------------------
# Masters

class Master:
    """One vigil-apisim in the namespace."""

    def __init__(self, ns, workdir, name, address, args=(), generation=0):
        self.ns, self.name, self.address = ns, name, address
        self.ready = Path(workdir) / f"{name}.{generation}.ready"
        self.ready.unlink(missing_ok=True)
        self.args = list(args)
        self.proc = ns.spawn([APISIM, "--name", name, "--listen", f"{address}:{MASTER_PORT}",
                              "--ready-file", self.ready, *self.args], Path(workdir) / f"{name}.log")
        read_ready_file(self.ready, self.proc)
        self.started = time.monotonic()

    def signal(self, sig):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, sig)

    def freeze(self):
        self.signal(signal.SIGSTOP)

    def terminate(self):
        self.signal(signal.SIGTERM)

    def kill(self):
        self.signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def wait_exit(self, timeout):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"{self.name} did not exit within {timeout}s") from None

    def readyz_ok(self):
        """True when /readyz answers 200 (call from inside the namespace)."""
        try:
            return http_get(self.address, MASTER_PORT, "/readyz", timeout=1.0)[0] == 200
        except (OSError, http.client.HTTPException):
            return False


# ---------------------------------------------------------------------------------------------
# Load balancers

class LoadBalancer:
    """What the experiment needs from a load balancer in front of the masters.

    member_state(name) -> dict with at least "in_rotation" (bool) and "status" (str), or None
    when the load balancer does not expose its view of members."""

    key = "lb"            # short name in tables
    exposes_state = False
    recovery_bound = 20.0  # after the restarted master is ready, how long it may take to be back

    def __init__(self, port):
        self.port = port
        self.proc = None

    def start(self, ns, workdir):
        raise NotImplementedError

    def member_state(self, name):
        return None

    def stop(self):
        stop(self.proc)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log_text(self):
        return ""

    def describe(self):
        return self.key


def vigil_config(port, token_file, monitor=None, connect_timeout=VIGIL_CONNECT_TIMEOUT):
    """The vigil YAML used by the system tests and the failover benchmark."""
    monitor = dict(VIGIL_HEALTH_MONITOR if monitor is None else monitor)
    mon = "\n".join(f"      {k}: {v}" for k, v in monitor.items())
    members = "\n".join(f"      - {{name: {n}, address: {a}, port: {MASTER_PORT}}}" for n, a in MASTERS.items())
    return f"""\
# Written by testing/harness/netns.py
admin:
  listen: "127.0.0.1:0"
  token_file: {token_file}
listeners:
  - name: api
    bind: "{LB_HOST}:{port}"
    pool: masters
pools:
  - name: masters
    connect_timeout: {connect_timeout}
    health_monitor:
{mon}
    members:
{members}
"""


class VigilLB(LoadBalancer):
    key = "vigil"
    exposes_state = True
    recovery_bound = VIGIL_WORST_MARK_UP + 6.0

    def __init__(self, port=MASTER_PORT, binary=None, monitor=None):
        super().__init__(port)
        self.binary = Path(binary or VIGIL)
        self.admin = None
        self.monitor = monitor  # None: VIGIL_HEALTH_MONITOR
        if monitor is not None:
            # Two passing checks after the master is ready: its interval (with jitter) to the
            # first, the fast interval to the second, each up to its timeout; then margin.
            self.recovery_bound = (1.1 * (duration_s(monitor["interval"]) + duration_s("1s"))
                                   + 2 * duration_s(monitor["timeout"]) + 6.0)

    def start(self, ns, workdir):
        d = Path(workdir) / f"vigil-{self.port}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "token").write_text(TOKEN + "\n")
        self.config_path = d / "vigil.yaml"
        self.config_path.write_text(vigil_config(self.port, d / "token", self.monitor))
        self.log_path = d / "vigil.log"
        ready = d / "vigil.ready"
        ready.unlink(missing_ok=True)
        self.proc = ns.spawn([self.binary, "serve", "-c", self.config_path, "--ready-file", ready],
                             self.log_path)
        info = json.loads(read_ready_file(ready, self.proc))
        self.admin = info["admin"]
        self.listener = info["listeners"]["api"]

    def status(self):
        """GET /v1/status (from a thread inside the namespace)."""
        require_netns()
        req = urllib.request.Request(f"http://{self.admin}/v1/status", headers={"X-Auth-Token": TOKEN})
        with _no_proxy.open(req, timeout=2) as r:
            return json.loads(r.read())

    def members(self):
        out = {}
        for p in self.status()["pools"]:
            for m in p["members"]:
                out[m["name"]] = m
        return out

    def member_state(self, name):
        m = self.members().get(name)
        if m is None:
            return None
        check = m.get("check") or {}
        return {
            "status": m["operating_status"],
            "in_rotation": bool(m["in_rotation"]),
            "reason": check.get("reason") or "",
            "failed_checks": list(check.get("failed_checks") or []),
            "active_connections": m.get("active_connections"),
        }

    def log_text(self):
        try:
            return self.log_path.read_text(errors="replace")
        except (AttributeError, FileNotFoundError):
            return ""


# ---------------------------------------------------------------------------------------------
# Clients

@dataclasses.dataclass
class Request:
    kind: str            # "newconn" or "kubectl"
    start: float         # monotonic
    end: float
    ok: bool
    code: int | None     # HTTP status (newconn), exit code (kubectl)
    served_by: str | None
    error: str = ""
    http_401: bool = False
    # kubectl: the round trips it logged itself ("in N milliseconds"), without its process start
    # (a Go binary, its kubeconfig), which a loaded 2-core machine stretched past 1.5 s before any
    # fault (2026-12-04). None: none logged (it failed before an answer): the whole process time.
    round_trip: float | None = None

    @property
    def latency(self):
        return self.round_trip if self.round_trip is not None else self.end - self.start


@dataclasses.dataclass
class Stream:
    """One watch stream: from connect to its end."""
    opened: float
    served_by: str | None = None
    first_event: float | None = None
    last_event: float | None = None
    events: int = 0
    ended: float | None = None
    end_reason: str = ""


class Client:
    def __init__(self, ns, lb, stop):
        self.ns, self.lb, self.stop = ns, lb, stop
        self.thread = None

    def start(self, name):
        def run():
            require_netns()
            self.run()
        self.thread = self.ns.thread(run, name)
        self.thread.start()

    def join(self, timeout):
        self.thread.join(timeout)
        return not self.thread.is_alive()


class NewConnClient(Client):
    """A new TLS connection and one GET every NEWCONN_PERIOD, sequentially."""

    def __init__(self, ns, lb, stop):
        super().__init__(ns, lb, stop)
        self.requests = []

    def one(self):
        start = time.monotonic()
        code, served, err = None, None, ""
        conn = http.client.HTTPSConnection(LB_HOST, self.lb.port, timeout=REQUEST_TIMEOUT,
                                           context=insecure_tls())
        try:
            conn.request("GET", REQUEST_PATH)
            r = conn.getresponse()
            r.read()
            code, served = r.status, r.getheader("X-Served-By")
            if code != 200:
                err = f"HTTP {code}"
        except Exception as e:  # noqa: BLE001 - every failure is a data point
            err = f"{type(e).__name__}: {e}"
        finally:
            conn.close()
        self.requests.append(Request("newconn", start, time.monotonic(), code == 200 and not err,
                                     code, served, err, code == 401))

    def run(self):
        nxt = time.monotonic()
        while not self.stop.is_set():
            self.one()
            nxt = max(nxt + NEWCONN_PERIOD, time.monotonic())
            self.stop.wait(max(0.0, nxt - time.monotonic()))


def kubectl_setup(directory, server):
    """(kubeconfig path, environment) for a kubectl of the tests' own: the cluster at `server`
    (any certificate, a dummy token), no proxy from the environment, no writes to ~/.kube."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    kubeconfig = d / "kubeconfig"
    kubeconfig.write_text(f"""\
apiVersion: v1
kind: Config
clusters:
- name: vigil
  cluster:
    server: {server}
    insecure-skip-tls-verify: true
users:
- name: test
  user:
    token: system-test
contexts:
- name: vigil
  context: {{cluster: vigil, user: test}}
current-context: vigil
""")
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(HOME=str(d), KUBECACHEDIR=str(d / "cache"))
    return kubeconfig, env


class KubectlClient(Client):
    """The real kubectl: `kubectl get --raw /api/v1/nodes/master-01` about once a second."""

    def __init__(self, ns, lb, stop, kubectl, workdir):
        super().__init__(ns, lb, stop)
        self.kubectl = kubectl
        self.requests = []
        self.kubeconfig, self.env = kubectl_setup(Path(workdir) / f"kubectl-{lb.port}",
                                                  f"https://{LB_HOST}:{lb.port}")

    def one(self):
        start = time.monotonic()
        argv = self.ns.argv([self.kubectl, "--kubeconfig", self.kubeconfig, "get", "--raw", REQUEST_PATH,
                             "--request-timeout=10s", "-v=8"])
        served, err, code, is401, round_trip = None, "", None, False, None
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=REQUEST_TIMEOUT + 20, env=self.env)
            code = r.returncode
            found = re.findall(r"X-Served-By: (\S+)", r.stderr)
            served = found[-1] if found else None
            # client-go at -v=8: "Response Status: 200 OK in 5 milliseconds", once per request
            # it sent (a retried one: each), each from its dial to its answer's headers.
            trips = [int(ms) for ms in re.findall(r"Response Status: .* in (\d+) milliseconds", r.stderr)]
            round_trip = sum(trips) / 1000.0 if trips else None
            is401 = bool(re.search(r"Response Status: 401|Unauthorized", r.stderr))
            if code != 0:
                # The last line that is not klog's (-v=8 logs lines like "I1130 12:00:00.000 ...").
                lines = [ln.strip() for ln in r.stderr.splitlines()
                         if ln.strip() and not re.match(r"^[IWE]\d{4} ", ln)]
                err = f"exit {code}: {(lines[-1] if lines else 'no message')[:200]}"
        except subprocess.TimeoutExpired:
            err = "kubectl did not exit within 30s"
        self.requests.append(Request("kubectl", start, time.monotonic(), code == 0 and not err, code,
                                     served, err, is401, round_trip))

    def run(self):
        nxt = time.monotonic()
        while not self.stop.is_set():
            self.one()
            nxt = max(nxt + KUBECTL_PERIOD, time.monotonic())
            self.stop.wait(max(0.0, nxt - time.monotonic()))


class WatchClient(Client):
    """One long-lived `GET /api/v1/nodes?watch=true`; when its stream ends or errors it reconnects
    at once. The first stream is pinned to `pin` (reconnects until X-Served-By says so), so that
    the scenario really cuts the watch's own master."""

    PIN_ATTEMPTS = 60

    def __init__(self, ns, lb, stop, pin=VICTIM):
        super().__init__(ns, lb, stop)
        self.pin = pin
        self.streams = []
        self.connect_errors = []     # (time, error) of attempts that got no stream
        self.pinned = False
        self._lock = threading.Lock()
        self._conn = None

    def open(self):
        conn = http.client.HTTPSConnection(LB_HOST, self.lb.port, timeout=REQUEST_TIMEOUT, context=insecure_tls())
        conn.request("GET", WATCH_PATH)
        r = conn.getresponse()
        if r.status != 200:
            body = r.read()[:200]
            conn.close()
            raise RuntimeError(f"HTTP {r.status} from {r.getheader('X-Served-By')}: {body!r}")
        conn.sock.settimeout(WATCH_IDLE_TIMEOUT)
        return conn, r

    def run(self):
        attempts = 0
        while not self.stop.is_set():
            opened = time.monotonic()
            try:
                conn, r = self.open()
            except Exception as e:  # noqa: BLE001
                self.connect_errors.append((opened, f"{type(e).__name__}: {e}"))
                self.stop.wait(0.05)
                continue
            served = r.getheader("X-Served-By")
            if not self.streams and not self.pinned and served != self.pin and attempts < self.PIN_ATTEMPTS:
                attempts += 1
                conn.close()
                continue
            self.pinned = self.pinned or served == self.pin
            s = Stream(opened=opened, served_by=served)
            with self._lock:
                self.streams.append(s)
                self._conn = conn
            try:
                while not self.stop.is_set():
                    line = r.readline()
                    if not line:
                        s.end_reason = "stream ended (EOF)"
                        break
                    if line.strip():
                        now = time.monotonic()
                        s.first_event = s.first_event or now
                        s.last_event = now
                        s.events += 1
                else:
                    s.end_reason = "client stopped"
            except Exception as e:  # noqa: BLE001
                s.end_reason = "client stopped" if self.stop.is_set() else f"{type(e).__name__}: {e}"
            s.ended = time.monotonic()
            with self._lock:
                self._conn = None
            conn.close()

    def interrupt(self):
        """Unblocks a read on a stuck stream when the clients stop."""
        with self._lock:
            if self._conn is not None and self._conn.sock is not None:
                try:
                    self._conn.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def load_average():
    """The machine's 1-minute load average (the namespace does not change it)."""
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return math.nan


class Monitor(Client):
    """Samples lb.member_state(VICTIM) every 100 ms; keeps the samples where something changed."""

    def __init__(self, ns, lb, stop):
        super().__init__(ns, lb, stop)
        self.samples = []   # (time, state or {"error": ...})
        self.count = 0
        self.load = []      # (time, 1-minute load average), every sample: what a bound was up against

    def run(self):
        last = None
        while not self.stop.is_set():
            t = time.monotonic()
            try:
                st = self.lb.member_state(VICTIM)
            except Exception as e:  # noqa: BLE001
                st = {"error": f"{type(e).__name__}: {e}"}
            self.count += 1
            self.load.append((t, load_average()))
            key = json.dumps({k: v for k, v in (st or {}).items() if k != "active_connections"}, sort_keys=True)
            if key != last:
                self.samples.append((t, st))
                last = key
            self.stop.wait(0.1)

    def first(self, after, pred):
        """The first time at or after `after` at which pred(state) held: `after` itself when the
        state in force then already satisfies it, else the first later sample that does."""
        in_force = None
        for t, st in self.samples:
            if t <= after:
                in_force = st
                continue
            if in_force is not None:
                if "error" not in in_force and pred(in_force):
                    return after
                in_force = None
            if st and "error" not in st and pred(st):
                return t
        if in_force is not None and "error" not in in_force and pred(in_force):
            return after
        return None


# ---------------------------------------------------------------------------------------------
# Results

@dataclasses.dataclass
class ClientSummary:
    kind: str
    count: int
    failures: int
    http_401: int
    max_latency: float
    p99: float
    served_by: dict
    errors: list          # (seconds since the fault, phase, error) of failed requests
    slow: list            # (seconds since the fault, phase, latency) of requests over LATENCY_BOUND

    def line(self, label):
        served = ", ".join(f"{k}={v}" for k, v in sorted(self.served_by.items()))
        return (f"{label:<24} {self.kind:<8} n={self.count:<4} failed={self.failures:<3} "
                f"401s={self.http_401:<3} max={self.max_latency:6.3f}s p99={self.p99:6.3f}s  [{served}]")


class Result:
    """What the clients of one load balancer saw during one scenario."""

    def __init__(self, scenario, lb, marks, newconn, kubectl, watch, monitor, kubectl_watch=None):
        self.scenario, self.lb, self.marks = scenario, lb, dict(marks)
        self.newconn, self.kubectl, self.watch, self.monitor = newconn, kubectl, watch, monitor
        self.kubectl_watch = kubectl_watch   # testing.harness.kubectl_watch.KubectlWatch, or None
        self.fault = self.marks["fault"]

    def watches(self):
        """[(label, watch)]: the watch with no TCP keepalive, and kubectl's over HTTP/2 if it ran."""
        return [(label, w) for label, w in (("watch", self.watch), ("kubectl watch", self.kubectl_watch))
                if w is not None]

    def rel(self, t):
        return t - self.fault

    def phase(self, t):
        m = self.marks
        if t < m["fault"]:
            return "before the fault"
        if t < m.get("restarted", math.inf):
            return "outage"
        if t < m.get("restarted", math.inf) + WARMUP:
            return "warm-up"
        return "after warm-up"

    def latency_bound(self):
        return latency_bound(self.scenario)

    def load_at(self, t):
        """The load average sampled nearest to monotonic time `t` (nan without samples)."""
        load = self.monitor.load if self.monitor else []
        return min(load, key=lambda s: abs(s[0] - t))[1] if load else math.nan

    def max_load(self):
        return max((x for _, x in (self.monitor.load if self.monitor else [])), default=math.nan)

    def watch_gap_bound(self):
        return watch_gap_bound(self.scenario)

    def summary(self, client):
        reqs = client.requests if client else []
        lat = [r.latency for r in reqs]
        served = {}
        for r in reqs:
            served[r.served_by or "-"] = served.get(r.served_by or "-", 0) + 1
        kind = reqs[0].kind if reqs else ("kubectl" if isinstance(client, KubectlClient) else "newconn")
        return ClientSummary(
            kind=kind, count=len(reqs), failures=sum(not r.ok for r in reqs),
            http_401=sum(r.http_401 for r in reqs), max_latency=max(lat, default=0.0),
            p99=percentile(lat, 99), served_by=served,
            errors=[(self.rel(r.start), self.when(r.start), r.error) for r in reqs if not r.ok],
            slow=[(self.rel(r.start), self.when(r.start), r.latency) for r in reqs
                  if r.latency > self.latency_bound()])

    def when(self, t):
        """The phase of monotonic time `t` and the load then: what a failed bound was up against."""
        return f"{self.phase(t)}, load {self.load_at(t):.1f}"

    def all_requests(self):
        return (self.newconn.requests if self.newconn else []) + (self.kubectl.requests if self.kubectl else [])

    def stalled_seconds(self):
        """Wall-clock seconds during which at least one client waited on a request slower than
        STALL_THRESHOLD."""
        return union_length([(r.start, r.end) for r in self.all_requests() if r.latency > STALL_THRESHOLD])

    # The watch -------------------------------------------------------------------------------

    def watch_gaps(self, watch=None):
        """[(seconds since the fault at which the old stream's last event came, gap, old stream's
        server, why it ended, new stream's server)] for every reconnect with events on both sides.
        `watch`: which one (default: the watch with no TCP keepalive)."""
        out = []
        streams = [s for s in (watch or self.watch).streams if s.first_event is not None]
        for old, new in zip(streams, streams[1:]):
            out.append((self.rel(old.last_event), new.first_event - old.last_event, old.served_by,
                        old.end_reason, new.served_by))
        return out

    def watch_silence_at_end(self, watch=None):
        """Seconds since the watch's last event when the clients stopped (about 1 s or less when
        it was streaming; the watch interval is 1 s)."""
        last = max((s.last_event for s in (watch or self.watch).streams if s.last_event is not None),
                   default=self.marks["clients"])
        return self.marks["end"] - last

    def watch_max_gap(self, watch=None):
        """The longest time the watch went without events from the fault on: the largest
        reconnect gap, or the silence at the end when it never came back."""
        gaps = [gap for t, gap, *_ in self.watch_gaps(watch) if t >= -1.0]
        silence = self.watch_silence_at_end(watch)
        return max(gaps + ([silence] if silence > 2.0 else []), default=0.0)

    def watch_reconnected_after_fault(self, watch=None):
        return any(t >= -1.0 for t, *_ in self.watch_gaps(watch))

    def watch_failed_connects(self, watch=None):
        """[(seconds since the fault, phase, error)] of watch (re)connects that got no stream."""
        return [(self.rel(t), self.phase(t), e) for t, e in (watch or self.watch).connect_errors]

    # How the load balancer saw master-01 ----------------------------------------------------------

    def _down_at(self):
        if not self.monitor or not self.lb.exposes_state:
            return None
        return self.monitor.first(self.fault, lambda s: not s.get("in_rotation", True))

    def mark_down(self):
        """Seconds from the fault until master-01 was out of rotation (None: never, or the load
        balancer does not say)."""
        t = self._down_at()
        return None if t is None else t - self.fault

    def mark_up(self):
        """Seconds from the restart until master-01, once out, was back in rotation (None: it never
        went out or never came back). Its /readyz passes from restart + WARMUP on: anything less
        means clients were sent to a master that was still warming up."""
        t_down = self._down_at()
        if t_down is None or "restarted" not in self.marks:
            return None
        t = self.monitor.first(t_down, lambda s: s.get("in_rotation"))
        return None if t is None else t - self.marks["restarted"]

    def state_timeline(self):
        """[(seconds since the fault, state)] of master-01 as the load balancer saw it."""
        return [(self.rel(t), st) for t, st in (self.monitor.samples if self.monitor else [])]

    # Printing --------------------------------------------------------------------------------

    def report_lines(self):
        label = f"{self.scenario}/{self.lb.describe()}"
        out = []
        for c in (self.newconn, self.kubectl):
            if c is not None:
                s = self.summary(c)
                out.append(s.line(label))
                for t, ph, e in s.errors[:5]:
                    out.append(f"    failed at {t:+7.2f}s ({ph}): {e}")
                if len(s.errors) > 5:
                    out.append(f"    ... and {len(s.errors) - 5} more failures")
                for t, ph, lat in s.slow[:5]:
                    out.append(f"    slow at {t:+7.2f}s ({ph}): {lat:.2f}s")
        if self.kubectl is None:
            out.append(f"{label:<24} kubectl  not run (kubectl not installed)")
        for kind, w in self.watches():
            gaps = self.watch_gaps(w)
            g = ", ".join(f"{gap:.2f}s at {t:+.1f}s ({old}->{new}: {why})" for t, gap, old, why, new in gaps) or "none"
            out.append(f"{label:<24} {kind:<8} streams={len(w.streams)} reconnects={len(gaps)} "
                       f"max_gap={self.watch_max_gap(w):.2f}s silent_at_end={self.watch_silence_at_end(w):.1f}s "
                       f"failed_connects={len(w.connect_errors)} pinned={w.pinned}  gaps: {g}")
            for t, ph, e in self.watch_failed_connects(w)[:5]:
                out.append(f"    {kind} connect failed at {t:+7.2f}s ({ph}): {e}")
        md, mu = self.mark_down(), self.mark_up()
        out.append(f"{label:<24} lb       stalled={self.stalled_seconds():.2f}s "
                   f"out_of_rotation_after={_fmt(md)} back_in_rotation_after_restart={_fmt(mu)} "
                   f"marks: " + ", ".join(f"{k}={self.rel(v):+.1f}s" for k, v in self.marks.items()))
        return out


def _fmt(v):
    return "n/a" if v is None else f"{v:.2f}s"


# ---------------------------------------------------------------------------------------------
# The experiment

class Experiment:
    """Masters, load balancers, clients and one scenario in one namespace."""

    def __init__(self, ns, workdir, lbs, kubectl=None, log=print, master_args=(), kubectl_watch=False):
        """`master_args`: given to every master at every start (a certificate, its EndpointSlices);
        `kubectl_watch`: also run the real `kubectl get nodes --watch` (HTTP/2) through each load
        balancer, pinned to the victim as the other watch is."""
        self.ns, self.workdir, self.lbs = ns, Path(workdir), list(lbs)
        self.kubectl = kubectl
        self.log = log
        self.common_master_args = list(master_args)
        self.with_kubectl_watch = kubectl_watch and kubectl is not None
        self.masters = {}
        self.marks = {}
        self.stop = threading.Event()
        self.clients = {}      # lb.key -> (newconn, kubectl, watch, monitor, kubectl watch)
        self.generations = {}  # master name -> how many times it was restarted

    def mark(self, name):
        self.marks[name] = time.monotonic()
        self.log(f"[{name}]" + (f" +{self.marks[name] - self.marks['fault']:.1f}s after the fault"
                                if "fault" in self.marks and name != "fault" else ""))

    # Set-up ------------------------------------------------------------------------------------

    def start_masters(self, scenario):
        for name, addr in MASTERS.items():
            self.masters[name] = Master(self.ns, self.workdir, name, addr,
                                        [*self.common_master_args, *self.master_args(scenario, name)])

    def start_lbs(self):
        for lb in self.lbs:
            lb.start(self.ns, self.workdir)

    def wait_lbs_ready(self, timeout=20.0):
        """Every load balancer has every master in rotation and answers a request."""
        def all_in(lb):
            if not lb.exposes_state:
                return True
            return all((st := lb.member_state(n)) and st.get("in_rotation") for n in MASTERS)

        def answers(lb):
            try:
                return http_get(LB_HOST, lb.port, "/readyz", timeout=2)[0] == 200
            except (OSError, http.client.HTTPException):
                return False
        for lb in self.lbs:
            self.ns.call(lambda: wait_for(lambda: all_in(lb) and answers(lb), timeout,
                                          what=f"{lb.describe()}: all masters in rotation"), timeout=timeout + 5)

    def start_clients(self):
        self.mark("clients")
        for lb in self.lbs:
            nc = NewConnClient(self.ns, lb, self.stop)
            kc = KubectlClient(self.ns, lb, self.stop, self.kubectl, self.workdir) if self.kubectl else None
            wc = WatchClient(self.ns, lb, self.stop)
            mon = Monitor(self.ns, lb, self.stop) if lb.exposes_state else None
            for c, n in ((nc, "newconn"), (kc, "kubectl"), (wc, "watch"), (mon, "monitor")):
                if c is not None:
                    c.start(f"{lb.key}-{n}")
            kw = None
            if self.with_kubectl_watch:
                from testing.harness.kubectl_watch import KubectlWatch  # it imports this module
                kw = KubectlWatch(self.ns, self.kubectl, self.workdir, f"https://{LB_HOST}:{lb.port}",
                                  pin=VICTIM, stop=self.stop, name=f"{lb.key}-kubectl-watch")
                kw.start()
            self.clients[lb.key] = (nc, kc, wc, mon, kw)

    def wait_clients_warm(self):
        """Clients have run WARM_CLIENTS seconds, each has succeeded, and each watch streams."""
        start = self.marks["clients"]

        def warm():
            for nc, kc, wc, _, kw in self.clients.values():
                if not any(r.ok for r in nc.requests):
                    return False
                if kc is not None and not any(r.ok for r in kc.requests):
                    return False
                for w in (wc, kw):
                    if w is not None and (not w.streams or w.streams[-1].events < 2):
                        return False
            return time.monotonic() - start >= WARM_CLIENTS
        # kubectl's watch may need a few runs to land on the victim (each a Go process's start).
        wait_for(warm, WARM_CLIENTS + (60 if self.with_kubectl_watch else 20), what="every client working")
        for lb in self.lbs:
            _, _, wc, _, kw = self.clients[lb.key]
            for w in (wc, kw):
                if w is not None:
                    self.log(f"{lb.describe()}: {type(w).__name__} on {w.streams[-1].served_by} "
                             f"(pinned to {VICTIM}: {w.pinned})")

    # Scenarios -----------------------------------------------------------------------------------

    def restart_master(self, name, warmup, args=()):
        self.generations[name] = self.generations.get(name, 0) + 1
        self.masters[name] = Master(self.ns, self.workdir, name, MASTERS[name],
                                    [*self.common_master_args, "--warmup", f"{warmup:g}s", *args],
                                    self.generations[name])
        self.log(f"[{name} restarted] +{self.masters[name].started - self.marks['fault']:.1f}s after the "
                 f"fault (--warmup {warmup:g}s)")
        return self.masters[name]

    def restart_victim(self):
        self.marks["restarted"] = self.restart_master(VICTIM, WARMUP).started

    def power_off(self):
        victim = self.masters[VICTIM]
        addr = MASTERS[VICTIM]
        rules = [("INPUT", "-d", addr), ("OUTPUT", "-s", addr)]
        self.mark("fault")
        for chain, flag, a in rules:
            self.ns.iptables("-I", chain, flag, a, "-j", "DROP")
        victim.freeze()
        # The power-off must be real: a connect to the victim gets no answer at all (no RST).
        outcome = self.ns.call(tcp_connect_outcome, addr, MASTER_PORT, 0.5)
        if outcome != "timeout":
            raise AssertionError(f"iptables DROP does not cut {addr} off inside the namespace: connect {outcome}")
        self.log(f"power-off: {addr} dropped (INPUT -d, OUTPUT -s) and {VICTIM} SIGSTOPped; "
                 f"a connect to it times out")
        sleep_until(self.marks["fault"] + POWER_OFF_SECONDS)
        for chain, flag, a in rules:
            self.ns.iptables("-D", chain, flag, a, "-j", "DROP")
        self.mark("power_on")
        victim.kill()
        self.restart_victim()

    def hang(self):
        """SIGSTOP only: the kernel still completes handshakes (into the backlog) and ACKs what
        is sent, nothing answers."""
        victim = self.masters[VICTIM]
        self.mark("fault")
        victim.freeze()
        self.log(f"hang: {VICTIM} SIGSTOPped (its kernel still accepts and ACKs)")
        sleep_until(self.marks["fault"] + FAULT_SECONDS)
        self.mark("power_on")
        victim.kill()
        self.restart_victim()

    def connection_fault(self, mode):
        """reset / read-reset: the victim's new connections are reset (at once, or after it read
        the ClientHello); the ones it accepted before, the checks' kept one among them, are still
        served. Set through a connection opened before the fault."""
        victim = self.masters[VICTIM]
        addr = MASTERS[VICTIM]

        def set_fault():
            conn = http.client.HTTPSConnection(addr, MASTER_PORT, timeout=2, context=insecure_tls())
            try:
                conn.connect()
                self.mark("fault")
                conn.request("POST", f"/sim/fault?mode={mode}", body=b"")
                r = conn.getresponse()
                r.read()
                return r.status
            finally:
                conn.close()
        status = self.ns.call(set_fault)
        if status != 200:
            raise AssertionError(f"POST /sim/fault?mode={mode} on {VICTIM}: HTTP {status}")
        # The fault must be real: a new connection to the victim gets no answer but a reset.
        outcome = self.ns.call(tls_request_outcome, addr, MASTER_PORT, 2.0)
        if outcome == "answered":
            raise AssertionError(f"{VICTIM} still answers a new connection after mode={mode}")
        self.log(f"{mode}: {VICTIM}'s new connections are reset (a new one: {outcome})")
        sleep_until(self.marks["fault"] + FAULT_SECONDS)
        self.mark("power_on")
        victim.kill()
        self.restart_victim()

    def reset(self):
        self.connection_fault("reset")

    def read_reset(self):
        self.connection_fault("read-reset")

    def rolling_restart(self):
        """Every master in turn, as an upgrade does: SIGTERM (it announces [-]shutdown and serves
        on for ROLLING_SHUTDOWN_DELAY), its exit, a restart with ROLLING_WARMUP, then the next once
        every load balancer has it back in rotation (for one that does not say: once it is ready)."""
        for i, name in enumerate(MASTERS):
            master = self.masters[name]
            self.mark("fault" if name == VICTIM else f"{name}_term")
            master.terminate()
            master.wait_exit(ROLLING_SHUTDOWN_DELAY + 15)
            self.mark("exited" if name == VICTIM else f"{name}_exited")
            restarted = self.restart_master(name, ROLLING_WARMUP, ["--shutdown-delay", f"{ROLLING_SHUTDOWN_DELAY:g}s"])
            if name == VICTIM:
                self.marks["restarted"] = restarted.started
            self.ns.call(lambda: wait_for(restarted.readyz_ok, ROLLING_WARMUP + 10, interval=0.1,
                                          what=f"{name} /readyz 200 after its warm-up"),
                         timeout=ROLLING_WARMUP + 15)
            for lb in self.lbs:
                if lb.exposes_state:
                    self.wait_back_in_rotation(lb, name, restarted.started + ROLLING_WARMUP + lb.recovery_bound)
            self.mark(f"{name}_back")

    def wait_back_in_rotation(self, lb, name, deadline):
        """Until lb has `name` in rotation or the deadline passes (logged: the result shows what
        that cost the clients)."""
        def back():
            try:
                return bool((st := lb.member_state(name)) and st.get("in_rotation"))
            except (OSError, ValueError):
                return False
        while time.monotonic() < deadline and not self.ns.call(back):
            time.sleep(0.1)
        if not self.ns.call(back):
            self.log(f"{lb.describe()}: {name} not back in rotation by the deadline")

    def graceful(self):
        victim = self.masters[VICTIM]
        self.mark("fault")
        victim.terminate()
        victim.wait_exit(SHUTDOWN_DELAY + 15)
        self.mark("exited")
        self.restart_victim()

    def crash(self):
        victim = self.masters[VICTIM]
        self.mark("fault")
        victim.kill()
        sleep_until(self.marks["fault"] + CRASH_DOWN_SECONDS)
        self.restart_victim()

    def victim_args(self, scenario):
        return ["--shutdown-delay", f"{SHUTDOWN_DELAY:g}s"] if scenario == "graceful" else []

    def master_args(self, scenario, name):
        if scenario == "rolling-restart":
            return ["--shutdown-delay", f"{ROLLING_SHUTDOWN_DELAY:g}s"]
        return self.victim_args(scenario) if name == VICTIM else []

    def wait_recovered(self):
        """Until the restarted master is ready and every load balancer has it back in rotation
        (bounded per load balancer), then SETTLE seconds more."""
        victim = self.masters[VICTIM]
        restarted = self.marks["restarted"]
        try:
            self.ns.call(lambda: wait_for(victim.readyz_ok, WARMUP + 10, interval=0.1,
                                          what=f"{VICTIM} /readyz 200 after its warm-up"), timeout=WARMUP + 15)
            self.mark("ready")
        except AssertionError as e:
            self.log(str(e))
        for lb in self.lbs:
            if not lb.exposes_state:
                continue
            mon = self.clients[lb.key][3]
            fault = self.marks["fault"]

            def back():
                t_down = mon.first(fault, lambda s: not s.get("in_rotation", True))
                return t_down is None or mon.first(t_down, lambda s: s.get("in_rotation")) is not None
            deadline = restarted + WARMUP + lb.recovery_bound
            while time.monotonic() < deadline and not back():
                time.sleep(0.1)
            if not back():
                self.log(f"{lb.describe()}: {VICTIM} not back in rotation within "
                         f"{WARMUP + lb.recovery_bound:.1f}s of its restart")
        self.mark("recovered")
        sleep_until(self.marks["recovered"] + SETTLE)

    def stop_clients(self):
        self.mark("end")
        self.alive_at_end = {lb.key: lb.alive() for lb in self.lbs}
        self.stop.set()
        for nc, kc, wc, mon, kw in self.clients.values():
            for w in (wc, kw):
                if w is not None:
                    w.interrupt()
        for lb_key, cs in self.clients.items():
            for c in cs:
                if c is not None and not c.join(REQUEST_TIMEOUT + 25):
                    raise AssertionError(f"{lb_key}: client {c.thread.name} did not stop")

    def run(self, scenario):
        """The whole scenario; returns {lb.key: Result}."""
        if scenario not in SCENARIOS:
            raise ValueError(f"unknown scenario {scenario!r}")
        self.start_masters(scenario)
        self.start_lbs()
        self.wait_lbs_ready()
        self.start_clients()
        try:
            self.wait_clients_warm()
            {"power-off": self.power_off, "graceful": self.graceful, "crash": self.crash,
             "hang": self.hang, "reset": self.reset, "read-reset": self.read_reset,
             "rolling-restart": self.rolling_restart}[scenario]()
            self.wait_recovered()
        finally:
            if not self.stop.is_set():
                self.stop_clients()
        results = {}
        for lb in self.lbs:
            nc, kc, wc, mon, kw = self.clients[lb.key]
            results[lb.key] = Result(scenario, lb, self.marks, nc, kc, wc, mon, kw)
            results[lb.key].alive_at_end = self.alive_at_end[lb.key]
        return results

    def stop_all(self):
        self.stop.set()
        for lb in self.lbs:
            try:
                lb.stop()
            except Exception:  # noqa: BLE001 - the namespace teardown kills what is left
                pass
