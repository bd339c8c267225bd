"""The targets of bench/dataplane/run.py: direct and the load balancers, each started here with
three front ports (bulk, http, idle) in front of run.py's backends. Python 3 standard library
only."""

import json
import os
import shutil
import subprocess
from pathlib import Path

from bench.benchlib import HOST, compile_c, free_port, listening, proc_children, tail
from testing.harness.wait import wait_until

NGINX_STREAM_MODULE = "/usr/lib/nginx/modules/ngx_stream_module.so"
MAXPIPES = 256  # haproxy-tuned: pipes for splicing
HERE = Path(__file__).resolve().parent


def compile_bpf(source, tmp):
    """Compiles a BPF program (clang -target bpf) into tmp; returns the object's path."""
    clang = shutil.which("clang")
    if clang is None:
        raise RuntimeError("no clang: run.sh installs clang and libbpf-dev")
    multiarch = subprocess.run(["gcc", "-print-multiarch"], capture_output=True, text=True).stdout.strip()
    out = os.path.join(tmp, Path(source).stem + ".o")
    r = subprocess.run([clang, "-O2", "-g", "-target", "bpf", f"-I/usr/include/{multiarch}", "-c", str(source),
                        "-o", out], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"clang {source} failed:\n{r.stderr[-2000:]}")
    return out


class Target:
    name = "?"

    def __init__(self, procs, backends, tmp, args, instance=""):
        self.procs = procs
        self.instance = instance  # "" for the long-running one; "-idleN" for a fresh idle-test one
        self.backends = backends
        self.tmp = tmp
        self.args = args
        self.proc = None
        self.ports = {}
        self.dead = None  # why it stopped answering, once it did

    def start(self):
        raise NotImplementedError

    def pids(self):
        if self.proc is None:
            return []
        return [self.proc.pid] + proc_children(self.proc.pid, scan=True)

    def alive(self):
        return self.proc is None or self.proc.poll() is None

    def _wait_listening(self):
        for port in self.ports.values():
            if not wait_until(lambda: listening(port, wildcard=True) or self.proc.poll() is not None, 15):
                raise RuntimeError(f"does not listen on {port} within 15 s:\n{tail(self.proc.logpath)}")
            if self.proc.poll() is not None:
                raise RuntimeError(f"exited with {self.proc.returncode}:\n{tail(self.proc.logpath)}")

    def _backend_ports(self):
        b = self.backends
        return {"bulk": b.bulk_port, "http": b.http_port, "idle": b.holder.port}


class Direct(Target):
    name = "direct"

    def start(self):
        self.ports = self._backend_ports()


class HAProxy(Target):
    name = "haproxy"
    tuned = False

    def start(self):
        d = os.path.join(self.tmp, self.name + self.instance)
        os.makedirs(d)
        self.ports = {k: free_port() for k in ("bulk", "http", "idle")}
        back = self._backend_ports()
        # Each proxied connection takes two descriptors; spliced ones also a pipe (two more).
        # maxpipes only caps the pipes kept for splicing (at most a few dozen are busy here) so
        # that maxconn still fits the descriptor limit.
        maxconn = (self.args.nofile - 200 - (2 * MAXPIPES if self.tuned else 0)) // 2
        g = [f"    nbthread {self.args.workers}", f"    maxconn {maxconn}"]
        dflt = ["    mode tcp", "    timeout connect 5s", "    timeout client 1m",
                "    timeout server 1m", f"    maxconn {maxconn}"]
        if self.tuned:
            g += ["    tune.bufsize 65536", "    tune.pipesize 1048576", f"    maxpipes {MAXPIPES}"]
            dflt += ["    option splice-auto"]
        text = "global\n" + "\n".join(g) + "\n\ndefaults\n" + "\n".join(dflt) + "\n"
        for k in ("bulk", "http", "idle"):
            text += f"\nlisten {k}\n    bind {HOST}:{self.ports[k]}\n    server b1 {HOST}:{back[k]}\n"
        conf = os.path.join(d, "haproxy.cfg")
        with open(conf, "w") as f:
            f.write(text)
        # -db: foreground, one process (no master-worker): the pid's CPU time is the proxy's.
        self.proc = self.procs.spawn(self.name + self.instance, ["haproxy", "-db", "-f", conf])
        self._wait_listening()


