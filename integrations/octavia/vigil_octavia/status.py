"""vigil's /v1/status as the operating-status and statistics updates of Octavia's driver library.

vigil derives operating statuses with Octavia's own rules (the amphora health driver's), so
they are passed through as they are. Pure: no I/O.
"""


def api_loadbalancers(status):
    """The load balancers of a /v1/status answer that were created through the API (the config
    file's one is vigil's own and unknown to Octavia)."""
    return [lb for lb in status.get("loadbalancers", [])
            if not lb["loadbalancer"].get("source_file")]


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


def listener_ids(entry):
    return [ln["id"] for ln in entry.get("listeners", [])]


def statistics_update(stats_by_listener):
    """{"listeners": [...]} from {listener id: vigil's {"stats": ...} of that listener}."""
    fields = ("active_connections", "bytes_in", "bytes_out", "request_errors",
              "total_connections")
    return {"listeners": [dict({f: int(s.get(f, 0)) for f in fields}, id=listener_id)
                          for listener_id, s in sorted(stats_by_listener.items())]}
