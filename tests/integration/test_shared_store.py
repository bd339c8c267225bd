"""One API for a pair or a fleet (admin.store type etcd), with real etcd members on loopback and
two vigil nodes: a load balancer made through node A is served by node B, whose API answers it
alike, and B keeps serving it after A is killed; writes to one pool through both nodes at once
lose nothing (each acknowledged write is there, each refused one got 409); with all of etcd
stopped, client traffic goes on, writes get 503 naming the store, a node restarted meanwhile
serves its last state, and everything converges when etcd is back; with the etcd leader killed
during writes, no acknowledged write is lost and none is there twice; a wrong CA and a value
that is not vigil's give clear errors and change nothing; mutual TLS works, another CA is named,
and TLS files that do not load are refused at their line; members have keys of their own, a
prefix written with members inside their load balancer (vigil before 2026-12-05) loads and moves
them there on the next write, and a deleted load balancer leaves no key behind.

Both nodes bind the load balancers' listeners on 127.0.0.1 with SO_REUSEPORT, as every vigil
listener does, so that either can answer; a test that must know which answers kills the other.
"""
import base64
import json
import re
import shutil
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

from testing.harness.etcd import EtcdCluster
from testing.harness.octavia_api import create, exchange, free_port, raw, tcp_load_balancer
from testing.harness.paths import ROOT, VIGIL
from testing.harness.pki import make_ca, make_cert
from testing.harness.vigil_process import EchoServer, Vigil, echo_once
from testing.harness.wait import wait_for

NODE = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
  state_file: {state}
{store}listeners:
  - {{name: own, bind: "127.0.0.1:0", pool: own}}
pools:
  - name: own
    health_monitor: none
    members:
      - {{name: m1, address: 127.0.0.1, port: 9}}
"""
STORE = """  store:
    type: etcd
    endpoints: [{endpoints}]
    prefix: /vigil/test/
    timeout: 1s
    {tls}
