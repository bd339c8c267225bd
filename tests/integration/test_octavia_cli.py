"""The first seed's scenario with the real `openstack loadbalancer` CLI against vigil: a load
balancer, a TCP listener, a pool and three members on simulated API servers; NO_MONITOR until a
TLS-HELLO monitor is created, then ONLINE; a killed backend goes ERROR and comes back; disable
and weight 0; the status tree; traffic through the listener; a cascade delete.
"""
import json

import pytest

from testing.harness.octavia_api import OPENSTACK, OpenStack, free_port, refused, start_vigil
from testing.harness.vigil_process import ApiSim, https_get
from testing.harness.wait import wait_for

pytestmark = pytest.mark.skipif(
    OPENSTACK is None,
    reason="the openstack CLI is missing (Debian: python3-openstackclient python3-octaviaclient)")


def test_seed_scenario(tmp_path, cleanup):
    sims = [ApiSim(tmp_path, f"master-0{i}") for i in (1, 2, 3)]
    for sim in sims:
        cleanup(sim)
    vigil = start_vigil(tmp_path, cleanup)
    lb = OpenStack(vigil)

    created = lb.json("create", "--name", "k8s", "--vip-subnet-id", "vigil-local",
                      "--vip-address", "127.0.0.1")
    assert created["provisioning_status"] == "ACTIVE"
    assert created["vip_address"] == "127.0.0.1"
    port = free_port()
    listener = lb.json("listener", "create", "--name", "api", "--protocol", "TCP",
                       "--protocol-port", str(port), "k8s")
    assert listener["protocol_port"] == port
    pool = lb.json("pool", "create", "--name", "masters", "--protocol", "TCP",
                   "--lb-algorithm", "ROUND_ROBIN", "--listener", "api")
    for sim in sims:
        lb.json("member", "create", "--name", sim.name, "--address", "127.0.0.1",
                "--protocol-port", str(sim.port), "masters")

    # The seed's bug: without a monitor, nothing is known about the members.
    members = lb.members("masters")
    assert sorted(members) == ["master-01", "master-02", "master-03"]
    assert {m["operating_status"] for m in members.values()} == {"NO_MONITOR"}

    monitor = lb.json("healthmonitor", "create", "--delay", "1", "--timeout", "2",
                      "--max-retries", "1", "--type", "TLS-HELLO", "masters")
    assert monitor["max_retries_down"] == 3 and monitor["timeout"] == 2
    lb.wait_members("masters", "ONLINE")

    # Traffic flows through the listener to the simulated API servers.
    served = set()
    for _ in range(6):
        status, headers, _ = https_get("127.0.0.1", port, "/readyz")
        assert status == 200
        served.add(headers.get("X-Served-By"))
    assert served <= {"master-01", "master-02", "master-03"} and served

    # A stopped backend goes ERROR, and back ONLINE when it returns on its port.
    sims[0].kill()
    lb.wait_members("masters", "ERROR", ["master-01"])
    assert lb.members("masters")["master-02"]["operating_status"] == "ONLINE"
    restarted = ApiSim(tmp_path, "master-01", port=sims[0].port)
    cleanup(restarted)
    lb.wait_members("masters", "ONLINE", ["master-01"])

    lb.run("member", "set", "--disable", "masters", "master-02")
    lb.run("member", "set", "--weight", "0", "masters", "master-03")
    members = lb.members("masters")
    assert members["master-02"]["operating_status"] == "OFFLINE"
    assert members["master-03"]["operating_status"] == "DRAINING"
    assert members["master-03"]["weight"] == 0

    tree = json.loads(lb.run("status", "show", "k8s").stdout)["loadbalancer"]  # JSON already
    assert tree["name"] == "k8s"
    tree_pool = tree["listeners"][0]["pools"][0]
    assert tree_pool["id"] == pool["id"]
    assert tree_pool["health_monitor"]["type"] == "TLS-HELLO"
    statuses = {m["name"]: m["operating_status"] for m in tree_pool["members"]}
    assert statuses == {"master-01": "ONLINE", "master-02": "OFFLINE", "master-03": "DRAINING"}
    # Only master-01 takes new connections now.
    assert https_get("127.0.0.1", port, "/readyz")[1].get("X-Served-By") == "master-01"

    lb.run("delete", "--cascade", "k8s")
    assert all(x["name"] != "k8s" for x in lb.json("list"))
    assert lb.json("listener", "list") == []
    wait_for(lambda: refused(port), 5, what=f"port {port} closed")


def test_wrong_token_is_refused(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    done = OpenStack(vigil, token="wrong").run("list", check=False)
    assert done.returncode != 0
    assert "401" in done.stderr and "Authentication required" in done.stderr
    assert OpenStack(vigil).run("list").returncode == 0


def test_cli_errors_carry_vigils_reasons(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    lb = OpenStack(vigil)
    lb.json("create", "--name", "k8s", "--vip-subnet-id", "vigil-local")
    done = lb.run("listener", "create", "--protocol", "HTTP", "--protocol-port", "8080", "k8s",
                  check=False)
    assert done.returncode != 0
    assert "vigil is a TCP load balancer: protocol HTTP is not supported" in done.stderr
    done = lb.run("create", "--vip-subnet-id", "vigil-local", "--vip-address", "192.0.2.1",
                  check=False)
    assert done.returncode != 0 and "not an address of this host" in done.stderr
    pool = lb.json("pool", "create", "--protocol", "TCP", "--lb-algorithm", "SOURCE_IP",
                   "--loadbalancer", "k8s")
    done = lb.run("healthmonitor", "create", "--delay", "5", "--timeout", "5",
                  "--max-retries", "0", "--type", "TCP", pool["id"], check=False)
    assert done.returncode != 0 and "max_retries" in done.stderr
    done = lb.run("delete", "k8s", check=False)
    assert done.returncode != 0 and "it has children" in done.stderr
