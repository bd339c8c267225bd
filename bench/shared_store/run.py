#!/usr/bin/env python3
"""One API for a pair or a fleet (admin.store type etcd): what a write through vigil costs beside
etcd's own floor, how soon another node serves it, how long a node takes to read 1,000 load
balancers whole, and how many bytes etcd stores per member write as the pool grows.

A local 3-member etcd (Debian's etcd-server, testing/harness/etcd.py) and two vigil nodes, A and
B, on loopback. Figures:
- write: a member create through A's Octavia API, acknowledged once etcd committed it, p50 and
  p99 over --writes, beside the floor: a put of a value of the same size straight to etcd's JSON
  gateway (one HTTP request, as vigil's client makes it), so the ratio is what vigil adds;
- A to B: from A's acknowledgement until B's API answers the member (B polled every 2 ms);
- resync: a third node C started against etcd holding --lbs load balancers (one listener, one
  pool, three members each), from C's start until it follows etcd with all of them;
- bytes per member write: what etcd stores when one member is added to a pool of 1, 10 and 100
  members: the values of every key the write changed (the member's, its pool's, the marker), and
  their keys; the load balancer's own key is not among them.
Goals (docs/ha.md): write p99 at most 20 ms; A to B p99 at most 1 s; a 1,000-load-balancer resync
within 5 s; bytes per member write constant in the pool's size.

Loopback only; every process is started here and stopped at the end; every wait is bounded.
Benchmarks print numbers and never gate CI.

    VIGIL_BUILD=build/release python3 -m bench.shared_store.run [--writes 300] [--lbs 1000]
"""

import argparse
import base64
import json
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from testing.harness.etcd import EtcdCluster
from testing.harness.octavia_api import create, free_port, raw
from testing.harness.vigil_process import Vigil
from testing.harness.wait import wait_for

CONFIG = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
  state_file: {state}
  store: {{type: etcd, endpoints: [{endpoints}], prefix: /bench/}}
listeners:
  - {{name: own, bind: "127.0.0.1:0", pool: own}}
pools:
  - name: own
    health_monitor: none
    members:
      - {{name: m1, address: 127.0.0.1, port: 9}}