"""


def config(state, endpoints=None, tls=""):
    """A node's config: its state file, and etcd's endpoints (none: the state file alone)."""
    store = STORE.format(endpoints=endpoints, tls=tls) if endpoints else ""
    return NODE.format(state=state, store=store)


def started_etcd(tmp_path, cleanup, members):
    etcd = EtcdCluster(tmp_path / "etcd", members=members)
    cleanup(SimpleNamespace(stop=etcd.stop_all))
    etcd.wait_ready(30)
    return etcd


def node(tmp_path, name, etcd, tls=""):
    d = tmp_path / name
    d.mkdir(exist_ok=True)
    return Vigil(d, config(d / "state.json", ", ".join(etcd.endpoints), tls))


def following_pair(tmp_path, cleanup, etcd):
    """Nodes A and B on `etcd`, once both follow it."""
    a, b = node(tmp_path, "a", etcd), node(tmp_path, "b", etcd)
    cleanup(a)
    cleanup(b)
    wait_for(lambda: following(a) and following(b), 10, what="both nodes following etcd")
    return a, b


def serving(vigil, port):
    """The node's listener on `port` bound and its pool's members all in rotation."""
    lbs = vigil.status()["loadbalancers"]
    listeners = [ln for lb in lbs for ln in lb["listeners"] if ln["bound"].endswith(f":{port}")]
    members = [m for lb in lbs for p in lb["pools"] for m in p["members"]]
    return (len(listeners) == 1 and listeners[0]["operating_status"] == "ONLINE" and members
            and all(m["in_rotation"] for m in members))


def store(vigil):
    return vigil.status()["store"]


def following(vigil):
    s = store(vigil)
    return s["following"] and s


def seed_objects(vigil, backend_port, listen_port):
    """The seed's load balancer through `vigil`'s API: ids of each object."""
    lb, listener, pool, member = tcp_load_balancer(
        vigil, backend_port, listen_port, lb={"vip_address": "127.0.0.1"}, listener={"name": "api"},
        pool={"name": "masters"}, member={"name": "master-01"})
    return {"loadbalancers": lb["id"], "listeners": listener["id"], "pools": pool["id"],
            "member": member["id"]}


def shown(vigil, ids):
    """What `vigil`'s API answers for each object, without the fields a node's own checks set."""
    out = {}
    for kind in ("loadbalancers", "listeners", "pools"):
        code, body = raw(vigil, "GET", f"/v2.0/lbaas/{kind}/{ids[kind]}")
        assert code == 200, (kind, code, body)
        out[kind] = body
    code, body = raw(vigil, "GET", f"/v2.0/lbaas/pools/{ids['pools']}/members/{ids['member']}")
    assert code == 200, body
    out["member"] = body
    for o in out.values():
        for v in o.values():
            v.pop("operating_status", None)
    return out


def test_a_write_on_one_node_is_served_by_the_other(tmp_path, cleanup):
    etcd = started_etcd(tmp_path, cleanup, 3)
    a, b = following_pair(tmp_path, cleanup, etcd)
    backend = EchoServer()
    cleanup(backend)
    port = free_port()
    ids = seed_objects(a, backend.port, port)
    acknowledged = time.monotonic()
    wait_for(lambda: raw(b, "GET", f"/v2.0/lbaas/pools/{ids['pools']}/members/{ids['member']}")[0]
             == 200, 1.0, interval=0.01, what="B serving the member made on A within 1 s")
    took = time.monotonic() - acknowledged
    print(f"the member made on A was served by B after {took:.3f} s")
    assert shown(a, ids) == shown(b, ids)
    # A is gone: the listener made through A is served by B.
    a.proc.kill()
    a.proc.wait(timeout=10)
    assert echo_once("127.0.0.1", port, b"ping") == b"ping"
    s = store(b)
    assert s["reachable"] and s["followed_changes"] >= 4 and s["bad_values"] == 0, s
    code, headers, _ = exchange(b, "GET", "/v2.0/lbaas/loadbalancers")
    assert code == 200 and headers["X-Vigil-Store-Age"] == "0"
    # The store's families: each documented in docs/metrics.md, and promtool finds nothing to say.
    code, metrics = b.get("/metrics")
    assert code == 200
    served = set(re.findall(r"^# TYPE (vigil_store_\S+) ", metrics, re.M))
    documented = {f for f in re.findall(r"^\| `([a-z_:]+)` \|", (ROOT / "docs/metrics.md").read_text(),
                                        re.M) if f.startswith("vigil_store_")}
    assert served == documented
    if shutil.which("promtool"):
        done = subprocess.run(["promtool", "check", "metrics"], input=metrics, capture_output=True,
                              text=True, timeout=30)
        assert done.returncode == 0 and not (done.stdout + done.stderr).strip(), done.stdout + done.stderr


def test_writes_to_one_pool_through_both_nodes_at_once_lose_nothing(tmp_path, cleanup):
    etcd = started_etcd(tmp_path, cleanup, 3)
    a, b = following_pair(tmp_path, cleanup, etcd)
    ids = seed_objects(a, 9, free_port())
    members = f"/v2.0/lbaas/pools/{ids['pools']}/members"
    wait_for(lambda: raw(b, "GET", members)[0] == 200, 5, what="B holding the pool")
    results = {"a": [], "b": []}

    def writer(name, vigil, first_port):
        for i in range(200):
            code, body = raw(vigil, "POST", members, {"member": {
                "address": "127.0.0.2", "protocol_port": first_port + i, "name": f"{name}{i}"}})
            results[name].append((f"{name}{i}", code, body))

    threads = [threading.Thread(target=writer, args=("a", a, 10000)),
               threading.Thread(target=writer, args=("b", b, 20000))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
        assert not t.is_alive(), "writes still going after 120 s"
    outcomes = [o for r in results.values() for o in r]
    made = {name for name, code, _ in outcomes if code == 201}
    conflicts = [body for _, code, body in outcomes if code == 409]
    # A 503 is etcd not committing in time (an election on a loaded machine): such a write may or
    # may not have been made, and says so.
    unknown = {name for name, code, _ in outcomes if code == 503}
    print(f"{len(made)} acknowledged, {len(conflicts)} refused with 409, {len(unknown)} with 503")
    assert {code for _, code, _ in outcomes} <= {201, 409, 503}, outcomes[:3]
    assert all("another vigil node changed it" in b["faultstring"] for b in conflicts), conflicts[:3]
    assert all("may still have been made" in body["faultstring"]
               for _, code, body in outcomes if code == 503)
    assert len(made) >= 200  # at least one node's writes mostly get through

    def listed(vigil):
        code, body = raw(vigil, "GET", members + "?limit=1000")
        assert code == 200, body
        return sorted(m["name"] for m in body["members"] if m["id"] != ids["member"])

    def alike():
        on_a, on_b = listed(a), listed(b)
        return on_a == on_b and made <= set(on_a) <= made | unknown and len(on_a) == len(set(on_a))

    wait_for(alike, 5, what="both nodes listing every acknowledged member, once, and no refused one")


def test_all_of_etcd_stopped_traffic_goes_on_writes_refused_and_all_converges(tmp_path, cleanup):
    etcd = started_etcd(tmp_path, cleanup, 1)
    a, b = following_pair(tmp_path, cleanup, etcd)
    backend = EchoServer()
    cleanup(backend)
    port = free_port()
    ids = seed_objects(a, backend.port, port)
    wait_for(lambda: raw(b, "GET", f"/v2.0/lbaas/pools/{ids['pools']}")[0] == 200, 5,
             what="B holding the pool")
    # Both listen on the port (SO_REUSEPORT spreads the clients): the traffic starts once each
    # node's data plane serves it, not once its API shows the objects (CI, 2026-12-05: the first
    # connection reached B before its workers had the pool).
    for n in (a, b):
        wait_for(lambda: serving(n, port), 10, what=f"{n.dir.name} serving port {port}")

    failures, sent = [], 0
    stop = threading.Event()
    began = time.monotonic()

    def client():
        nonlocal sent
        while not stop.is_set():
            sent += 1
            at = f"{time.monotonic() - began:.2f} s after the traffic began"
            try:
                if (answer := echo_once("127.0.0.1", port, b"ping")) != b"ping":
                    failures.append(f"{at}: answered {answer!r}")
            except OSError as e:
                failures.append(f"{at}: {e}")
            time.sleep(0.05)

    traffic = threading.Thread(target=client)
    traffic.start()
    outage = 30.0  # seconds without any etcd, as an operator's worst morning
    try:
        etcd.stop(0)
        stopped = time.monotonic()
        phases = {"etcd stopped": stopped - began}
        code, body = raw(a, "POST", "/v2.0/lbaas/pools/" + ids["pools"] + "/members",
                         {"member": {"address": "127.0.0.1", "protocol_port": 7}})
        assert code == 503 and "etcd (http://127.0.0.1:" in body["faultstring"], (code, body)
        wait_for(lambda: not store(b)["reachable"], 5, what="B seeing etcd gone")
        # B restarts during the outage and serves its last state from its cache.
        phases["B stopping"] = time.monotonic() - began
        b.stop()
        phases["B stopped"] = time.monotonic() - began
        old_b_log = b.log_text()  # the new B writes its own over it
        b = node(tmp_path, "b", etcd)
        cleanup(b)
        phases["B ready again"] = time.monotonic() - began
        code, headers, _ = exchange(b, "GET", f"/v2.0/lbaas/pools/{ids['pools']}")
        assert code == 200 and int(headers["X-Vigil-Store-Age"]) != 0, headers
        assert store(b)["following"] is False
        # The outage lasts its whole length while the client's traffic runs.
        time.sleep(max(0.0, outage - (time.monotonic() - stopped)))
        assert sent > 100, f"only {sent} client requests during the outage"
    finally:
        phases["etcd starting"] = time.monotonic() - began
        etcd.start(0)
        etcd.wait_ready(30)
    wait_for(lambda: following(a) and following(b), 10, what="both nodes following etcd again")
    phases["both following"] = time.monotonic() - began
    stop.set()
    traffic.join(timeout=10)
    assert not failures, (failures[:5], {k: round(v, 2) for k, v in phases.items()},
                          a.log_text()[-3000:], old_b_log[-3000:], b.log_text()[-3000:])
    # Writes work again and reach the other node.
    member = create(a, None, "member", {"address": "127.0.0.1", "protocol_port": 8},
                    path=f"/v2.0/lbaas/pools/{ids['pools']}/members")
    wait_for(lambda: raw(b, "GET", f"/v2.0/lbaas/pools/{ids['pools']}/members/{member['id']}")[0]
             == 200, 2, what="B serving the write made after the outage")


def test_the_leader_killed_during_writes_loses_no_acknowledged_write(tmp_path, cleanup):
    etcd = started_etcd(tmp_path, cleanup, 3)
    a = node(tmp_path, "a", etcd)
    cleanup(a)
    wait_for(lambda: following(a), 10, what="A following etcd")
    ids = seed_objects(a, 9, free_port())
    members = f"/v2.0/lbaas/pools/{ids['pools']}/members"
    outcomes = []

    def write(i):
        code, body = raw(a, "POST", members, {"member": {
            "address": "127.0.0.3", "protocol_port": 1000 + i, "name": f"w{i}"}})
        return i, code, body

    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(write, i) for i in range(500)]
        while sum(f.done() for f in futures) < 100:
            time.sleep(0.01)
        leader = etcd.leader()
        etcd.kill(leader)
        outcomes = [f.result(timeout=120) for f in futures]
    acknowledged = {f"w{i}" for i, code, _ in outcomes if code == 201}
    other = [(code, body) for _, code, body in outcomes if code != 201]
    print(f"{len(acknowledged)} acknowledged; {len(other)} not: "
          f"{sorted({code for code, _ in other})}")
    assert {code for code, _ in other} <= {409, 503}, other[:3]

    def names():
        code, body = raw(a, "GET", members + "?limit=1000")
        assert code == 200, body
        return [m["name"] for m in body["members"] if m["name"].startswith("w")]

    wait_for(lambda: store(a)["following"], 15, what="A following etcd again")
    listed = names()
    assert acknowledged <= set(listed), sorted(acknowledged - set(listed))[:5]
    assert len(listed) == len(set(listed)), "a write is there twice"
    # What etcd holds is what A lists: read back from etcd itself.
    b = node(tmp_path, "b", etcd)
    cleanup(b)
    wait_for(lambda: following(b), 10, what="B following etcd")
    code, body = raw(b, "GET", members + "?limit=1000")
    assert sorted(m["name"] for m in body["members"] if m["name"].startswith("w")) == sorted(listed)


def test_a_value_that_is_not_vigils_is_named_and_changes_nothing(tmp_path, cleanup):
    etcd = started_etcd(tmp_path, cleanup, 1)
    a = node(tmp_path, "a", etcd)
    cleanup(a)
    wait_for(lambda: following(a), 10, what="A following etcd")
    ids = seed_objects(a, 9, free_port())
    etcd.etcdctl("put", f"/vigil/test/loadbalancers/{ids['loadbalancers']}", "garbage")
    wait_for(lambda: store(a)["bad_values"] == 1, 5, what="the bad value counted")
    assert "not valid JSON" in store(a)["last_error"]
    assert raw(a, "GET", f"/v2.0/lbaas/pools/{ids['pools']}")[0] == 200  # the last good version
    assert a.proc.poll() is None


def test_mutual_tls_a_wrong_ca_and_files_that_do_not_load(tmp_path, cleanup):
    pki = tmp_path / "pki"
    pki.mkdir()
    ca, stranger = make_ca(pki, "etcd-ca"), make_ca(pki, "stranger-ca")
    server = make_cert(pki, ca, "server", "IP:127.0.0.1")
    client = make_cert(pki, ca, "client", "DNS:vigil")
    etcd = EtcdCluster(tmp_path / "etcd", members=1, tls={
        "ca": str(ca), "cert": server[0], "key": server[1], "client_cert_auth": True,
        "client_cert": client[0], "client_key": client[1]})
    cleanup(SimpleNamespace(stop=etcd.stop_all))
    etcd.wait_ready(30)
    right = f"tls: {{ca: {ca}, cert: {client[0]}, key: {client[1]}}}"
    a = node(tmp_path, "a", etcd, tls=right)
    cleanup(a)
    wait_for(lambda: following(a), 10, what="A following etcd over mutual TLS")
    ids = seed_objects(a, 9, free_port())

    # Another CA's idea of etcd: the node starts, serves its own, says why, refuses writes.
    b = node(tmp_path, "b", etcd, tls=f"tls: {{ca: {stranger}, cert: {client[0]}, key: {client[1]}}}")
    cleanup(b)
    wait_for(lambda: store(b)["last_error"], 5, what="B's store error")
    assert "certificate verify failed" in store(b)["last_error"], store(b)["last_error"]
    assert not store(b)["following"]
    code, body = raw(b, "POST", "/v2.0/lbaas/loadbalancers",
                     {"loadbalancer": {"vip_address": "127.0.0.1"}})
    assert code == 503, (code, body)
    assert raw(b, "GET", f"/v2.0/lbaas/loadbalancers/{ids['loadbalancers']}")[0] == 404

    # A CA file that is no certificate: `vigil check` and `vigil serve` both refuse it, at its line.
    bad = tmp_path / "not-a-ca.pem"
    bad.write_text("not a certificate\n")
    d = tmp_path / "c"
    d.mkdir()
    path = d / "vigil.yaml"
    token = d / "token"
    token.write_text("a-token-long-enough-for-vigil\n")
    token.chmod(0o600)
    path.write_text(config(d / "state.json", etcd.endpoints[0], f"tls: {{ca: {bad}}}")
                    .replace("@TOKEN_FILE@", str(token)))
    checked = subprocess.run([str(VIGIL), "check", "-c", str(path)], capture_output=True,
                             text=True, timeout=20)
    assert checked.returncode == 1 and f"{path}:6: error: admin.store: " in checked.stdout, \
        checked.stdout
    assert str(bad) in checked.stdout
    served = subprocess.run([str(VIGIL), "serve", "-c", str(path)], capture_output=True,
                            text=True, timeout=20)
    assert served.returncode != 0 and str(bad) in served.stderr, served.stderr


def test_import_moves_a_nodes_state_file_into_an_empty_prefix(tmp_path, cleanup):
    etcd = started_etcd(tmp_path, cleanup, 1)
    d = tmp_path / "a"
    d.mkdir()
    # A node that ran with its state file: its objects, made through its API.
    a = Vigil(d, config(d / "state.json"))
    cleanup(a)
    backend = EchoServer()
    cleanup(backend)
    port = free_port()
    ids = seed_objects(a, backend.port, port)
    before = shown(a, ids)
    a.stop()
    # Switched to etcd without the import, the node keeps its objects and refuses writes.
    a = node(tmp_path, "a", etcd)
    cleanup(a)
    wait_for(lambda: store(a)["refusing_writes"], 5, what="the node refusing writes")
    assert "vigil store import" in store(a)["refusing_writes"]
    assert shown(a, ids) == before
    code, body = raw(a, "POST", "/v2.0/lbaas/loadbalancers",
                     {"loadbalancer": {"vip_address": "127.0.0.1"}})
    assert code == 503 and "vigil store import" in body["faultstring"], body
    a.stop()

    done = a.cli("store", "import", "-c", str(a.config))
    assert done.returncode == 0, done.stderr
    assert "imported 1 load balancers (1 listeners, 1 pools, 1 members)" in done.stdout, done.stdout
    again = a.cli("store", "import", "-c", str(a.config))
    assert again.returncode == 1 and "empty prefix only" in again.stderr, again.stderr
    typo = a.cli("store", "import", "-c", str(a.config), "--state-file", str(d / "stat.json"))
    assert typo.returncode == 1 and "there is no state file at" in typo.stderr, typo.stderr

    a = node(tmp_path, "a", etcd)
    cleanup(a)
    wait_for(lambda: following(a), 10, what="A following etcd")
    assert shown(a, ids) == before
    assert store(a)["followed_changes"] == 0, "what A held was made anew"
    b = node(tmp_path, "b", etcd)
    cleanup(b)
    wait_for(lambda: following(b), 10, what="B following etcd")
    assert shown(b, ids) == before
    a.proc.kill()
    a.proc.wait(timeout=10)
    assert echo_once("127.0.0.1", port, b"ping") == b"ping"


def etcd_keys(etcd, prefix="/vigil/test/"):
    """Every key under `prefix`, with its value."""
    done = etcd.etcdctl("get", "--prefix", prefix, "-w", "json")
    assert done.returncode == 0, done.stderr
    return {base64.b64decode(kv["key"]).decode(): base64.b64decode(kv.get("value", "")).decode()
            for kv in json.loads(done.stdout).get("kvs", [])}


def test_members_have_keys_and_an_old_prefix_moves_to_them(tmp_path, cleanup):
    etcd = started_etcd(tmp_path, cleanup, 1)
    a = node(tmp_path, "a", etcd)
    cleanup(a)
    wait_for(lambda: following(a), 10, what="A following etcd")
    ids = seed_objects(a, 9, free_port())
    lb, pool = ids["loadbalancers"], ids["pools"]
    held = etcd_keys(etcd)
    member_keys = [k for k in held if k.startswith(f"/vigil/test/members/{lb}/{pool}/")]
    assert member_keys == [f"/vigil/test/members/{lb}/{pool}/{ids['member']}"], sorted(held)
    shell = json.loads(held[f"/vigil/test/loadbalancers/{lb}"])
    assert shell.pop("members_apart") is True and "members" not in shell["pools"][0], shell

    # The prefix as vigil wrote it before members had keys: the load balancer whole.
    shell["pools"][0]["members"] = [json.loads(held[k]) for k in member_keys]
    assert etcd.etcdctl("del", "--prefix", "/vigil/test/").returncode == 0
    assert etcd.etcdctl("put", f"/vigil/test/loadbalancers/{lb}", json.dumps(shell)).returncode == 0
    assert etcd.etcdctl("put", "/vigil/test/vigil", '{"vigil": 1}').returncode == 0
    b = node(tmp_path, "b", etcd)
    cleanup(b)
    wait_for(lambda: following(b), 10, what="B following etcd")
    before = shown(a, ids)
    assert shown(b, ids) == before
    assert store(b)["bad_values"] == 0, store(b)["last_error"]

    member = create(b, None, "member", {"address": "127.0.0.1", "protocol_port": 8},
                    path=f"/v2.0/lbaas/pools/{pool}/members")
    held = etcd_keys(etcd)
    assert "members_apart" in held[f"/vigil/test/loadbalancers/{lb}"]
    assert sum(k.startswith(f"/vigil/test/members/{lb}/") for k in held) == 2, sorted(held)
    wait_for(lambda: raw(a, "GET", f"/v2.0/lbaas/pools/{pool}/members/{member['id']}")[0] == 200,
             2, what="A serving the member made through B")
    assert shown(a, ids) == shown(b, ids)
    assert store(a)["bad_values"] == 0 and store(b)["bad_values"] == 0

    code, body = raw(a, "DELETE", f"/v2.0/lbaas/loadbalancers/{lb}?cascade=true")
    assert code == 204, body
    assert list(etcd_keys(etcd)) == ["/vigil/test/vigil"]
    wait_for(lambda: raw(b, "GET", f"/v2.0/lbaas/loadbalancers/{lb}")[0] == 404, 2,
             what="B without the deleted load balancer")
