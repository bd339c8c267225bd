"""A pool's session_persistence SOURCE_IP, through the real binary: clients from 127.0.0.1,
127.0.0.2, 127.0.0.3 (and more loopback addresses) keep their member when a member is added,
whereas `algorithm: source_ip` alone (a hash) moves some of them; a client whose member goes
down is sent to another and stays there when it comes back. Several workers, so that one
client's connections land on different threads. The same through the Octavia API, whose pool
keeps its session_persistence across a restart."""
import itertools
import re
import signal

from testing.harness.octavia_api import create, free_port, raw, start_vigil, tcp_load_balancer
from testing.harness.vigil_process import Vigil
from testing.harness.wait import wait_for
from testing.harness.who_server import WhoServer, who_from

CLIENTS = [f"127.0.0.{i}" for i in range(1, 25)]
# Addresses never used before: a newcomer is stuck to whatever it reached, so each try takes new
# ones.
_fresh = itertools.count(1)


def newcomers(n=30):
    return [f"127.1.{i // 250}.{i % 250 + 1}" for i in (next(_fresh) for _ in range(n))]


def reaches_newcomer(address, name):
    """Whether some client never seen before reaches `name`: the workers have it in rotation."""
    return any(who_from(c, address) == name for c in newcomers())

YAML = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
workers: 4
listeners:
  - name: api
    bind: "127.0.0.1:{port}"
    pool: masters
pools:
  - name: masters
    algorithm: source_ip
{persistence}
    health_monitor: {{type: TCP, interval: 1s, fast_interval: 200ms}}
    members:
{members}
"""

PERSISTENCE = "    session_persistence: {type: SOURCE_IP, timeout: 360s}"


def members_yaml(servers):
    return "\n".join(f"      - {{name: {s.name}, address: 127.0.0.1, port: {s.port}}}"
                     for s in servers)


def start(tmp_path, cleanup, persistence, servers):
    tmp_path.mkdir(exist_ok=True)
    port = free_port()
    vigil = Vigil(tmp_path, YAML.format(port=port, persistence=persistence,
                                        members=members_yaml(servers)))
    cleanup(vigil)
    for s in servers:
        vigil.wait_member(s.name, "ONLINE")
    return vigil, ("127.0.0.1", port)


def placements(address, clients, times=4):
    """Each client's member, asked `times` times (new connections land on any worker)."""
    out = {}
    for c in clients:
        seen = {who_from(c, address) for _ in range(times)}
        assert len(seen) == 1, f"{c} reached {seen}"
        out[c] = seen.pop()
    return out


def add_member(vigil, address, servers, new):
    vigil.config.write_text(vigil.config.read_text().replace(
        members_yaml(servers), members_yaml(servers + [new])))
    vigil.proc.send_signal(signal.SIGHUP)
    vigil.wait_member(new.name, "ONLINE")
    # The workers have the new member once a new client can reach it.
    wait_for(lambda: reaches_newcomer(address, new.name), 10, what=f"a new client on {new.name}")


def persistence_entries(vigil):
    """vigil_pool_persistence_entries of pool masters, or None when it has none."""
    code, text = vigil.get("/metrics")
    assert code == 200
    m = re.search(r'^vigil_pool_persistence_entries\{[^}]*pool="masters"[^}]*\} (\d+)', text, re.M)
    return int(m.group(1)) if m else None


def servers(cleanup, names):
    out = [WhoServer(n) for n in names]
    for s in out:
        cleanup(s)
    return out


