"""A listener's allowed_cidrs between network namespaces, IPv4 and IPv6: two client namespaces,
each on a veth of its own to the load balancer's namespace; the list (in the YAML file) names the
first client's networks. From the first, both families are served; from the second, every
connection is closed at accept and the member never sees it. Then the list is changed at run time
(SIGHUP) to take in the second client too: its connections are served, and a session the first
client held open through the change keeps going.

  lb:        port-a 198.51.100.1/24, 2001:db8:a::1/64; port-b 198.51.101.1/24, 2001:db8:b::1/64;
             vigil (listeners on 0.0.0.0:7000 and [::]:7001) in front of an echo member on lo
  client-a:  eth0 198.51.100.2/24, 2001:db8:a::2/64
  client-b:  eth0 198.51.101.2/24, 2001:db8:b::2/64
"""
import signal
import socket
import sys

from testing.harness.netns import NetNS
from testing.harness.paths import VIGIL
from testing.harness.vigil_process import read_ready_file
from testing.harness.wait import wait_for
from node_harness import veth

ECHO = """
import socket, threading
s = socket.create_server(("127.0.0.1", 9000))
def serve(c):
    with c:
        while data := c.recv(65536):
            c.sendall(data)
while True:
    c, _ = s.accept()
    print("accepted", c.getpeername(), flush=True)
    threading.Thread(target=serve, args=(c,), daemon=True).start()
"""

CONFIG = """
admin:
  listen: 127.0.0.1:0
  token_file: {token}
listeners:
  - {{name: v4, bind: "0.0.0.0:7000", pool: echo, allowed_cidrs: [{cidrs}]}}
  - {{name: v6, bind: "[::]:7001", pool: echo, allowed_cidrs: [{cidrs}]}}
pools:
  - name: echo
    health_monitor: none
    members:
      - {{name: m1, address: 127.0.0.1, port: 9000}}
"""

A_NETS = "198.51.100.0/24, 2001:db8:a::/64"
B_NETS = "198.51.101.0/24, 2001:db8:b::/64"


def link(lb, client, port, v4, v6):
    """A veth from `client` (eth0) to `lb` (`port`), with the .1/::1 addresses on the load
    balancer's side and .2/::2 on the client's, each a route to the other."""
    veth(lb, port, client, f"{v4}.2/24", bridge=None)
    lb.run(["ip", "addr", "add", f"{v4}.1/24", "dev", port])
    lb.run(["ip", "-6", "addr", "add", f"{v6}::1/64", "dev", port, "nodad"])
    client.run(["ip", "-6", "addr", "add", f"{v6}::2/64", "dev", "eth0", "nodad"])


def echo(address, payload=b"ping", timeout=5):
    """What came back for `payload` before the close: b"" when vigil closed without a member."""
    family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(address)
        try:
            s.sendall(payload)
            s.shutdown(socket.SHUT_WR)
            got = b""
            while data := s.recv(65536):
                got += data
            return got
        except TimeoutError:
            raise  # a hang is no refusal
        except OSError:  # reset at accept (ECONNRESET, EPIPE, or ENOTCONN at the shutdown)
            return b""


def test_allowed_cidrs_between_namespaces_ipv4_and_ipv6_and_changed_at_run_time(netns, tmp_path):
    lb = netns
    a, b = NetNS(prefix="vigil-cidr-a"), NetNS(prefix="vigil-cidr-b")
    held = None
    try:
        link(lb, a, "port-a", "198.51.100", "2001:db8:a")
        link(lb, b, "port-b", "198.51.101", "2001:db8:b")
        member = lb.spawn([sys.executable, "-c", ECHO], tmp_path / "member.log")
        (tmp_path / "token").write_text("system-test-token\n")
        config = tmp_path / "vigil.yaml"
        config.write_text(CONFIG.format(token=tmp_path / "token", cidrs=A_NETS))
        ready = tmp_path / "vigil.ready"
        vigil = lb.spawn([VIGIL, "serve", "-c", config, "--ready-file", ready], tmp_path / "vigil.log")
        read_ready_file(ready, vigil)
        wait_for(lambda: a.call(echo, ("198.51.100.1", 7000)) == b"ping", 10,
                 what="client-a served over IPv4")
        assert member.poll() is None

        assert a.call(echo, ("2001:db8:a::1", 7001)) == b"ping"
        accepted = (tmp_path / "member.log").read_text().count("accepted")
        assert b.call(echo, ("198.51.101.1", 7000)) == b""
        assert b.call(echo, ("2001:db8:b::1", 7001)) == b""
        assert (tmp_path / "member.log").read_text().count("accepted") == accepted, \
            "a refused client reached the member"

        # A session of client-a's, open through the change.
        def open_session():
            s = socket.create_connection(("2001:db8:a::1", 7001), timeout=5)
            s.sendall(b"before")
            assert s.recv(100) == b"before"
            return s
        held = a.call(open_session)
        config.write_text(CONFIG.format(token=tmp_path / "token", cidrs=f"{A_NETS}, {B_NETS}"))
        vigil.send_signal(signal.SIGHUP)
        wait_for(lambda: b.call(echo, ("198.51.101.1", 7000)) == b"ping", 10,
                 what="client-b served once the list takes it in")
        assert b.call(echo, ("2001:db8:b::1", 7001)) == b"ping"

        def still_open(s):
            s.sendall(b"after")
            return s.recv(100)
        assert a.call(still_open, held) == b"after", "the change cut an allowed session"
    finally:
        if held is not None:
            held.close()
        a.destroy()
        b.destroy()
