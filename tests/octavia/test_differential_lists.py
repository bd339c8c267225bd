"""Lists, their filters, tags, order and links, and the collections vigil has nothing of, asked
with raw GETs of the real Octavia 11 API (noop provider, settled by noop_provider.py) and of
vigil's own Octavia API, both behind a ProjectProxy, compared field by field as
test_differential.py compares the CLI's answers (differential.py). Every difference left must be
in deliberate_differences.yaml with its reason, and every entry there about these steps must
still occur.

Both sides get the same objects: a load balancer, a listener, a pool `masters` (tags a, b, a TCP
monitor) and a pool `spare` (tag b, no monitor), members `up` and `off` (disabled) in `masters`.
Objects created within one second are ordered by their random ids on both sides, which differ:
lists whose order is not asked with `sort` are compared by name.
"""
import json
import re
import urllib.error
import urllib.request

import pytest

from differential import (Answer, Labels, as_entries, check, differences, is_raw,
                          load_deliberate)
from test_differential import DELIBERATE
from testing.harness.octavia_api import free_port, raw, start_vigil
from testing.harness.octavia_harness import PROJECT_ID, Octavia, missing
from testing.harness.project_proxy import ProjectProxy
from testing.harness.vigil_process import TOKEN

pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))
ENDPOINT = re.compile(r"http://127\.0\.0\.1:\d+")
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Side:
    """One API behind its proxy: raw requests, and the labels of the ids it gave."""

    def __init__(self, endpoint, token):
        self.endpoint, self.token = endpoint, token
        self.labels = Labels()

    def request(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.endpoint + path, data=data, method=method,
                                     headers={"X-Auth-Token": self.token,
                                              "Content-Type": "application/json",
                                              "Accept": "application/json"})
        try:
            with _opener.open(req, timeout=30) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def create(self, path, kind, fields, label):
        code, text = self.request("POST", path, {kind: fields})
        assert code == 201, (self.endpoint, path, code, text)
        obj = json.loads(text)[kind]
        self.labels.add(obj["id"], label)
        return obj["id"]


def by_name(out):
    """A list answer's objects in name order (see the module's docstring)."""
    for key, value in out.items():
        if isinstance(value, list) and not key.endswith("_links"):
            value.sort(key=lambda o: str(o.get("name")) if isinstance(o, dict) else str(o))
    return out


def answer(side, method, path, body=None, keep_order=False):
    code, text = side.request(method, path, body)
    text = ENDPOINT.sub("<endpoint>", text)
    try:
        out = json.loads(text)
    except ValueError:
        out = text.strip()
    if isinstance(out, dict) and not keep_order:
        out = by_name(out)
    return Answer.of({"rc": code, "stdout": json.dumps(out), "stderr": ""}, side.labels)


def build(side, settle, ports):
    """The objects of the module's docstring; returns their ids by name. Each pool is a
    listener's default pool: noop_provider.py settles the pools of the status tree, which shows
    those alone."""
    ids = {"lb": side.create("/v2.0/lbaas/loadbalancers", "loadbalancer",
                             {"name": "k8s", "vip_subnet_id": side.subnet,
                              "vip_address": "127.0.0.1"}, "loadbalancer:k8s")}
    settle()
    for listener, port, pool, tags in (("api", ports[0], "masters", ["a", "b"]),
                                       ("web", ports[1], "spare", ["b"])):
        ids[listener] = side.create("/v2.0/lbaas/listeners", "listener",
                                    {"name": listener, "protocol": "TCP", "protocol_port": port,
                                     "loadbalancer_id": ids["lb"]}, f"listener:{listener}")
        settle()
        ids[pool] = side.create("/v2.0/lbaas/pools", "pool",
                                {"name": pool, "protocol": "TCP", "lb_algorithm": "ROUND_ROBIN",
                                 "listener_id": ids[listener], "tags": tags}, f"pool:{pool}")
        settle()
    ids["monitor"] = side.create("/v2.0/lbaas/healthmonitors", "healthmonitor",
                                 {"name": "tcp", "pool_id": ids["masters"], "type": "TCP",
                                  "delay": 5, "timeout": 3, "max_retries": 3},
                                 "healthmonitor:tcp")
    settle()
    for name, enabled, address in (("up", True, "127.0.0.2"), ("off", False, "127.0.0.3")):
        ids[name] = side.create(f"/v2.0/lbaas/pools/{ids['masters']}/members", "member",
                                {"name": name, "address": address, "protocol_port": 6443,
                                 "admin_state_up": enabled}, f"member:{name}")
        settle()
    return ids


