"""Octavia's provider objects (octavia_lib data models) as vigil admin API request bodies, and the
refusal of what vigil does not do, at Octavia's API, before anything is stored.

vigil's Octavia subset uses Octavia's field names, so a body is the object's fields that the
request set; each object keeps Octavia's id in vigil. Pure: no I/O.
"""
from octavia_lib.api.drivers import data_models
from octavia_lib.api.drivers import exceptions

LISTENER_PROTOCOLS = ("TCP",)
# PROXY and PROXYV2 pools are TCP pools that send a PROXY header: vigil says whether it does.
POOL_PROTOCOLS = ("TCP", "PROXY", "PROXYV2")
ALGORITHMS = ("ROUND_ROBIN", "LEAST_CONNECTIONS", "SOURCE_IP")
MONITOR_TYPES = ("TCP", "TLS-HELLO", "HTTP", "HTTPS")
TCP_ONLY = "vigil is a TCP load balancer that passes TLS through"
# Marks a load balancer in vigil as Octavia's: the agent deletes one Octavia no longer holds
# (deleted while its node was down), and never touches a load balancer without it.
OWNER_TAG = "owner:octavia"

COMMON = ("name", "description", "admin_state_up")
LB_CREATE = COMMON + ("vip_address", "project_id")
LB_UPDATE = COMMON
LISTENER_UPDATE = COMMON + ("connection_limit", "default_pool_id", "timeout_client_data",
                            "timeout_member_connect", "timeout_member_data",
                            "timeout_tcp_inspect", "allowed_cidrs")
LISTENER_CREATE = LISTENER_UPDATE + ("loadbalancer_id", "protocol", "protocol_port", "project_id")
POOL_UPDATE = COMMON + ("lb_algorithm", "session_persistence")
POOL_CREATE = POOL_UPDATE + ("loadbalancer_id", "listener_id", "protocol", "project_id")
MEMBER_UPDATE = ("name", "admin_state_up", "weight", "backup", "monitor_address",
                 "monitor_port")
MEMBER_CREATE = MEMBER_UPDATE + ("address", "protocol_port", "subnet_id", "project_id")
HTTP_MONITOR = ("url_path", "expected_codes", "http_method", "http_version", "domain_name")
MONITOR_UPDATE = ("name", "admin_state_up", "delay", "timeout", "max_retries",
                  "max_retries_down") + HTTP_MONITOR
MONITOR_CREATE = MONITOR_UPDATE + ("pool_id", "type", "project_id")


def refuse(message):
    raise exceptions.UnsupportedOptionError(user_fault_string=message,
                                            operator_fault_string=message)


def value(obj, attr):
    """The attribute, or None when the request left it unset."""
    v = getattr(obj, attr, None)
    return None if isinstance(v, data_models.UnsetType) else v


def _fields(obj, names, updating):
    """The named fields the request set. On create a None is left out (vigil's default applies);
    on update it is sent as null, which resets the field as in Octavia."""
    body = {}
    for name in names:
        v = getattr(obj, name, data_models.Unset)
        if isinstance(v, data_models.UnsetType) or (v is None and not updating):
            continue
        body[name] = v
    return body


def _refuse_set(obj, what, attrs):
    """Refuses the first of `attrs` with a value other than unset, None, empty or "NONE"."""
    for attr in attrs:
        v = value(obj, attr)
        if v not in (None, "", [], {}, "NONE", False):
            refuse(f"{TCP_ONLY}: {what} {attr} is not supported")


TOPOLOGIES = ("SINGLE", "ACTIVE_STANDBY")
FLAVOR_METADATA = {
    "loadbalancer_topology": "SINGLE or ACTIVE_STANDBY: the topology vigil reports for the load "
                             "balancer (ACTIVE_STANDBY for a keepalived pair of vigil hosts)",
}


def flavor(metadata):
    """The vigil fields of a flavor's metadata; refuses keys and values vigil does not take."""
    unknown = sorted(set(metadata or {}) - FLAVOR_METADATA.keys())
    if unknown:
        refuse(f"vigil takes no flavor option {', '.join(unknown)} (only "
               f"{', '.join(FLAVOR_METADATA)})")
    topology = (metadata or {}).get("loadbalancer_topology")
    if topology is None:
        return {}
    if topology not in TOPOLOGIES:
        refuse(f"loadbalancer_topology {topology} is not one of {', '.join(TOPOLOGIES)}")
    return {"topology": topology}


