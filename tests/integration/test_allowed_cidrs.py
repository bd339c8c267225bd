"""A listener's allowed_cidrs, from the YAML file and through the Octavia API: a client from
127.0.0.2 (outside the list) is closed at accept and never reaches the member, one from
127.0.0.1 is served, and changing the list keeps the sessions it still allows."""
import re
import signal
import socket
import subprocess

from testing.harness.octavia_api import free_port, raw, start_vigil, tcp_load_balancer
from testing.harness.paths import VIGIL
from testing.harness.vigil_process import EchoServer, Vigil
from testing.harness.wait import wait_for

INSIDE, OUTSIDE = "127.0.0.1", "127.0.0.2"


def echo_from(source, address, payload=b"ping", timeout=5):
    """Connects from `source` (an address on lo), sends `payload`; returns what came back before
    the close (b"" when vigil closed the connection without passing it on)."""
    family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.bind((source, 0))
        s.connect(address)
        try:
            s.sendall(payload)
            got = b""
            while len(got) < len(payload):
                data = s.recv(65536)
                if not data:
                    break
                got += data
            return got
        except (ConnectionResetError, BrokenPipeError):
            return b""


def hold_from(source, address):
    """An open session from `source`, proven by one echo."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(5)
    s.bind((source, 0))
    s.connect(address)
    s.sendall(b"hold")
    assert s.recv(100) == b"hold"
    return s


class Closing:
    """A socket for `cleanup`, which calls stop()."""

    def __init__(self, s):
        self.s = s

    def stop(self):
        self.s.close()


def still_echoes(s):
    s.sendall(b"again")
    return s.recv(100) == b"again"


def refused_count(vigil):
    code, text = vigil.get("/metrics")
    assert code == 200
    m = re.search(r'vigil_listener_connections_refused_total\{[^}]*reason="allowed_cidrs"\} (\d+)',
                  text)
    return int(m.group(1)) if m else None


YAML = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
listeners:
  - name: api
    bind: "127.0.0.1:{port}"
    pool: masters
    allowed_cidrs: [{cidrs}]
pools:
  - name: masters
    health_monitor: {{type: TCP, interval: 1s}}
    members:
      - {{name: m1, address: 127.0.0.1, port: {member}}}
"""


def test_yaml_allowed_cidrs_keep_outsiders_from_the_member_and_reload(tmp_path, cleanup):
    echo = EchoServer()
    cleanup(echo)
    port = free_port()
    vigil = Vigil(tmp_path, YAML.format(port=port, cidrs="127.0.0.1/32", member=echo.port))
    cleanup(vigil)
    vigil.wait_member("m1", "ONLINE")
    address = ("127.0.0.1", port)
    assert echo_from(INSIDE, address) == b"ping"
    served = echo.accepted
    for _ in range(3):
        assert echo_from(OUTSIDE, address) == b""
    assert echo.accepted == served, "a refused client reached the member"
    assert refused_count(vigil) == 3

    # A reload that adds 127.0.0.2 keeps the open session from 127.0.0.1 and lets 127.0.0.2 in.
    held = hold_from(INSIDE, address)
    cleanup(Closing(held))
    text = vigil.config.read_text().replace("[127.0.0.1/32]", "[127.0.0.1/32, 127.0.0.2]")
    vigil.config.write_text(text)
    vigil.proc.send_signal(signal.SIGHUP)
    wait_for(lambda: echo_from(OUTSIDE, address) == b"ping", 10,
             what="127.0.0.2 let in after the reload")
    assert still_echoes(held)


def test_yaml_bad_allowed_cidrs_name_their_line(tmp_path):
    (tmp_path / "token").write_text("t\n")
    config = tmp_path / "bad.yaml"
    config.write_text(YAML.replace("@TOKEN_FILE@", str(tmp_path / "token")).format(
        port=1, cidrs="127.0.0.1/33", member=2))
    done = subprocess.run([str(VIGIL), "check", "-c", str(config)], capture_output=True,
                          text=True, timeout=20)
    assert done.returncode == 1
    assert "bad.yaml:9" in done.stdout + done.stderr, done.stdout + done.stderr
    assert "the prefix length must be 0..32" in done.stdout + done.stderr


def api_listener(tmp_path, cleanup, vip, cidrs):
    echo = EchoServer()
    cleanup(echo)
    vigil = start_vigil(tmp_path, cleanup)
    _, listener, _, _ = tcp_load_balancer(vigil, echo.port, lb={"vip_address": vip},
                                          listener={"allowed_cidrs": cidrs})
    return vigil, echo, listener, listener["protocol_port"]


def test_api_allowed_cidrs_keep_outsiders_out_and_change_at_run_time(tmp_path, cleanup):
    vigil, echo, listener, port = api_listener(tmp_path, cleanup, "127.0.0.1",
                                               ["127.0.0.1/32"])
    assert listener["allowed_cidrs"] == ["127.0.0.1/32"]
    address = ("127.0.0.1", port)
    wait_for(lambda: echo_from(INSIDE, address) == b"ping", 10, what="the API's listener serving")
    served = echo.accepted
    assert echo_from(OUTSIDE, address) == b""
    assert echo.accepted == served
    assert refused_count(vigil) == 1

    path = f"/v2/lbaas/listeners/{listener['id']}"
    # Bad values: 400 and the listener as it was.
    for bad, words in ((["127.0.0.0/33"], "Value should be IPv4 or IPv6 CIDR format"),
                       ("127.0.0.0/8", "Expected a list of strings"),
                       ([f"10.{i // 256}.{i % 256}.0/24" for i in range(1001)], "at most 1000"),
                       (["::1/128"], "IP version incompatible with VIP 127.0.0.1")):
        code, body = raw(vigil, "PUT", path, {"listener": {"allowed_cidrs": bad, "name": "x"}})
        assert code == 400 and words in body["faultstring"], (bad, code, body)
    code, shown = raw(vigil, "GET", path)
    assert shown["listener"]["allowed_cidrs"] == ["127.0.0.1/32"]
    assert shown["listener"]["name"] == ""

    held = hold_from(INSIDE, address)
    cleanup(Closing(held))
    code, body = raw(vigil, "PUT", path,
                     {"listener": {"allowed_cidrs": ["127.0.0.2", "127.0.0.1/32"]}})
    assert code == 200, body
    assert body["listener"]["allowed_cidrs"] == ["127.0.0.2/32", "127.0.0.1/32"]
    wait_for(lambda: echo_from(OUTSIDE, address) == b"ping", 10, what="127.0.0.2 let in")
    assert still_echoes(held)

    # Null lets every client in again.
    code, body = raw(vigil, "PUT", path, {"listener": {"allowed_cidrs": None}})
    assert code == 200 and body["listener"]["allowed_cidrs"] is None, body


def test_api_allowed_cidrs_on_ipv6(tmp_path, cleanup):
    vigil, echo, listener, port = api_listener(tmp_path, cleanup, "::1", ["fd00::/8"])
    address = ("::1", port)
    path = f"/v2/lbaas/listeners/{listener['id']}"

    def outside_refused():
        try:
            return echo_from("::1", address) == b"" and refused_count(vigil) >= 1
        except OSError:
            return False  # not listening yet
    wait_for(outside_refused, 10, what="::1 refused by allowed_cidrs fd00::/8")
    assert echo.accepted == 0
    code, body = raw(vigil, "PUT", path, {"listener": {"allowed_cidrs": ["::1"]}})
    assert code == 200 and body["listener"]["allowed_cidrs"] == ["::1/128"], body
    wait_for(lambda: echo_from("::1", address) == b"ping", 10, what="::1 let in")
