"""Lists, their filters, tags, order and links, and the collections vigil has nothing of, asked
with raw GETs of the real Octavia 11 API (noop provider, settled by noop_provider.py) and of
vigil's own Octavia API, both behind a ProjectProxy, compared field by field as
test_differential.py compares the CLI's answers (differential.py). Every difference left must be
in deliberate_differences.yaml with its reason, and every entry there about these steps must
still occur.

Both sides get the same objects: a load balancer, a listener, a pool `masters` (tags a, b, a TCP
monitor) and a pool `spare` (tag b, no monitor), members `up` and `off` (disabled) in `masters`,
and twelve members in `spare`, `m00` to `m11` by name, created in another order, with weights 1
to 3 and every fourth disabled. Both sides hold at most PAGE objects a page (Octavia's
`[api_settings] pagination_max_limit`, vigil's `admin.octavia_pagination_max_limit`), so that
`spare`'s members take several pages: those lists are walked by their links to the end,
forwards (`next`) and then backwards (`previous`, page_reverse) from the last page, each side
following its own links. Lists whose order is not asked with `sort` are compared by name, but
for the walks: on both sides objects come in the order they were created (created_at, to the
microsecond), then by id.
"""
import json
import re
import urllib.error
import urllib.request
from urllib.parse import urlsplit

import pytest

from differential import (Answer, Labels, as_entries, check, differences, is_raw,
                          load_deliberate)
from test_differential import DELIBERATE
from testing.harness.octavia_api import free_port, raw, start_vigil
from testing.harness.octavia_harness import PROJECT_ID, Octavia, missing
from testing.harness.project_proxy import ProjectProxy
from testing.harness.vigil_process import TOKEN

pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))
PAGE = 5
SPARE_MEMBERS = 12
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


def shape(value):
    """The keys of an answer's objects, every value but objects and lists made `<value>`: which
    fields each side sends, whatever their values (statuses follow vigil's real checks)."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(v) for v in value]
    return "<value>"


def fetch(side, method, path, body=None):
    """(status, the answer parsed, its own URL made `<endpoint>`)."""
    code, text = side.request(method, path, body)
    text = ENDPOINT.sub("<endpoint>", text)
    try:
        return code, json.loads(text)
    except ValueError:
        return code, text.strip()


def answer(side, method, path, body=None, keep_order=False, keys_only=False, fetched=None):
    code, out = fetched or fetch(side, method, path, body)
    if isinstance(out, dict) and not keep_order:
        out = by_name(out)
    if keys_only and isinstance(out, dict):
        ids = out  # the ids stay, as lists of objects are compared by them
        out = shape(out)
        _keep_ids(out, ids)
    return Answer.of({"rc": code, "stdout": json.dumps(out), "stderr": ""}, side.labels)


def _keep_ids(shaped, original):
    """Puts the ids of `original` back into its shape."""
    if isinstance(original, dict):
        for k, v in original.items():
            if k == "id":
                shaped[k] = v
            else:
                _keep_ids(shaped[k], v)
    elif isinstance(original, list):
        for s, v in zip(shaped, original):
            _keep_ids(s, v)


def link(out, rel):
    """The path of a list answer's `rel` link (next, previous), or None."""
    if not isinstance(out, dict):
        return None
    for key, links in out.items():
        if key.endswith("_links"):
            for item in links:
                if item.get("rel") == rel:
                    parts = urlsplit(item["href"].replace("<endpoint>", "http://endpoint"))
                    return f"{parts.path}?{parts.query}"
    return None


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
    # Created out of name order (7 and 12 are coprime): sorting by name is no creation order.
    for i in range(SPARE_MEMBERS):
        n = i * 7 % SPARE_MEMBERS
        ids[f"m{n:02}"] = side.create(
            f"/v2/lbaas/pools/{ids['spare']}/members", "member",
            {"name": f"m{n:02}", "address": f"127.0.1.{n + 1}", "protocol_port": 6443,
             "weight": n % 3 + 1, "admin_state_up": n % 4 != 0}, f"member:m{n:02}")
        settle()
    return ids


