"""accept_proxy: vigil behind HAProxy's send-proxy-v2 uses the real client's address and passes
it on to a v2 receiver; bad headers, slow headers and untrusted sources are refused, with a
bounded number of log lines."""
import json
import re
import socket
import time
import uuid

from proxy_receivers import HaproxySender, Nginx, closed_within, http_get, wait_logged
from testing.harness.vigil_process import Vigil
from testing.harness.wait import wait_for


def config(member_port, trusted="[127.0.0.1/32, \"::1\"]", extra_listener=""):
    return f"""
admin: {{listen: 127.0.0.1:0, token_file: @TOKEN_FILE@}}
workers: 1
listeners:
  - name: edge
    bind: "127.0.0.1:0"
    pool: routers
    accept_proxy: true
    trusted_sources: {trusted}
    log_connections: true
{extra_listener}
pools:
  - name: routers
    proxy_protocol: v2
    health_monitor: {{type: HTTP, path: /healthz, interval: 1s, send_proxy: true}}
    members:
      - {{name: r1, address: 127.0.0.1, port: {member_port}}}
"""


def start(tmp_path, cleanup, **kwargs):
    rx = Nginx(tmp_path)
    cleanup(rx)
    vigil = Vigil(tmp_path, config(rx.port, **kwargs))
    cleanup(vigil)
    vigil.wait_member("r1", "ONLINE")
    return rx, vigil


def test_behind_haproxy_the_real_client_reaches_the_member(tmp_path, cleanup):
    rx, vigil = start(tmp_path, cleanup)
    front = HaproxySender(tmp_path, vigil.listener("edge")[1])
    cleanup(front)
    for host in ("127.0.0.1", "::1"):
        path = f"/{uuid.uuid4().hex}"
        client, answer = http_get(host, front.port, path)
        assert answer.startswith(b"HTTP/1.1 200"), answer
        # NGINX logs the address HAProxy's header told vigil, not HAProxy's own connection.
        wait_logged(rx, f"{client[0]} {client[1]} {path}")


def test_a_header_of_a_claimed_address_is_passed_on(tmp_path, cleanup):
    rx, vigil = start(tmp_path, cleanup)
    host, port = vigil.listener("edge")
    path = f"/{uuid.uuid4().hex}"
    with socket.create_connection((host, port), timeout=5) as s:
        s.sendall(b"PROXY TCP6 2001:db8::7 2001:db8::1 40001 443\r\n"
                  + f"GET {path} HTTP/1.0\r\n\r\n".encode())
        answer = b""
        while data := s.recv(4096):
            answer += data
    assert answer.startswith(b"HTTP/1.1 200"), answer
    wait_logged(rx, f"2001:db8::7 40001 {path}")
    # vigil's own connection log names the same client.
    wait_for(lambda: "connection listener edge client [2001:db8::7]:40001 " in vigil.log_text(), 5,
             what="the session's connection log line")


def test_sessions_show_the_address_of_the_header(tmp_path, cleanup):
    rx, vigil = start(tmp_path, cleanup)
    with socket.create_connection(vigil.listener("edge"), timeout=5) as s:
        # A request NGINX waits on: the session stays open while vigil is asked.
        s.sendall(b"PROXY TCP4 198.51.100.9 192.0.2.1 40009 80\r\nGET /held HTTP/1.1\r\n")

        def listed():
            code, body = vigil.get("/v1/sessions")
            assert code == 200, body
            return [row["client"] for row in json.loads(body)["sessions"]]
        wait_for(lambda: "198.51.100.9:40009" in listed(), 5, what="the session in /v1/sessions")


def refused(vigil, listener):
    """vigil_listener_proxy_refused_total of `listener` in /metrics, by reason."""
    code, body = vigil.get("/metrics")
    assert code == 200, body
    out = {}
    for m in re.finditer(r'^vigil_listener_proxy_refused_total\{([^}]*)\} (\d+)$', body, re.M):
        if f'listener="{listener}"' in m.group(1):
            out[re.search(r'reason="(\w+)"', m.group(1)).group(1)] = int(m.group(2))
    return out


def refused_lines(vigil):
    return [line for line in vigil.log_text().splitlines() if "closed a connection from" in line]


def test_bad_headers_are_refused_with_one_log_line(tmp_path, cleanup):
    rx, vigil = start(tmp_path, cleanup)
    host, port = vigil.listener("edge")
    for bad in (b"GET / HTTP/1.0\r\n\r\n", b"PROXY TCP4 1.2.3.4 5.6.7.8 99999 1\r\n",
                b"\r\n\r\n\x00\r\nQUIT\n\x21\x11\xff\xff"):
        with socket.create_connection((host, port), timeout=5) as s:
            s.sendall(bad)
            closed_within(s, 5)
    wait_for(lambda: refused_lines(vigil), 5, what="the refusal's log line")
    lines = refused_lines(vigil)
    assert "not a PROXY protocol header" in lines[0], lines
    # One worker, within 10 s: the other two are counted, not logged.
    assert len(lines) == 1, lines
    # The log line names one; the counter has all three.
    assert refused(vigil, "edge") == {"untrusted": 0, "invalid": 3, "timeout": 0}
    # Nothing reached the member but the checks (which ask for /healthz).
    assert not [line for line in rx.lines() if line.split()[-1] == "/"], rx.lines()


def test_a_slow_header_is_closed_after_the_timeout(tmp_path, cleanup):
    extra = """  - name: slow
    bind: "127.0.0.1:0"
    pool: routers
    accept_proxy: true
    trusted_sources: [127.0.0.0/8]
    proxy_header_timeout: 500ms
"""
    rx, vigil = start(tmp_path, cleanup, extra_listener=extra)
    host, port = vigil.listener("slow")
    with socket.create_connection((host, port), timeout=5) as s:
        start_time = time.monotonic()
        s.sendall(b"PROXY TCP4 192.0.2.1 ")
        closed_within(s, 5)
        elapsed = time.monotonic() - start_time
    assert 0.4 <= elapsed < 4, elapsed
    wait_for(lambda: refused_lines(vigil), 5, what="the timeout's log line")
    assert "no complete PROXY header in time" in refused_lines(vigil)[0]
    assert refused(vigil, "slow") == {"untrusted": 0, "invalid": 0, "timeout": 1}


def test_an_untrusted_source_is_refused_whatever_it_claims(tmp_path, cleanup):
    rx, vigil = start(tmp_path, cleanup, trusted="[192.0.2.10/32]")
    host, port = vigil.listener("edge")
    with socket.create_connection((host, port), timeout=5) as s:
        s.sendall(b"PROXY TCP4 198.51.100.7 192.0.2.1 40000 443\r\nGET /x HTTP/1.0\r\n\r\n")
        assert closed_within(s, 5) < 4
    wait_for(lambda: refused_lines(vigil), 5, what="the refusal's log line")
    assert "127.0.0.1" in refused_lines(vigil)[0] and "not in trusted_sources" in refused_lines(vigil)[0]
    assert not [line for line in rx.lines() if "198.51.100.7" in line], rx.lines()
    assert refused(vigil, "edge") == {"untrusted": 1, "invalid": 0, "timeout": 0}