class HAProxyTuned(HAProxy):
    name = "haproxy-tuned"
    tuned = True


class Nginx(Target):
    name = "nginx"

    def start(self):
        d = os.path.join(self.tmp, "lb-nginx" + self.instance)
        os.makedirs(d)
        self.ports = {k: free_port() for k in ("bulk", "http", "idle")}
        back = self._backend_ports()
        servers = "".join(f"    server {{ listen {HOST}:{self.ports[k]}; proxy_pass {HOST}:{back[k]}; }}\n"
                          for k in ("bulk", "http", "idle"))
        load = f"load_module {NGINX_STREAM_MODULE};\n" if os.path.exists(NGINX_STREAM_MODULE) else ""
        conf = os.path.join(d, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""\
{load}user root;
worker_processes {self.args.workers};
daemon off;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
worker_rlimit_nofile {self.args.nofile};
events {{ worker_connections {self.args.nofile - 100}; }}
stream {{
{servers}}}
""")
        self.proc = self.procs.spawn("lb-nginx" + self.instance, ["nginx", "-p", d, "-e", f"{d}/error.log", "-c", conf])
        self.errlog = f"{d}/error.log"
        self._wait_listening()
        # the workers: wait until the master has started them all
        if not wait_until(lambda: len(proc_children(self.proc.pid, scan=True)) >= self.args.workers, 10):
            raise RuntimeError("nginx workers did not start")


class Floor(Target):
    """floor.c: the least a userspace proxy does (epoll, recv, send; no splice, no limits, no
    timeouts). Not a load balancer: it shows how much of each figure is the kernel's."""
    name = "floor"
    source = "floor.c"
    libs = ()
    defines = ()

    def build(self):
        """[binary, arguments before the ports], built once: the idle test starts more."""
        binaries = self.args.floor_binaries
        if self.name not in binaries:
            binaries[self.name] = [compile_c(HERE / self.source, self.tmp, self.libs, self.defines, self.name)]
        return binaries[self.name]

    def start(self):
        argv = self.build()
        back = self._backend_ports()
        self.ports = {k: free_port() for k in ("bulk", "http", "idle")}
        self.proc = self.procs.spawn(self.name + self.instance,
                                     argv + [f"{self.ports[k]}:{back[k]}" for k in ("bulk", "http", "idle")])
        self._wait_listening()

    def read_features(self):
        """The first line of its log names the kernel features it uses."""
        if not wait_until(lambda: "features" in tail(self.proc.logpath, 1) or self.proc.poll() is not None, 5):
            raise RuntimeError(f"said nothing of its features:\n{tail(self.proc.logpath)}")
        self.features = tail(self.proc.logpath, 1).strip()


class FloorUring(Floor):
    """floor_uring.c: the same forwarder on io_uring (batched submission, multishot accept and
    receive, provided buffers). Its log's first line says which io_uring features it used."""
    name = "floor-uring"
    source = "floor_uring.c"
    libs = ("uring",)

    def start(self):
        super().start()
        self.read_features()


class FloorVigilSockets(Floor):
    """floor.c built with -DFLOOR_VIGIL_SOCKETS: the floor whose listeners carry vigil's socket
    options (SO_REUSEPORT; SO_KEEPALIVE and TCP_USER_TIMEOUT for the client legs' dead-peer
    detection), to tell their kernel cost apart from vigil's own."""
    name = "floor-vigil-sockets"
    defines = ("FLOOR_VIGIL_SOCKETS",)


class FloorSockmap(Floor):
    """floor.c built with -DFLOOR_SOCKMAP: the same process accepts and connects, and a BPF sockmap
    verdict program (floor_sockmap.bpf.c) moves every segment from one leg to the other in the
    kernel. A probe of the kernel's own path, not a forwarder to build on: the kernel does not
    order a leg's end of stream behind segments still queued for redirection, so the process
    holds each end until the leg has taken them (docs/performance.md)."""
    name = "floor-sockmap"
    libs = ("bpf",)
    defines = ("FLOOR_SOCKMAP",)

    def build(self):
        binaries = self.args.floor_binaries
        if self.name not in binaries:
            obj = compile_bpf(HERE / "floor_sockmap.bpf.c", self.tmp)
            binaries[self.name] = [compile_c(HERE / self.source, self.tmp, self.libs, self.defines, self.name), obj]
        return binaries[self.name]

    def start(self):
        super().start()
        self.read_features()


class Vigil(Target):
    name = "vigil"
    log_connections = False
    binary = None  # None: --vigil

    def start(self):
        binary = self.binary or self.args.vigil
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            raise RuntimeError(f"no vigil binary at {binary} (cmake --preset release && "
                               "cmake --build --preset release --target vigil)")
        d = os.path.join(self.tmp, self.name + self.instance)
        os.makedirs(d)
        back = self._backend_ports()
        lines = ['admin: {listen: "127.0.0.1:0"}', f"workers: {self.args.workers}", "listeners:"]
        # vigil keeps descriptors for its checks and admin API and shares what the open-file
        # limit leaves among the listeners in proportion to their max_connections (50,000 by
        # default): under this machine's hard limit of 20,000 the three defaults would leave the
        # idle listener a third. Each asks for what the tests open.
        cap = {"bulk": 128, "http": 128, "idle": max(128, self.args.idle + 16)}
        for k in ("bulk", "http", "idle"):
            log = ", log_connections: true" if self.log_connections else ""
            lines.append(f'  - {{name: {k}, bind: "{HOST}:0", pool: {k}, max_connections: {cap[k]}{log}}}')
        lines.append("pools:")
        for k in ("bulk", "http", "idle"):
            lines += [f"  - name: {k}", "    health_monitor: none", "    members:",
                      f"      - {{name: b1, address: {HOST}, port: {back[k]}}}"]
        conf = os.path.join(d, "bench.yaml")
        with open(conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        ready = os.path.join(d, "ready.json")
        self.proc = self.procs.spawn(self.name + self.instance, [binary, "serve", "-c", conf, "--ready-file", ready])
        if not wait_until(lambda: os.path.exists(ready) or self.proc.poll() is not None, 15):
            raise RuntimeError(f"no ready file within 15 s:\n{tail(self.proc.logpath)}")
        if self.proc.poll() is not None:
            raise RuntimeError(f"exited with {self.proc.returncode}:\n{tail(self.proc.logpath)}")
        with open(ready) as f:
            info = json.load(f)
        for k in ("bulk", "http", "idle"):
            addr = info["listeners"][k]
            host, port = addr.rsplit(":", 1)
            if host.strip("[]") != HOST:
                raise RuntimeError(f"listener {k} bound to {addr}, not {HOST}")
            self.ports[k] = int(port)
        self._wait_listening()


class VigilConnectionLog(Vigil):
    name = "vigil-connlog"
    log_connections = True


TARGET_CLASSES = {"direct": Direct, "vigil": Vigil, "haproxy": HAProxy,
                  "haproxy-tuned": HAProxyTuned, "nginx": Nginx, "floor": Floor,
                  "floor-uring": FloorUring, "floor-sockmap": FloorSockmap,
                  "floor-vigil-sockets": FloorVigilSockets,
                  "vigil-connlog": VigilConnectionLog}


def vigil_variant(name, binary):
    """Target "vigil-NAME": vigil from another binary (--variant NAME=PATH), to measure a change
    against the build before it in the same run. PATH may be a script that sets the environment
    and execs vigil (exec: the pid whose CPU is counted stays vigil's)."""
    return type(f"Vigil_{name}", (Vigil,), {"name": f"vigil-{name}", "binary": binary})
