"""Two vigils that are peers (`peers:`) on loopback: each streams its client sessions to the other,
a peer with the wrong token is refused, and a peer killed is lost, its sessions tickled here.

The peer ports are picked by the kernel (a socket bound to port 0, then closed) before the configs
are written, as the configs must name them."""
import re
import signal
import socket
from pathlib import Path

from test_metrics import samples, scrape
from testing.harness.octavia_api import free_port
from testing.harness.vigil_process import EchoServer, Vigil, closed_by_peer, hold
from testing.harness.wait import wait_for


def metric(vigil, name, **labels):
    """The first sample of `name` with `labels`, or None."""
    values = samples(scrape(vigil), name, **labels)
    return values[0] if values else None


def node_config(name, ports, echo_port, token_file):
    peers = "\n".join(f"  - {{name: {n}, address: 127.0.0.1, port: {p}}}" for n, p in ports.items())
    return f"""
peers:
{peers}
peers_auth: {{token_file: {token_file}}}
peer_name: {name}
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters}}
pools:
  - name: masters
    health_monitor: {{type: TCP, interval: 200ms}}
    members: [{{name: m, address: 127.0.0.1, port: {echo_port}}}]
"""


def start_pair(tmp_path, cleanup, tokens=("shared", "shared")):
    echo = EchoServer()
    cleanup(echo)
    ports = {"a": free_port(), "b": free_port()}
    nodes = {}
    for name, token in zip(ports, tokens):
        d = tmp_path / name
        d.mkdir()
        (d / "peers.token").write_text(token + "\n")
        (d / "peers.token").chmod(0o600)
        nodes[name] = Vigil(d, node_config(name, ports, echo.port, d / "peers.token"))
        cleanup(nodes[name])
    for v in nodes.values():
        v.wait_member("m", "ONLINE")
    return nodes["a"], nodes["b"]


def test_each_node_knows_the_others_sessions(tmp_path, cleanup):
    a, b = start_pair(tmp_path, cleanup)
    wait_for(lambda: metric(b, "vigil_peer_up", peer="a", direction="receive") == 1, 10,
             what="a's stream to b up")
    sessions = [hold(a, b"one"), hold(a, b"two")]
    wait_for(lambda: metric(b, "vigil_peer_sessions", peer="a") == 2, 5, what="b knowing a's 2 sessions")
    assert metric(a, "vigil_peer_sessions_sent") == 2
    status = b.cli("status")
    assert re.search(r"peer a 127\.0\.0\.1:\d+: sending up, receiving up, 2 sessions known\n", status.stdout), \
        status.stdout + status.stderr
    sessions.pop().close()
    wait_for(lambda: metric(b, "vigil_peer_sessions", peer="a") == 1, 5, what="b hearing one closed")
    sessions.pop().close()


def test_a_peer_without_the_token_is_refused(tmp_path, cleanup):
    a, b = start_pair(tmp_path, cleanup, tokens=("right", "wrong"))
    wait_for(lambda: (metric(b, "vigil_peer_refused_total", peer="a") or 0) >= 1, 10,
             what="b refusing a's proof")
    kept = hold(a, b"x")
    assert metric(b, "vigil_peer_up", peer="a", direction="receive") == 0
    assert metric(b, "vigil_peer_sessions", peer="a") == 0
    # a checks b's proof first, and b's is of another token: a says so, once however often it tries.
    wait_for(lambda: "the stream to a closed: gave no valid proof of the peers token" in b.log_text()
             and "the stream to b closed: gave no valid proof of the peers token" in a.log_text(), 5,
             what="both nodes naming the bad proof")
    kept.close()


def test_a_peer_killed_is_lost_and_its_sessions_are_tickled(tmp_path, cleanup):
    a, b = start_pair(tmp_path, cleanup)
    s = hold(a, b"held")
    wait_for(lambda: metric(b, "vigil_peer_sessions", peer="a") == 1, 10, what="b knowing a's session")
    a.proc.send_signal(signal.SIGKILL)
    a.proc.wait(timeout=10)
    wait_for(lambda: closed_by_peer(s), 5, what="the session closed by a's kernel")
    # b holds 127.0.0.1, the address of a's session: a is lost, its session tickled from here.
    wait_for(lambda: metric(b, "vigil_peer_lost_total", peer="a") == 1, 5, what="b losing a")
    assert metric(b, "vigil_peer_sessions_tickled_total", peer="a") == 1
    assert metric(b, "vigil_peer_sessions", peer="a") == 0
    assert "peer a lost" in b.log_text()


def test_docs_list_exactly_the_peer_families_served(tmp_path, cleanup):
    a, _ = start_pair(tmp_path, cleanup)
    code, body = a.get("/metrics")
    served = {f for f in re.findall(r"^# TYPE (\S+) ", body, re.M) if f.startswith("vigil_peer_")}
    text = (Path(__file__).resolve().parents[2] / "docs/metrics.md").read_text()
    documented = set(re.findall(r"^\| `(vigil_peer_[a-z_]+)` \|", text, re.M))
    assert served and served == documented


def test_garbage_and_a_flood_of_strangers_are_refused_and_vigil_serves_on(tmp_path, cleanup):
    a, b = start_pair(tmp_path, cleanup)
    wait_for(lambda: metric(b, "vigil_peer_up", peer="a", direction="receive") == 1, 10,
             what="a's stream to b up")
    port = int(re.search(r"listening on 127\.0\.0\.1:(\d+)", b.log_text()).group(1))
    # 40 connections that never prove anything (more than the 16 allowed to wait), then garbage:
    # a frame of an unknown type, and a length past the 1 MiB bound.
    idle = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(40)]
    for payload in (b"\x00\x00\x00\x01\x63", b"\x7f\xff\xff\xff\x04" + b"x" * 100):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(payload)
            wait_for(lambda: closed_by_peer(s), 5, what="the garbage sender disconnected")
    kept = hold(a, b"still")  # held open: a session closes with its socket
    wait_for(lambda: metric(b, "vigil_peer_sessions", peer="a") == 1, 5, what="a's stream unharmed")
    # While the strangers wait, a new stream still gets in: b restarts its side of a's stream.
    lost_before = metric(b, "vigil_peer_lost_total", peer="a")
    a.proc.send_signal(signal.SIGSTOP)  # silent for over 1 s: b loses a, and closes its stream
    try:
        wait_for(lambda: metric(b, "vigil_peer_lost_total", peer="a") == lost_before + 1, 5,
                 what="b losing the stopped a")
    finally:
        a.proc.send_signal(signal.SIGCONT)
    wait_for(lambda: metric(b, "vigil_peer_up", peer="a", direction="receive") == 1, 5,
             what="a's new stream past the waiting strangers")
    # b tickled a's session when it lost a (b holds 127.0.0.1 too), but the client's answer went to
    # a's kernel, which has the session: a tickle never ends a session that is alive.
    assert metric(b, "vigil_peer_sessions_tickled_total", peer="a") == 1
    kept.sendall(b"again")
    assert kept.recv(100) == b"again"
    code, _ = b.get("/healthz", token=None)
    assert code == 200
    for s in idle + [kept]:
        s.close()
