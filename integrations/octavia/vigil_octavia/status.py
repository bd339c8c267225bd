"""vigil's /v1/status as the operating-status and statistics updates of Octavia's driver library.

vigil derives operating statuses with Octavia's own rules (the amphora health driver's), so
they are passed through as they are. Pure: no I/O.
"""


def api_loadbalancers(status):
    """The load balancers of a /v1/status answer that were created through the API (the config
    file's one is vigil's own and unknown to Octavia)."""
    return [lb for lb in status.get("loadbalancers", [])
            if not lb["loadbalancer"].get("source_file")]


def started_at(status):
    """When the node's vigil process started, from a /v1/status answer (every load balancer it
    runs says so); None when it runs none."""
    times = [lb["loadbalancer"].get("started_at") for lb in status.get("loadbalancers", [])]
    return min((t for t in times if t), default=None)


def operating_update(entry):
    """One load balancer's operating statuses: {"loadbalancers": [...], "listeners": ...}."""
    def status_of(o):
        return {"id": o["id"], "operating_status": o["operating_status"]}

    lb = entry["loadbalancer"]
    return {
        "loadbalancers": [status_of(lb)],
        "listeners": [status_of(ln) for ln in entry.get("listeners", [])],
        "pools": [status_of(p) for p in entry.get("pools", [])],
        "members": [status_of(m) for p in entry.get("pools", []) for m in p.get("members", [])],
    }


# The better a load balancer's operating status, the earlier in this list.
_BEST_FIRST = ("ONLINE", "DEGRADED", "ERROR", "NO_MONITOR", "OFFLINE")


def fleet_update(entries, nodes):
    """The operating statuses of a load balancer that `entries` (the /v1/status entries of the
    nodes that hold it, in the configured order) of `nodes` vigil nodes serve: the best node's
    view (the one a keepalived pair or BGP sends the traffic to), with the load balancer
    DEGRADED while a node lacks it or does not answer, as Octavia shows an amphora that
    failed while its partner serves."""
    def rank(entry):
        s = entry["loadbalancer"]["operating_status"]
        return _BEST_FIRST.index(s) if s in _BEST_FIRST else len(_BEST_FIRST)

    update = operating_update(min(entries, key=rank))
    lb = update["loadbalancers"][0]
    if len(entries) < nodes and lb["operating_status"] == "ONLINE":
        update["loadbalancers"] = [dict(lb, operating_status="DEGRADED")]
    return update


def listener_statistics(entries):
    """{listener id: [each node's statistics of it]} from the nodes' /v1/status entries of one
    load balancer."""
    out = {}
    for entry in entries:
        for ln in entry.get("listeners", []):
            out.setdefault(ln["id"], []).append(ln)
    return out


STATISTICS = ("active_connections", "bytes_in", "bytes_out", "request_errors",
              "total_connections")


def statistics_update(stats_by_listener):
    """{"listeners": [...]} from {listener id: [each node's statistics of that listener]}: the
    sums over the nodes, as every node's clients went through the listener."""
    return {"listeners": [dict({f: sum(int(s.get(f, 0)) for s in per_node) for f in STATISTICS},
                               id=listener_id)
                          for listener_id, per_node in sorted(stats_by_listener.items())]}


def unreachable_update(lb):
    """The operating statuses of a load balancer (octavia-lib's LoadBalancer, as the driver
    library returns it: listeners and pools as dicts) whose vigil does not answer.

    These are the rules of Octavia's amphora health driver for what an amphora no longer reports
    (octavia/amphorae/drivers/health/heartbeat_udp.py): an enabled listener ERROR, a disabled
    one OFFLINE, a pool OFFLINE, a member OFFLINE unless its pool has no monitor (NO_MONITOR
    stays); the load balancer ERROR, as there is no partner to take over yet.
    """
    def field(o, name):
        return o.get(name) if isinstance(o, dict) else getattr(o, name, None)

    update = {"loadbalancers": [{"id": lb.loadbalancer_id, "operating_status": "ERROR"}],
              "listeners": [], "pools": [], "members": []}
    for ln in field(lb, "listeners") or []:
        enabled = field(ln, "admin_state_up") is not False
        update["listeners"].append({"id": field(ln, "listener_id"),
                                    "operating_status": "ERROR" if enabled else "OFFLINE"})
    for p in field(lb, "pools") or []:
        update["pools"].append({"id": field(p, "pool_id"), "operating_status": "OFFLINE"})
        if field(p, "healthmonitor"):
            update["members"] += [{"id": field(m, "member_id"), "operating_status": "OFFLINE"}
                                  for m in field(p, "members") or []]
    return {key: items for key, items in update.items() if items}


def silenced(written):
    """The same rules applied to the operating statuses last written for a load balancer (an
    operating_update): no need to ask Octavia for the tree, and what was disabled (OFFLINE) or
    unmonitored (NO_MONITOR) keeps its status, as in Octavia's health driver."""
    def each(key, status, keep=()):
        return [{"id": o["id"], "operating_status": o["operating_status"]
                 if o["operating_status"] in keep else status} for o in written.get(key, [])]

    update = {"loadbalancers": each("loadbalancers", "ERROR"),
              "listeners": each("listeners", "ERROR", keep=("OFFLINE",)),
              "pools": each("pools", "OFFLINE"),
              "members": each("members", "OFFLINE", keep=("NO_MONITOR",))}
    return {key: items for key, items in update.items() if items}
