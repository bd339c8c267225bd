"""vigil on every node: the shipped node-local preset (deploy/kubernetes/node-local/vigil.yaml,
on 127.0.0.1:7445, members from the API's EndpointSlices read through itself) in front of three
masters in the test's namespace, through each of the seven master faults of docs/failover.md.

The clients are those of every system test (a new TLS connection every 200 ms, kubectl get --raw
about once a second, a watch with no TCP keepalive pinned to master-01) and the real
`kubectl get nodes --watch` with client-go's defaults (HTTP/2, its PING after 30 s of silence,
given up 15 s later), pinned to master-01 too. The same promises as in front of a VIP: no failed
request, both watches streaming again within 3 s (5 s for the rolling restart), master-01 shown
down with its reason and back once ready. The preset checks every 7 s (its cost at 1,000 nodes:
bench/node_local), so what ends a dead master's sessions in time is the data plane, as with the
seed's slow checks in test_power_off.py and test_hang.py.
"""
import time

import pytest

from testing.harness.netns import MASTER_PORT, MASTERS, SCENARIOS, SETTLE, TOKEN, VICTIM, http_get, sleep_until
from testing.harness.wait import wait_for
from node_local_harness import EXTRA, ClusterPki, NodeLocalVigil, Traffic, refuse_endpoint_slices, set_endpoints
from system_checks import client_problems, requires_netns, run_vigil_scenario

pytestmark = requires_netns

BACKUP = "api-vip"        # the preset's backup member, the VIP (where nothing listens here)
REFUSED_SECONDS = 60.0    # how long the API refuses its EndpointSlices


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_master_fault_through_the_node_local_vigil(netns, tmp_path, scenario):
    pki = ClusterPki(tmp_path)
    run_vigil_scenario(netns, tmp_path, scenario, lb=NodeLocalVigil(pki), master_args=pki.master_args(),
                       kubectl_watch=True)


def test_a_master_added_and_one_removed_through_the_api_while_traffic_runs(netns, tmp_path):
    """master-04 listed in the EndpointSlices becomes a member, is checked and served; master-01
    leaves the list (as an API server that is being decommissioned does) and gets no new
    connection from then on, its sessions drain, and when it then shuts down both watches move on
    within 3 s. No request fails."""
    traffic = Traffic(netns, tmp_path, "endpoints-change")
    try:
        traffic.start_master(*EXTRA)
        traffic.start()
        running = [*MASTERS.values(), EXTRA[1]]
        added = f"{EXTRA[1]}:{MASTER_PORT}"
        set_endpoints(netns, running, running)
        traffic.wait_members([*MASTERS, added, BACKUP], 30, what=f"{added} a member, ONLINE")
        newconn = traffic.exp.clients[traffic.lb.key][0]
        wait_for(lambda: any(r.served_by == EXTRA[0] for r in newconn.requests[-20:]), 10,
                 what=f"a new connection served by {EXTRA[0]}")

        traffic.mark("fault")
        set_endpoints(netns, [a for a in running if a != MASTERS[VICTIM]], running)
        traffic.wait_members(["master-02", "master-03", added, BACKUP], 30, what=f"{VICTIM} no longer a member")
        left = time.monotonic()
        traffic.exp.masters[VICTIM].terminate()   # --shutdown-delay 5s: /readyz fails, then it closes
        traffic.exp.masters[VICTIM].wait_exit(20)
        traffic.mark("exited")
        sleep_until(traffic.exp.marks["exited"] + SETTLE)
        res, report = traffic.stop()
    finally:
        traffic.destroy()
    problems = client_problems(res)
    late = [r for r in res.all_requests() if r.start > left and r.served_by == VICTIM]
    if late:
        problems.append(f"{len(late)} new connections served by {VICTIM} after it left the list; first at "
                        f"{late[0].start - res.fault:+.2f}s")
    assert not problems, "endpoints-change:\n  - " + "\n  - ".join(problems) + "\n\n" + "\n".join(report)


def test_the_api_refusing_its_endpoint_slices_for_a_minute(netns, tmp_path):
    """Every master answers the EndpointSlice list and watch with 503 for 60 s while it serves
    everything else: the members stay as they were, no request fails, no watch is cut, and vigil
    says the list is not confirmed (status, /metrics); once the API answers, it follows it again."""
    traffic = Traffic(netns, tmp_path, "slices-refused")
    lb = traffic.lb
    try:
        traffic.start()
        before = {m["name"] for m in netns.call(lb.pool)["members"]}
        traffic.mark("fault")
        refuse_endpoint_slices(netns, 503)
        # The open watch ends first ("the server closed the connection"), then the list is refused.
        netns.call(lambda: wait_for(lambda: (s := lb.source())["state"] == "stale" and "503" in s.get("error", ""),
                                    30, what="the source stale, its list refused with 503"), timeout=35)
        seen = set()
        while time.monotonic() - traffic.exp.marks["fault"] < REFUSED_SECONDS:
            pool = netns.call(lb.pool)
            seen.add((frozenset(m["name"] for m in pool["members"]), pool["members_from"]["state"]))
            time.sleep(1.0)   # a sample a second over the minute the API refuses
        host, port = lb.admin.rsplit(":", 1)
        metrics = netns.call(lambda: http_get(host, int(port), "/metrics", 2.0, False, {"X-Auth-Token": TOKEN}))[2]
        refuse_endpoint_slices(netns, 0)
        traffic.mark("answers")
        following = netns.call(lambda: wait_for(lambda: (s := lb.source())["state"] == "following" and s, 45,
                                                what="the source following again"), timeout=50)
        res, report = traffic.stop()
    finally:
        traffic.destroy()
    problems = client_problems(res, cut=False)
    if seen != {(frozenset(before), "stale")}:
        problems.append(f"the members or the state changed while the API refused its list: {seen} "
                        f"(before: {sorted(before)})")
    up = [ln for ln in metrics.splitlines() if ln.startswith("vigil_pool_members_source_up{")]
    if len(up) != 1 or not up[0].endswith(" 0"):
        problems.append(f"/metrics does not say the source is down: {up}")
    if following["failures"] < 2:
        problems.append(f"vigil did not retry the list while it was refused: {following}")
    assert not problems, "slices-refused:\n  - " + "\n  - ".join(problems) + "\n\n" + "\n".join(report)
