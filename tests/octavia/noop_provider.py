"""What a real provider does after Octavia's noop provider has recorded a change: it reports the
change done through octavia-lib's DriverLibrary, whose calls octavia-driver-agent writes to
Octavia's database. Without it every object stays PENDING_* and the next write is refused as
immutable.

`settle()` reports every pending object ACTIVE (or DELETED) with the operating status Octavia's
amphora health driver gives a load balancer whose members all answer their checks: ONLINE,
NO_MONITOR for members of a pool without a monitor, DRAINING for weight 0, OFFLINE when
disabled. A test calls it after each write, so answers do not depend on timing.

Holds no tests. Every wait is bounded.
"""
import json
import urllib.request

from octavia_lib.api.drivers.driver_lib import DriverLibrary

from testing.harness.wait import wait_for

PENDING = ("PENDING_CREATE", "PENDING_UPDATE", "PENDING_DELETE")
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _provisioning(obj, parent_gone):
    gone = parent_gone or obj["provisioning_status"] == "PENDING_DELETE"
    return gone, "DELETED" if gone else "ACTIVE"


class NoopProvider:
    def __init__(self, octavia):
        self.octavia = octavia
        self.lib = DriverLibrary(status_socket=str(octavia.dir / "status.sock"),
                                 stats_socket=str(octavia.dir / "stats.sock"),
                                 get_socket=str(octavia.dir / "get.sock"))

    def _get(self, path):
        with _opener.open(self.octavia.endpoint + path, timeout=10) as r:
            return json.loads(r.read())

    def _pending(self):
        return [lb["id"] for lb in self._get("/v2/lbaas/loadbalancers")["loadbalancers"]
                if lb["provisioning_status"] in PENDING]

    def _update(self, lb_id):
        # What changed is in the status tree; what the amphora's report depends on (admin
        # state, weight, monitors) in the driver library's copy of the load balancer.
        tree = self._get(f"/v2/lbaas/loadbalancers/{lb_id}/status")["statuses"]["loadbalancer"]
        lb = self.lib.get_loadbalancer(lb_id).to_dict(recurse=True)
        enabled = {lb_id: lb["admin_state_up"]}
        enabled.update({ln["listener_id"]: ln["admin_state_up"] for ln in lb["listeners"] or []})
        weights, monitored = {}, {}
        for pool in lb["pools"] or []:
            enabled[pool["pool_id"]] = pool["admin_state_up"]
            hm = pool.get("healthmonitor")
            if hm:
                enabled[hm["healthmonitor_id"]] = hm["admin_state_up"]
            for m in pool.get("members") or []:
                enabled[m["member_id"]] = m["admin_state_up"]
                weights[m["member_id"]] = m["weight"]
                monitored[m["member_id"]] = bool(hm and hm["admin_state_up"])
        update = {"loadbalancers": [], "listeners": [], "pools": [], "members": [],
                  "healthmonitors": []}

        def report(kind, obj, parent_gone, status="ONLINE"):
            gone, provisioning = _provisioning(obj, parent_gone)
            update[kind].append({"id": obj["id"], "provisioning_status": provisioning,
                                 "operating_status": status if enabled[obj["id"]] else "OFFLINE"})
            return gone

        lb_gone = report("loadbalancers", tree, False)
        for ln in tree.get("listeners", []):
            ln_gone = report("listeners", ln, lb_gone)
            for pool in ln.get("pools", []):
                pool_gone = report("pools", pool, ln_gone)
                if "health_monitor" in pool:
                    report("healthmonitors", pool["health_monitor"], pool_gone)
                for m in pool.get("members", []):
                    status = "ONLINE" if monitored[m["id"]] else "NO_MONITOR"
                    report("members", m, pool_gone, "DRAINING" if weights[m["id"]] == 0 else status)
        # The agent deletes each child reported DELETED (children before their load balancer);
        # a load balancer's DELETED alone would leave them behind.
        self.lib.update_loadbalancer_status({k: v for k, v in update.items() if v})

    def settle(self, timeout=30.0):
        """Reports every pending load balancer's objects done; returns when none is pending."""
        for lb_id in self._pending():
            self._update(lb_id)
        wait_for(lambda: not self._pending(), timeout, interval=0.1,
                 what="Octavia's load balancers out of PENDING_*")
