"""`vigil convert` carries haproxy.cfg's source allow-list (an `acl ... src` and `tcp-request
connection reject unless`) over as the listener's allowed_cidrs, and names the rule it cannot
convert; the converted file, served, closes a client from outside the list and serves one inside."""
import subprocess

from test_allowed_cidrs import INSIDE, OUTSIDE, echo_from
from testing.harness.octavia_api import free_port
from testing.harness.paths import VIGIL
from testing.harness.vigil_process import EchoServer, Vigil
from testing.harness.wait import wait_for

HAPROXY_CFG = """frontend api
    bind 127.0.0.1:{port}
    acl trusted src 127.0.0.1/32 10.0.0.0/8
    tcp-request connection reject unless trusted
    default_backend masters
frontend other
    bind 127.0.0.1:{other}
    tcp-request connection reject if {{ src 203.0.113.0/24 }}
    default_backend masters
backend masters
    server m1 127.0.0.1:{backend} check inter 300ms
"""


def test_convert_writes_allowed_cidrs_and_reports_the_rest(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    port = free_port()
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(HAPROXY_CFG.format(port=port, other=free_port(), backend=backend.port))
    done = subprocess.run([str(VIGIL), "convert", str(cfg)], capture_output=True, text=True,
                          timeout=20)
    assert done.returncode == 0, done.stderr
    assert 'allowed_cidrs: ["127.0.0.1/32", "10.0.0.0/8"]' in done.stdout, done.stdout
    assert "haproxy.cfg:8: warning: not converted: `tcp-request connection reject if" \
        in done.stdout, done.stdout
    assert "haproxy.cfg:3" not in done.stdout, done.stdout  # the acl became allowed_cidrs

    text = done.stdout.replace("name: haproxy\n", "name: haproxy\nadmin:\n  listen: 127.0.0.1:0\n"
                                                  "  token_file: @TOKEN_FILE@\n", 1)
    vigil = Vigil(tmp_path, text)
    cleanup(vigil)
    vigil.wait_member("m1", "ONLINE")
    address = ("127.0.0.1", port)
    assert wait_for(lambda: echo_from(INSIDE, address) == b"ping", 10, what="an allowed client")
    assert echo_from(OUTSIDE, address) == b""