"""
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def node(tmp, name, etcd):
    d = Path(tmp) / name
    d.mkdir(exist_ok=True)
    return Vigil(d, CONFIG.format(state=d / "state.json", endpoints=", ".join(etcd.endpoints)))


def store(v):
    return v.status()["store"]


def pct(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def ms(seconds):
    return f"{seconds * 1000:.1f} ms"


def etcd_put(endpoint, key, value):
    body = json.dumps({"key": base64.b64encode(key.encode()).decode(),
                       "value": base64.b64encode(value.encode()).decode()}).encode()
    req = urllib.request.Request(f"{endpoint}/v3/kv/put", data=body, method="POST")
    with _opener.open(req, timeout=10) as r:
        r.read()


def etcd_last_write(endpoint, prefix="/bench/"):
    """What the last write under `prefix` stored: the bytes of its values, and of keys and values,
    over every key it changed."""
    end = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    body = json.dumps({"key": base64.b64encode(prefix.encode()).decode(),
                       "range_end": base64.b64encode(end.encode()).decode()}).encode()
    req = urllib.request.Request(f"{endpoint}/v3/kv/range", data=body, method="POST")
    with _opener.open(req, timeout=10) as r:
        kvs = json.loads(r.read()).get("kvs", [])
    last = max(int(kv["mod_revision"]) for kv in kvs)
    written = [(base64.b64decode(kv["key"]), base64.b64decode(kv.get("value", "")))
               for kv in kvs if int(kv["mod_revision"]) == last]
    return sum(len(v) for _, v in written), sum(len(k) + len(v) for k, v in written)


def lb_with_pool(v, members):
    lb = create(v, "loadbalancers", "loadbalancer", {"vip_address": "127.0.0.1"})
    listener = create(v, "listeners", "listener", {
        "loadbalancer_id": lb["id"], "protocol": "TCP", "protocol_port": free_port()})
    pool = create(v, "pools", "pool", {"listener_id": listener["id"], "protocol": "TCP",
                                       "lb_algorithm": "ROUND_ROBIN"})
    for i in range(members):
        create(v, None, "member", {"address": "127.0.0.2", "protocol_port": 1000 + i},
               path=f"/v2.0/lbaas/pools/{pool['id']}/members")
    return lb["id"], pool["id"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--writes", type=int, default=300)
    ap.add_argument("--lbs", type=int, default=1000)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="vigil-bench-store-")
    etcd = EtcdCluster(Path(tmp) / "etcd", members=3)
    nodes = []
    try:
        etcd.wait_ready(30)
        a, b = node(tmp, "a", etcd), node(tmp, "b", etcd)
        nodes += [a, b]
        wait_for(lambda: store(a)["following"] and store(b)["following"], 15, what="following")
        _, pool = lb_with_pool(a, 0)
        members = f"/v2.0/lbaas/pools/{pool}/members"

        # Writes through A, and when B serves each: a member made, then deleted, so that the pool
        # stays the size of a control plane's (one to three members).
        write_times, a_to_b = [], []
        for i in range(args.writes // 2):
            t0 = time.monotonic()
            code, body = raw(a, "POST", members, {"member": {
                "address": "127.0.0.3", "protocol_port": 2000 + i}})
            acked = time.monotonic()
            assert code == 201, body
            write_times.append(acked - t0)
            path = f"{members}/{body['member']['id']}"
            wait_for(lambda: raw(b, "GET", path)[0] == 200, 5, interval=0.002, what="B serving it")
            a_to_b.append(time.monotonic() - acked)
            t0 = time.monotonic()
            code, body = raw(a, "DELETE", path)
            assert code == 204, body
            write_times.append(time.monotonic() - t0)
        create(a, None, "member", {"address": "127.0.0.3", "protocol_port": 1999}, path=members)
        value = "x" * etcd_last_write(etcd.endpoints[0])[0]
        floor = []
        for i in range(len(write_times)):
            t0 = time.monotonic()
            etcd_put(etcd.endpoints[0], f"/floor/{i}", value)
            floor.append(time.monotonic() - t0)

        # Bytes per member write as the pool grows.
        sizes = {}
        for n in (1, 10, 100):
            _, p = lb_with_pool(a, n - 1)
            create(a, None, "member", {"address": "127.0.0.4", "protocol_port": 3000},
                   path=f"/v2.0/lbaas/pools/{p}/members")
            sizes[n] = etcd_last_write(etcd.endpoints[0])

        # A node that reads --lbs load balancers whole.
        remaining = args.lbs - (len(a.status()["loadbalancers"]) - 1)
        counts = [remaining // 4 + (1 if k < remaining % 4 else 0) for k in range(4)]
        workers = [threading.Thread(target=lambda n=n: [lb_with_pool(a, 3) for _ in range(n)])
                   for n in counts]
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=900)
        total = len(a.status()["loadbalancers"]) - 1
        t0 = time.monotonic()
        c = node(tmp, "c", etcd)
        nodes.append(c)
        wait_for(lambda: store(c)["following"] and len(c.status()["loadbalancers"]) - 1 == total,
                 120, interval=0.05, what="C holding every load balancer")
        resync = time.monotonic() - t0

        print(f"write through A (a member made or deleted, acknowledged after etcd's commit), "
              f"{len(write_times)} writes: p50 {ms(pct(write_times, 0.5))}, p99 {ms(pct(write_times, 0.99))} "
              f"(goal p99 <= 20 ms: {pct(write_times, 0.99) / 0.020:.2f}x)")
        print(f"etcd's floor (a put of the same {len(value)} bytes to its JSON gateway): "
              f"p50 {ms(pct(floor, 0.5))}, p99 {ms(pct(floor, 0.99))}; vigil / floor at p50: "
              f"{pct(write_times, 0.5) / pct(floor, 0.5):.1f}x")
        print(f"A's acknowledgement to B serving it: p50 {ms(pct(a_to_b, 0.5))}, "
              f"p99 {ms(pct(a_to_b, 0.99))} (goal p99 <= 1 s: {pct(a_to_b, 0.99):.3f}x)")
        print(f"node C started against {total} load balancers: following with all of them after "
              f"{resync:.2f} s (goal 5 s: {resync / 5:.2f}x), process start included")
        for n, (values, with_keys) in sizes.items():
            print(f"a member added to a pool of {n}: etcd stores {values} bytes of values "
                  f"({with_keys} with their keys)")
        print(f"machine: load average {open('/proc/loadavg').read().split()[0]}, "
              f"median write {statistics.median(write_times) * 1000:.1f} ms")
    finally:
        for v in nodes:
            v.stop()
        etcd.stop_all()


if __name__ == "__main__":
    main()