def test_adding_a_member_moves_no_stuck_client_but_moves_hashed_ones(tmp_path, cleanup):
    a, b, c, d = servers(cleanup, ["a", "b", "c", "d"])
    sticky, sticky_address = start(tmp_path / "sticky", cleanup, PERSISTENCE, [a, b, c])
    hashed, hashed_address = start(tmp_path / "hashed", cleanup, "", [a, b, c])
    before_sticky = placements(sticky_address, CLIENTS)
    before_hashed = placements(hashed_address, CLIENTS)
    assert set(before_sticky.values()) == {"a", "b", "c"}

    add_member(sticky, sticky_address, [a, b, c], d)
    add_member(hashed, hashed_address, [a, b, c], d)

    assert placements(sticky_address, CLIENTS) == before_sticky
    assert len(CLIENTS) <= persistence_entries(sticky) <= 10000
    assert persistence_entries(hashed) is None  # a pool without persistence has no table
    after_hashed = placements(hashed_address, CLIENTS)
    moved = [cl for cl in CLIENTS if after_hashed[cl] != before_hashed[cl]]
    assert moved, "hashing moved nobody: the comparison shows nothing"
    assert all(after_hashed[cl] == "d" for cl in moved)


def test_a_client_whose_member_is_down_is_stuck_to_another(tmp_path, cleanup):
    a, b, c = servers(cleanup, ["a", "b", "c"])
    vigil, address = start(tmp_path, cleanup, PERSISTENCE, [a, b, c])
    before = placements(address, CLIENTS[:3])
    client = CLIENTS[0]
    gone = {"a": a, "b": b, "c": c}[before[client]]
    gone.stop()
    vigil.wait_member(gone.name, "ERROR")
    after = placements(address, [client])[client]
    assert after not in ("", gone.name)
    back = WhoServer(gone.name, gone.port)
    cleanup(back)
    vigil.wait_member(gone.name, "ONLINE")
    wait_for(lambda: reaches_newcomer(address, gone.name), 10, what=f"{gone.name} back in rotation")
    # Stuck anew: the member coming back does not take its client back.
    assert placements(address, [client])[client] == after


def test_octavia_pool_with_source_ip_persistence(tmp_path, cleanup):
    """Through the Octavia API: accepted and shown as Octavia shows it, cookie types refused in
    Octavia's words, carried out on traffic, and still there after a restart (the state file)."""
    a, b, c, d = servers(cleanup, ["a", "b", "c", "d"])
    vigil = start_vigil(tmp_path, cleanup)
    persistence = {"type": "SOURCE_IP", "persistence_timeout": 600}
    _, listener, pool, _ = tcp_load_balancer(
        vigil, a.port, pool={"session_persistence": persistence}, member={"name": "a"})
    assert pool["session_persistence"] == {"type": "SOURCE_IP", "cookie_name": None,
                                           "persistence_timeout": 600,
                                           "persistence_granularity": None}
    members = f"/v2/lbaas/pools/{pool['id']}/members"
    for s in (b, c):
        create(vigil, None, "member", {"address": "127.0.0.1", "protocol_port": s.port,
                                       "name": s.name}, path=members)
    address = ("127.0.0.1", listener["protocol_port"])
    for s in (a, b, c):
        wait_for(lambda s=s: reaches_newcomer(address, s.name), 10, what=f"{s.name} in rotation")
    before = placements(address, CLIENTS)

    code, body = raw(vigil, "PUT", f"/v2/lbaas/pools/{pool['id']}",
                     {"pool": {"session_persistence": {"type": "HTTP_COOKIE"}}})
    assert code == 400, body
    assert ("Session persistence of type HTTP_COOKIE is not supported for TCP protocol pools."
            in body["faultstring"])

    create(vigil, None, "member", {"address": "127.0.0.1", "protocol_port": d.port, "name": "d"},
           path=members)
    wait_for(lambda: reaches_newcomer(address, "d"), 10, what="d in rotation")
    assert placements(address, CLIENTS) == before

    vigil.stop()
    again = start_vigil(tmp_path, cleanup)
    code, shown = raw(again, "GET", f"/v2/lbaas/pools/{pool['id']}")
    assert code == 200, shown
    assert shown["pool"]["session_persistence"]["persistence_timeout"] == 600
