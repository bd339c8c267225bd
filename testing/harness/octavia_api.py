"""Helpers for the Octavia API tests (test_octavia_*.py): a vigil with a state file and no
objects of its own, the real `openstack loadbalancer` CLI pointed at it, and raw HTTP.

Holds no tests. Every wait is bounded (testing.harness.wait.wait_for, subprocess timeouts).
"""
import json
import os
import shutil
import socket
import subprocess
import urllib.error
import urllib.request

from testing.harness.vigil_process import TOKEN, Vigil
from testing.harness.wait import wait_for

# Objects come from the API only; the config names the token and the state file.
CONFIG = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
  state_file: {state_file}
"""

OPENSTACK = shutil.which("openstack")
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def start_vigil(tmp_path, cleanup, state_file=None, admin_options=None):
    """A vigil whose API objects live in tmp_path/state.json (or `state_file`); `admin_options`:
    more keys of its `admin` section, {key: value}."""
    state_file = state_file or tmp_path / "state.json"
    more = "".join(f"  {k}: {v}\n" for k, v in (admin_options or {}).items())
    vigil = Vigil(tmp_path, CONFIG.format(state_file=state_file) + more)
    cleanup(vigil)
    return vigil


def free_port():
    """A loopback port nothing listens on now (the kernel's pick, released at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def refused(port):
    """True when nothing accepts on 127.0.0.1:port."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return False
    except OSError:
        return True


class OpenStack:
    """`openstack --os-auth-type admin_token ... loadbalancer ARGS` against one vigil."""

    def __init__(self, vigil, token=TOKEN):
        self.base = [OPENSTACK, "--os-auth-type", "admin_token", "--os-token", token,
                     "--os-endpoint", f"http://{vigil.admin}", "loadbalancer"]
        # Loopback only: never through a proxy from the environment.
        self.env = dict(os.environ, no_proxy="127.0.0.1,localhost", NO_PROXY="127.0.0.1,localhost")
        for key in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
            self.env.pop(key, None)

    def run(self, *args, check=True):
        """Runs the command; returns the CompletedProcess (asserting success when `check`)."""
        done = subprocess.run(self.base + list(args), capture_output=True, text=True, timeout=60,
                              env=self.env)
        if check:
            assert done.returncode == 0, f"openstack loadbalancer {' '.join(args)}: {done.stderr}"
        return done

    def json(self, *args):
        """Runs a command that prints an object or a list, as JSON."""
        out = self.run(*args, "-f", "json").stdout
        return json.loads(out)

    def members(self, pool):
        return {m["name"]: m for m in self.json("member", "list", pool)}

    def wait_members(self, pool, status, names=None, timeout=20.0):
        """Waits until the named members (all by default) show `status` in `member list`."""
        def ready():
            members = self.members(pool)
            wanted = names or list(members)
            return all(members[n]["operating_status"] == status for n in wanted) and members
        return wait_for(ready, timeout, interval=0.3, what=f"members {names or 'all'} {status}")


def exchange(vigil, method, path, body=None, token=TOKEN, headers=None):
    """One HTTP request to the admin API; returns (status, headers, body text)."""
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    req = urllib.request.Request(f"http://{vigil.admin}{path}", data=data, method=method,
                                 headers=dict(headers or {}))
    if token is not None:
        req.add_header("X-Auth-Token", token)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with _opener.open(req, timeout=10) as r:
            return r.status, r.headers, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode()


def raw(vigil, method, path, body=None, token=TOKEN, headers=None):
    """One HTTP request to the admin API; returns (status, parsed JSON or None, or the text)."""
    code, _, text = exchange(vigil, method, path, body, token, headers)
    if not text:
        return code, None
    try:
        return code, json.loads(text)
    except ValueError:
        if code < 400:
            raise
        return code, text


def create(vigil, collection, kind, fields, path=None):
    """POSTs {kind: fields} to /v2.0/lbaas/COLLECTION; returns the object (asserting 201)."""
    code, body = raw(vigil, "POST", path or f"/v2.0/lbaas/{collection}", {kind: fields})
    assert code == 201, f"POST {collection}: {code} {body}"
    return body[kind]


def tcp_load_balancer(vigil, member_port, port=None, lb=None, listener=None, pool=None,
                      member=None):
    """Through vigil's API: a load balancer with one TCP listener on `port` (default: a free one),
    its ROUND_ROBIN pool and one member at 127.0.0.1:`member_port`; each dict adds fields to its
    object. Returns the four objects as vigil answered them."""
    made_lb = create(vigil, "loadbalancers", "loadbalancer", {"name": "k8s", **(lb or {})})
    made_listener = create(vigil, "listeners", "listener", {
        "loadbalancer_id": made_lb["id"], "protocol": "TCP",
        "protocol_port": port or free_port(), **(listener or {})})
    made_pool = create(vigil, "pools", "pool", {"listener_id": made_listener["id"], "protocol": "TCP",
                                                "lb_algorithm": "ROUND_ROBIN", **(pool or {})})
    made_member = create(vigil, None, "member",
                         {"address": "127.0.0.1", "protocol_port": member_port, **(member or {})},
                         path=f"/v2/lbaas/pools/{made_pool['id']}/members")
    return made_lb, made_listener, made_pool, made_member


def post_huge(vigil, path, size, token=TOKEN):
    """POSTs a body of `size` bytes on a raw socket (sending while reading, since vigil answers
    413 and closes before the body is through); returns (status, body text)."""
    import threading
    host, port = vigil.admin.rsplit(":", 1)
    head = (f"POST {path} HTTP/1.1\r\nHost: x\r\nX-Auth-Token: {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {size}\r\n\r\n").encode()
    with socket.create_connection((host, int(port)), timeout=10) as s:
        def send():
            try:
                s.sendall(head)
                chunk = b"x" * 65536
                for _ in range(size // len(chunk)):
                    s.sendall(chunk)
            except OSError:
                pass  # vigil closed after answering: expected
        t = threading.Thread(target=send, daemon=True)
        t.start()
        reply = b""
        try:
            while b"\r\n\r\n" not in reply or len(reply) < reply.find(b"\r\n\r\n") + 4 + _length(reply):
                data = s.recv(65536)
                if not data:
                    break
                reply += data
        except OSError:
            pass
        t.join(10)
    status = int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/") else 0
    return status, reply.partition(b"\r\n\r\n")[2].decode(errors="replace")


def _length(reply):
    for line in reply.partition(b"\r\n\r\n")[0].split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return int(line.split(b":", 1)[1])
    return 0