def test_lists_and_collections_answer_as_octavias(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    host, admin_port = vigil.admin.rsplit(":", 1)
    vigil_proxy = ProjectProxy(host, int(admin_port), PROJECT_ID, neutron=None)
    cleanup(vigil_proxy)
    subnet = raw(vigil, "GET", "/v2.0/subnets?name=vigil-local")[1]["subnets"][0]
    network = raw(vigil, "GET", f"/v2.0/networks/{subnet['network_id']}")[1]["network"]
    octavia = Octavia(tmp_path, neutron={"subnets": subnet, "networks": network, "ports": None})
    cleanup(octavia)
    from noop_provider import NoopProvider  # octavia_lib: only where Octavia is installed
    provider = NoopProvider(octavia)
    sides = {"octavia": Side(octavia.endpoint, "noauth"),
             "vigil": Side(f"http://127.0.0.1:{vigil_proxy.port}", TOKEN)}
    ports = (free_port(), free_port())
    ids = {}
    for name, side in sides.items():
        side.subnet = subnet["id"]
        side.labels.add(subnet["id"], "subnet:vigil-local")
        side.labels.add(network["id"], "network:vigil-local")
        side.labels.add_port(ports[0], "port:api")
        side.labels.add_port(ports[1], "port:web")
        ids[name] = build(side, provider.settle if name == "octavia" else (lambda: None), ports)

    found, record = [], []

    def step(path, method="GET", body=None, keep_order=False):
        """`path` with {lb}, {masters}, ... of each side's ids."""
        answers = {name: answer(side, method, path.format(**ids[name]), body, keep_order)
                   for name, side in sides.items()}
        name = f"{method} {path}"
        record.append({"step": name, **{n: vars(a) for n, a in answers.items()}})
        found.extend(differences(name, answers["octavia"], answers["vigil"]))

    in_lb = "loadbalancer_id={lb}"
    # The fields compared: what the filters decide, not the statuses (vigil really checks the
    # members, which refuse) or vigil's own fields (vigil_check), which test_differential.py
    # compares.
    only = "&fields=id&fields=name&fields=tags&fields=admin_state_up"
    # Filters: an unknown one is a 400, and each known one keeps what Octavia's database would.
    step("/v2/lbaas/pools?colour=red")
    step("/v2/lbaas/pools?listener_id={api}")
    step("/v2/lbaas/pools/{masters}/members?loadbalancer_id={lb}")
    step("/v2/lbaas/loadbalancers?tenant_id=" + PROJECT_ID)
    step(f"/v2/lbaas/pools?{in_lb}&tags=a" + only)
    step(f"/v2/lbaas/pools?{in_lb}&tags=a,b" + only)
    step(f"/v2/lbaas/pools?{in_lb}&tags=a&tags=b" + only)
    step(f"/v2/lbaas/pools?{in_lb}&tags-any=a,c" + only)
    step(f"/v2/lbaas/pools?{in_lb}&not-tags=a,b" + only)
    step(f"/v2/lbaas/pools?{in_lb}&not-tags-any=a" + only)
    step(f"/v2/lbaas/pools?{in_lb}&name=" + only)
    step(f"/v2/lbaas/pools?{in_lb}&healthmonitor_id={{monitor}}" + only)
    step(f"/v2/lbaas/pools?{in_lb}&admin_state_up=1" + only)
    step("/v2/lbaas/pools/{masters}/members?admin_state_up=0" + only)
    step("/v2/lbaas/pools/{masters}/members?admin_state_up=true" + only)
    step("/v2/lbaas/pools/{masters}/members?protocol_port=6443&address=127.0.0.2" + only)
    step("/v2/lbaas/listeners?loadbalancer_id={lb}&protocol=TCP&connection_limit=-1" + only)
    step("/v2/lbaas/healthmonitors?pool_id={masters}" + only)
    # Order, pages and links.
    step(f"/v2/lbaas/pools?{in_lb}&sort=name:desc" + only, keep_order=True)
    step(f"/v2/lbaas/pools?{in_lb}&sort=name&limit=1" + only, keep_order=True)
    step(f"/v2/lbaas/pools?{in_lb}&sort=name&limit=1&marker={{masters}}" + only,
         keep_order=True)
    step(f"/v2/lbaas/pools?{in_lb}&sort=name&marker={{masters}}" + only, keep_order=True)
    step(f"/v2/lbaas/pools?{in_lb}&limit=0")
    step(f"/v2/lbaas/pools?{in_lb}&sort=colour")
    # One object's fields.
    step("/v2/lbaas/pools/{masters}?fields=name&fields=tags")
    step("/v2/lbaas/pools/{masters}?fields=name,tags")
    # The collections vigil has nothing of.
    for path in ("/", "/v2", "/v2.0/lbaas", "/v2/lbaas/providers", "/v2/lbaas/flavors",
                 "/v2/lbaas/flavors/{lb}", "/v2/lbaas/flavorprofiles",
                 "/v2/lbaas/availabilityzones", "/v2/lbaas/availabilityzoneprofiles",
                 "/v2/lbaas/quotas", "/v2/lbaas/quotas/defaults",
                 "/v2/lbaas/quotas/" + PROJECT_ID, "/v2/octavia/amphorae",
                 "/v2/lbaas/l7policies", "/v2/lbaas/l7policies/{lb}"):
        step(path)
    step("/v2/lbaas/l7policies", method="POST",
         body={"l7policy": {"listener_id": "00000000-0000-4000-8000-000000000000",
                            "action": "REJECT"}})
    step("/v2/lbaas/l7policies", method="POST", body={"l7policy": {"action": "REJECT"}})

    # Errors of paths and methods.
    step("/v2/lbaas/nothing")
    step("/v2/lbaas/flavors/{lb}", method="DELETE")

    (tmp_path / "differential_lists.json").write_text(json.dumps(record, indent=1))
    ours = [e for e in load_deliberate(DELIBERATE) if is_raw(e)]
    unexplained, unused = check(found, ours)
    report = ""
    if unexplained:
        report += "differences not in deliberate_differences.yaml:\n" + as_entries(unexplained)
    if unused:
        report += ("entries of deliberate_differences.yaml that no longer occur:\n"
                   + "\n".join(f"  {e}" for e in unused) + "\n")
    assert not report, report