def loadbalancer(lb, updating=False, shared=False):
    """`shared`: the load balancer lives on several vigil nodes (a pair or a fleet), whose VRRP
    or BGP brings its address to the node that serves: vigil takes it as ACTIVE_STANDBY, which
    accepts an address the host does not hold yet and binds with freebind."""
    _refuse_set(lb, "load balancer", ("availability_zone", "additional_vips",
                                      "vip_qos_policy_id"))
    if value(lb, "listeners") or value(lb, "pools"):
        refuse("vigil creates a load balancer's listeners and pools one by one: create the "
               "load balancer first, then each listener, pool, member and health monitor")
    if updating:
        return _fields(lb, LB_UPDATE, True)
    body = dict(_fields(lb, LB_CREATE, False), id=lb.loadbalancer_id, tags=[OWNER_TAG],
                **flavor(value(lb, "flavor")))
    if shared:
        body["topology"] = "ACTIVE_STANDBY"
    return body


def listener(ln, updating=False):
    protocol = value(ln, "protocol")
    if protocol is not None and protocol not in LISTENER_PROTOCOLS:
        refuse(f"{TCP_ONLY}: listener protocol {protocol} is not supported (use TCP)")
    _refuse_set(ln, "listener", (
        "default_tls_container_ref", "default_tls_container_data", "sni_container_refs",
        "sni_container_data", "client_ca_tls_container_ref", "client_crl_container_ref",
        "client_authentication", "insert_headers", "l7policies", "alpn_protocols",
        "default_pool"))
    if updating:
        return _fields(ln, LISTENER_UPDATE, True)
    return dict(_fields(ln, LISTENER_CREATE, False), id=ln.listener_id)


def pool(p, updating=False):
    protocol = value(p, "protocol")
    if protocol is not None and protocol not in POOL_PROTOCOLS:
        refuse(f"{TCP_ONLY}: pool protocol {protocol} is not supported (use TCP)")
    algorithm = value(p, "lb_algorithm")
    if algorithm is not None and algorithm not in ALGORITHMS:
        refuse(f"vigil does not balance by {algorithm}: use ROUND_ROBIN, LEAST_CONNECTIONS or "
               "SOURCE_IP")
    _session_persistence(value(p, "session_persistence"))
    _refuse_set(p, "pool", ("tls_enabled", "tls_container_ref", "ca_tls_container_ref",
                            "crl_container_ref", "alpn_protocols"))
    if value(p, "members") or value(p, "healthmonitor"):
        refuse("vigil creates a pool's members and health monitor one by one: create the pool "
               "first")
    body = _fields(p, POOL_UPDATE if updating else POOL_CREATE, updating)
    if body.get("session_persistence"):
        sp = body["session_persistence"]
        # Octavia sends every key, unset ones as None (null resets in vigil as in Octavia);
        # cookie_name is APP_COOKIE's, refused above.
        body["session_persistence"] = {
            "type": sp["type"], "persistence_timeout": sp.get("persistence_timeout"),
            "persistence_granularity": sp.get("persistence_granularity")}
    return body if updating else dict(body, id=p.pool_id)


def _session_persistence(sp):
    """Octavia has checked the object (type, cookie_name only with APP_COOKIE); vigil's pools are
    TCP, where only SOURCE_IP (a stick table on the client's address) means anything."""
    kind = (sp or {}).get("type")
    if kind not in (None, "SOURCE_IP"):
        refuse(f"{TCP_ONLY}: session persistence {kind} is not supported (use SOURCE_IP, which "
               "keeps a client on its member)")


def member(m, updating=False):
    if updating:
        return _fields(m, MEMBER_UPDATE, True)
    return dict(_fields(m, MEMBER_CREATE, False), id=m.member_id)


def healthmonitor(hm, updating=False, monitor_type=None):
    """`monitor_type`: on update, the monitor's type (an update does not carry it)."""
    kind = value(hm, "type") or monitor_type
    if kind is not None and kind not in MONITOR_TYPES:
        refuse(f"vigil does not run {kind} health monitors: use TCP, TLS-HELLO, HTTP or HTTPS")
    names = MONITOR_UPDATE if updating else MONITOR_CREATE
    if kind not in ("HTTP", "HTTPS"):
        # Octavia keeps these null for TCP and TLS-HELLO monitors; vigil refuses them there.
        names = tuple(n for n in names if n not in HTTP_MONITOR)
    if updating:
        return _fields(hm, names, True)
    return dict(_fields(hm, names, False), id=hm.healthmonitor_id)