def test_lists_and_collections_answer_as_octavias(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup, admin_options={"octavia_pagination_max_limit": PAGE})
    host, admin_port = vigil.admin.rsplit(":", 1)
    vigil_proxy = ProjectProxy(host, int(admin_port), PROJECT_ID, neutron=None)
    cleanup(vigil_proxy)
    subnet = raw(vigil, "GET", "/v2.0/subnets?name=vigil-local")[1]["subnets"][0]
    network = raw(vigil, "GET", f"/v2.0/networks/{subnet['network_id']}")[1]["network"]
    octavia = Octavia(tmp_path, neutron={"subnets": subnet, "networks": network, "ports": None},
                      api_options=f"pagination_max_limit = {PAGE}")
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

    def compare(name, answers):
        record.append({"step": name, **{n: vars(a) for n, a in answers.items()}})
        found.extend(differences(name, answers["octavia"], answers["vigil"]))

    def step(path, method="GET", body=None, keep_order=False, keys_only=False, name=None):
        """`path` with {lb}, {masters}, ... of each side's ids; `body` may be a function of
        them."""
        compare(name or f"{method} {path}",
                {side_name: answer(side, method, path.format(**ids[side_name]),
                                   body(ids[side_name]) if callable(body) else body, keep_order,
                                   keys_only)
                 for side_name, side in sides.items()})

    def follow(name, here, rel):
        """GETs each side's `here`, then its `rel` link, until a side has none; returns the
        last answers. Pages are compared in their order (the links are in them)."""
        for n in range(1, SPARE_MEMBERS + 3):
            fetched = {side: fetch(sides[side], "GET", path) for side, path in here.items()}
            compare(f"GET {name}, {rel} {n}",
                    {side: answer(sides[side], "GET", None, keep_order=True, fetched=f)
                     for side, f in fetched.items()})
            there = {side: link(out, rel) for side, (_, out) in fetched.items()}
            if None in there.values():
                return fetched
            here = there
        raise AssertionError(f"{name}: more pages than {SPARE_MEMBERS} members make")

    def walk(path):
        """The pages of `path` by their `next` links, then back by `previous` from the last."""
        last = follow(path, {name: path.format(**ids[name]) for name in sides}, "next")
        back = {side: link(out, "previous") for side, (_, out) in last.items()}
        if None not in back.values():
            follow(path + ", back", back, "previous")

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
    # Lists of several pages, walked by their links (the module's docstring).
    spare = "/v2/lbaas/pools/{spare}/members?"
    kept = "&fields=id&fields=name&fields=weight&fields=admin_state_up"
    walk(spare + kept[1:])
    walk(spare + "limit=100" + kept)
    walk(spare + "limit=4&sort=name:desc,created_at:asc" + kept)
    walk(spare + "limit=3&sort=weight:desc,name:asc" + kept)
    walk(spare + "sort_key=weight,name&sort_dir=desc" + kept)
    walk(spare + "limit=4&sort_key=name&sort_dir=DESC" + kept)
    walk(spare + "limit=3&marker={m07}&page_reverse=True&sort=name" + kept)
    walk(spare + "limit=2&marker={m05}&sort=weight:desc" + kept)
    walk(spare + "fields=name&limit=4")
    step(spare + "sort=" + kept, keep_order=True)
    step(spare + "sort=&sort_key=name" + kept, keep_order=True)
    step(spare + "sort_key=name,id&sort_dir=desc," + kept)
    step(spare + "sort=name:UP" + kept)
    step(spare + "sort=name:desc:x" + kept)
    step(spare + "marker={up}" + kept, keep_order=True)
    step(spare + "limit=3&marker={m07}&page_reverse=true" + kept, keep_order=True)  # "True" only
    step(spare + "limit=ten" + kept)
    step(spare + "limit=infinite" + kept)
    # Octavia 11 reads a marker's sort values by the API's names, which fails for admin_state_up
    # (its column is `enabled`); the first page, without a marker, is the same on both.
    step(spare + "limit=3&sort=admin_state_up:desc,name" + kept, keep_order=True)
    step(spare + "limit=3&marker={m05}&sort=admin_state_up:desc,name" + kept, keep_order=True)
    # One object's fields.
    step("/v2/lbaas/pools/{masters}?fields=name&fields=tags")
    step("/v2/lbaas/pools/{masters}?fields=name,tags")
    # Which fields each kind of object has (their values: test_differential.py).
    for path in ("/v2/lbaas/loadbalancers/{lb}", "/v2/lbaas/loadbalancers/{lb}/status",
                 "/v2/lbaas/listeners/{api}", "/v2/lbaas/pools/{masters}",
                 "/v2/lbaas/pools/{masters}/members/{up}", "/v2/lbaas/healthmonitors/{monitor}",
                 "/v2/lbaas/loadbalancers/{lb}/stats", "/v2/lbaas/listeners/{api}/stats"):
        step(path, keys_only=True)
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
    # A monitor type that is none of Octavia's, then one of Octavia's that vigil does not run
    # (last: Octavia's noop provider takes it, and the two sides part).
    for kind in ("BOGUS", "PING"):
        step("/v2/lbaas/healthmonitors", method="POST",
             name=f"POST /v2/lbaas/healthmonitors {kind}",
             body=lambda i, kind=kind: {"healthmonitor": {"pool_id": i["spare"], "type": kind,
                                                          "delay": 5, "timeout": 3,
                                                          "max_retries": 3}})

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
