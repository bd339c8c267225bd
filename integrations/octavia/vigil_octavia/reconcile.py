"""Whether a vigil node holds a load balancer as Octavia does: Octavia's tree (repush.Tree) against
the node's /v1/status entry for it. The agent pushes the load balancer again to a node where they
differ (a change the node missed while it was down or frozen). Pure: no I/O.

Compared: which listeners, pools, members and monitor exist, and the fields a missed change
most often touches (a listener's port and default pool, a member's address, port, weight, backup
and admin state, a monitor's delay and timeout). A difference in another field is repaired by
`openstack loadbalancer failover`, which pushes every field.
"""


def _norm(v):
    return v or None  # vigil's "" and 0 for unset, Octavia's None


def _diff(what, octavia, vigil):
    """A line saying how two dicts of {id: fields} differ, or None."""
    if octavia.keys() != vigil.keys():
        missing = sorted(octavia.keys() - vigil.keys())
        extra = sorted(vigil.keys() - octavia.keys())
        return (f"{what}: missing {', '.join(missing) or '-'}; not in Octavia "
                f"{', '.join(extra) or '-'}")
    for object_id, fields in sorted(octavia.items()):
        if fields != vigil[object_id]:
            return f"{what} {object_id}: Octavia has {fields}, the node {vigil[object_id]}"
    return None


def drift(tree, entry):
    """How the node's `entry` differs from Octavia's `tree`, or None when it holds it."""
    listeners = _diff(
        "listeners",
        {ln.listener_id: (ln.protocol_port, _norm(ln.default_pool_id)) for ln in tree.listeners},
        {ln["id"]: (ln["protocol_port"], _norm(ln.get("default_pool_id")))
         for ln in entry.get("listeners", [])})
    if listeners:
        return listeners
    pools = {p["id"]: p for p in entry.get("pools", [])}
    found = _diff("pools", {p.pool_id: () for p in tree.pools}, {i: () for i in pools})
    if found:
        return found
    for p in tree.pools:
        have = pools[p.pool_id]
        found = _diff(
            f"pool {p.pool_id} members",
            {m.member_id: (m.address, m.protocol_port, m.weight, bool(m.backup),
                           m.admin_state_up is not False) for m in tree.members[p.pool_id]},
            {m["id"]: (m["address"], m["protocol_port"], m["weight"], m["backup"],
                       m["admin_state_up"]) for m in have.get("members", [])})
        if found:
            return found
        hm, have_hm = tree.monitors[p.pool_id], have.get("health_monitor")
        found = _diff(
            f"pool {p.pool_id} health monitor",
            {hm.healthmonitor_id: (hm.delay * 1000, hm.timeout * 1000)} if hm else {},
            {have_hm["id"]: (have_hm["interval_ms"], have_hm["timeout_ms"])} if have_hm else {})
        if found:
            return found
    return None
