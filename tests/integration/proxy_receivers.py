"""Real PROXY protocol receivers for the tests: NGINX (`listen ... proxy_protocol`) and HAProxy
(`bind ... accept-proxy`), each on a loopback port, each logging the client address it was told
one line per request, and HAProxy as a sender (`server ... send-proxy-v2`) in front of vigil.

Neither can report a port it was given by the kernel, so the port is the kernel's pick released
just before the server binds it. Every wait is bounded.
"""
import socket
import subprocess
import time
from pathlib import Path

from testing.harness.process import stop
from testing.harness.wait import wait_for

NGINX = "/usr/sbin/nginx"
HAPROXY = "/usr/sbin/haproxy"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def accepts(port, host="127.0.0.1"):
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


class _Server:
    def _start(self, args, log):
        self.out = open(log, "w")
        self.proc = subprocess.Popen(args, stdout=self.out, stderr=subprocess.STDOUT)

        def up():
            if self.proc.poll() is not None:
                raise AssertionError(f"{args[0]} exited with {self.proc.returncode}: "
                                     f"{Path(log).read_text()}")
            return accepts(self.port)
        wait_for(up, 10, what=f"{args[0]} listening on {self.port}")

    def stop(self):
        stop(self.proc)
        self.out.close()


class Nginx(_Server):
    """NGINX whose access log has "$proxy_protocol_addr $proxy_protocol_port $request_uri"."""

    def __init__(self, tmp_path, name="nginx"):
        self.dir = Path(tmp_path) / name
        self.dir.mkdir()
        self.port = free_port()
        self.access = self.dir / "access.log"
        d = self.dir
        conf = self.dir / "nginx.conf"
        conf.write_text(f"""
daemon off;
master_process off;
pid {d}/nginx.pid;
error_log {d}/error.log info;
events {{ worker_connections 64; }}
http {{
  log_format pp '$proxy_protocol_addr $proxy_protocol_port $request_uri';
  client_body_temp_path {d}/body;
  proxy_temp_path {d}/proxy;
  fastcgi_temp_path {d}/fastcgi;
  uwsgi_temp_path {d}/uwsgi;
  scgi_temp_path {d}/scgi;
  server {{
    listen 127.0.0.1:{self.port} proxy_protocol;
    access_log {self.access} pp;
    location / {{ return 200 "ok\\n"; }}
  }}
}}
""")
        self._start([NGINX, "-p", str(d), "-e", str(d / "error.log"), "-c", str(conf)],
                    d / "stdout.log")

    def lines(self):
        try:
            return self.access.read_text().splitlines()
        except FileNotFoundError:
            return []


class HaproxyReceiver(_Server):
    """HAProxy with `accept-proxy`, logging "CLIENT %ci %cp %HU" for each request to stdout."""

    def __init__(self, tmp_path, name="haproxy-rx"):
        self.dir = Path(tmp_path) / name
        self.dir.mkdir()
        self.port = free_port()
        conf = self.dir / "haproxy.cfg"
        conf.write_text(f"""
global
  log stdout format raw local0
defaults
  mode http
  log global
  timeout connect 2s
  timeout client 10s
  timeout server 10s
frontend fe
  bind 127.0.0.1:{self.port} accept-proxy
  log-format "CLIENT %ci %cp %HU"
  http-request return status 200 content-type text/plain string ok
""")
        self.log = self.dir / "stdout.log"
        self._start([HAPROXY, "-db", "-f", str(conf)], self.log)

    def lines(self):
        return [line.removeprefix("CLIENT ") for line in self.log.read_text().splitlines()
                if line.startswith("CLIENT ")]


class HaproxySender(_Server):
    """HAProxy in TCP mode on 127.0.0.1 and [::1], sending `send-proxy-v2` to vigil."""

    def __init__(self, tmp_path, vigil_port, name="haproxy-tx"):
        self.dir = Path(tmp_path) / name
        self.dir.mkdir()
        self.port = free_port()
        conf = self.dir / "haproxy.cfg"
        conf.write_text(f"""
defaults
  mode tcp
  timeout connect 2s
  timeout client 10s
  timeout server 10s
frontend fe
  bind 127.0.0.1:{self.port}
  bind [::1]:{self.port}
  default_backend vigil
backend vigil
  server v 127.0.0.1:{vigil_port} send-proxy-v2
""")
        self._start([HAPROXY, "-db", "-f", str(conf)], self.dir / "stdout.log")


def http_get(host, port, path, timeout=5):
    """One HTTP/1.0 GET from a fresh socket; returns (client (ip, port), the answer's bytes)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect((host, port))
        client = s.getsockname()[:2]
        s.sendall(f"GET {path} HTTP/1.0\r\nHost: test\r\n\r\n".encode())
        chunks = []
        while data := s.recv(65536):
            chunks.append(data)
    return client, b"".join(chunks)


def wait_logged(receiver, line, timeout=10):
    """Waits until the receiver logged exactly `line` (its lines are written after the answer)."""
    return wait_for(lambda: line in receiver.lines(), timeout,
                    what=f"{type(receiver).__name__} logging {line!r} (has {receiver.lines()[-5:]})")


def closed_within(sock, timeout):
    """Seconds until the peer closed `sock` (a read gives 0 bytes or a reset); fails after timeout."""
    start = time.monotonic()
    sock.settimeout(timeout)
    try:
        while sock.recv(4096):
            pass
    except ConnectionResetError:
        pass
    return time.monotonic() - start
