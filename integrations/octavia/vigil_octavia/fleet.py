"""The vigil nodes one provider drives, a keepalived pair or a BGP fleet, and one call made on
all of them at once.

Every load balancer of the provider lives on every node ([vigil] endpoints): that is the
placement for SINGLE and ACTIVE_STANDBY alike, since the pair's VRRP or the fleet's BGP, not
Octavia, decides which node takes the traffic. A change is applied to each node concurrently,
so a frozen node costs one request_timeout, not one per node; a node that missed it is caught
up by the provider agent (agent.py).
"""
import concurrent.futures
import dataclasses
import time
from urllib.parse import urlsplit

from vigil_octavia.client import VigilClient, VigilError


@dataclasses.dataclass(frozen=True)
class Node:
    name: str  # the endpoint's host:port, as logs and statuses name the node
    endpoint: str
    token_file: str


def nodes(conf):
    """The [vigil] section's nodes; ValueError with the option at fault when they do not add
    up."""
    endpoints = [e.strip() for e in conf.endpoints if e.strip()] or [conf.endpoint]
    tokens = [t.strip() for t in conf.token_files if t.strip()] or [conf.token_file]
    if len(tokens) not in (1, len(endpoints)):
        raise ValueError(f"[vigil] token_files has {len(tokens)} entries for "
                         f"{len(endpoints)} endpoints: give one per endpoint, in order, or one "
                         "token_file for all")
    out = []
    for i, endpoint in enumerate(endpoints):
        parts = urlsplit(endpoint)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"[vigil] endpoints: {endpoint!r} is not an http:// or https:// URL")
        out.append(Node(parts.netloc, endpoint, tokens[i if len(tokens) > 1 else 0]))
    names = [n.name for n in out]
    if len(set(names)) != len(names):
        raise ValueError(f"[vigil] endpoints names a node twice: {', '.join(names)}")
    return out


class Fleet:
    """One client per node (a requests.Session is not shared: each call on a node runs on one
    thread at a time), and `each` to call them all."""

    def __init__(self, clients, clock=time.monotonic):
        self.clients = dict(clients)  # node name -> VigilClient, in the configured order
        self.clock = clock
        self.down_until = {}  # node name -> when a change tries it again (unreachable)
        self._pool = (concurrent.futures.ThreadPoolExecutor(
            max_workers=len(self.clients), thread_name_prefix="vigil-node")
            if len(self.clients) > 1 else None)

    @classmethod
    def from_conf(cls, conf, timeout):
        return cls({n.name: VigilClient(n.endpoint, n.token_file, timeout) for n in nodes(conf)})

    @property
    def names(self):
        return list(self.clients)

    @property
    def shared(self):
        """Several nodes hold each load balancer (translate.loadbalancer's `shared`)."""
        return len(self.clients) > 1

    def each(self, call, names=None):
        """{node: (result, None) or (None, VigilError)} of `call(client)` on every node (or on
        `names`), concurrently. Any other exception is raised, as from one call."""
        names = self.names if names is None else [n for n in self.names if n in names]

        def one(name):
            try:
                return call(self.clients[name]), None
            except VigilError as e:
                return None, e

        if self._pool is None or len(names) < 2:
            return {name: one(name) for name in names}
        futures = {name: self._pool.submit(one, name) for name in names}
        return {name: f.result() for name, f in futures.items()}

    def apply(self, call, retry_after):
        """`each` for a change: a node that did not answer the last change is left out for
        `retry_after` seconds (the agent catches it up), so a burst of changes does not wait
        for a dead node once per change; every node is tried when all are out."""
        now = self.clock()
        up = [n for n in self.names if self.down_until.get(n, 0) <= now] or self.names
        results = self.each(call, up)
        for name, (_, error) in results.items():
            if error is not None and error.status is None:
                self.down_until[name] = now + retry_after
            else:
                self.down_until.pop(name, None)
        for name in self.names:
            if name not in results:
                results[name] = (None, VigilError(None, f"not tried: {name} did not answer a "
                                                        "change in the last seconds"))
        return results
