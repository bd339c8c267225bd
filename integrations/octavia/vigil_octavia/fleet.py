"""The vigil nodes one provider drives, a keepalived pair or a BGP fleet, and one call made on
all of them at once.

Every load balancer of the provider lives on every node ([vigil] endpoints): that is the
placement for SINGLE and ACTIVE_STANDBY alike, since the pair's VRRP or the fleet's BGP, not
Octavia, decides which node takes the traffic. A change is applied to each node concurrently,
so a frozen node costs one request_timeout, not one per node; a node that missed it is caught
up by the provider agent (agent.py). Nodes that keep their objects in one shared store get each
change once instead (shared_store.py).
"""
import concurrent.futures
import dataclasses
import time
from urllib.parse import urlsplit

from oslo_log import log as logging

from vigil_octavia import shared_store
from vigil_octavia.client import VigilClient, VigilError

LOG = logging.getLogger(__name__)


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

    # Seconds between two detections of a shared store: /v1/status lists every load balancer,
    # too much to read again at each change of a burst.
    DETECT_AGAIN = 30.0

    def __init__(self, clients, clock=time.monotonic, store=shared_store.AUTO):
        self.clients = dict(clients)  # node name -> VigilClient, in the configured order
        self.clock = clock
        self.down_until = {}  # node name -> when a change tries it again (unreachable)
        self.store = store  # [vigil] shared_store
        self.store_shared = None  # the last detection that could tell; None: none yet
        self.store_stale = True  # detect again before the next change
        self.store_checked = None  # when the last detection ran
        self._pool = (concurrent.futures.ThreadPoolExecutor(
            max_workers=len(self.clients), thread_name_prefix="vigil-node")
            if len(self.clients) > 1 else None)

    @classmethod
    def from_conf(cls, conf, timeout):
        return cls({n.name: VigilClient(n.endpoint, n.token_file, timeout) for n in nodes(conf)},
                   store=getattr(conf, "shared_store", shared_store.AUTO))

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

    def shares_store(self):
        """Whether every node keeps its objects in one shared store: [vigil] shared_store, or
        detected from the nodes' /v1/status. A detection is kept until an error makes it stale,
        or tried again when it could not tell (a node down), at most every DETECT_AGAIN
        seconds; meanwhile the last answer (at first "not shared") stands."""
        if self.store != shared_store.AUTO or len(self.clients) < 2:
            return self.store == shared_store.TRUE and len(self.clients) > 1
        now = self.clock()
        if self.store_stale and (self.store_checked is None
                                 or now - self.store_checked >= self.DETECT_AGAIN):
            self.store_checked = now
            up = [n for n in self.names if self.down_until.get(n, 0) <= now]
            self.observe(self.each(_status, up))
        return bool(self.store_shared)

    def observe(self, answers):
        """Detects a shared store from {node: (its /v1/status, None) or (None, error)}: the
        agent's polls pass theirs, so it asks nothing more."""
        if self.store != shared_store.AUTO:
            return
        docs = {name: doc for name, (doc, error) in answers.items() if error is None}
        shared, why = shared_store.decide(docs, len(self.clients))
        if shared is None:
            return
        if shared != self.store_shared:
            LOG.info("vigil: nodes %s %s: %s", ", ".join(self.names),
                     "share one store, each change is written once" if shared
                     else "keep their objects each, each change goes to every node", why)
        self.store_shared, self.store_stale = shared, False

    def _up_first(self, now):
        up = [n for n in self.names if self.down_until.get(n, 0) <= now]
        return up + [n for n in self.names if n not in up]

    def apply(self, call, retry_after, landed=None):
        """`each` for a change: a node that did not answer the last change is left out for
        `retry_after` seconds (the agent catches it up), so a burst of changes does not wait
        for a dead node once per change; every node is tried when all are out. On a shared
        store, the change is written once (shared_store.write_once; `landed` reads a create
        back) and only the nodes tried are in the answer."""
        if self.shares_store():
            now = self.clock()
            results = shared_store.write_once(self.clients, self._up_first(now), call, landed)
            self._note(results, now, retry_after)
            return results
        now = self.clock()
        up = [n for n in self.names if self.down_until.get(n, 0) <= now] or self.names
        results = self.each(call, up)
        self._note(results, now, retry_after)
        for name, (_, error) in results.items():
            if error is not None and error.status == 409 and landed is not None:
                # The node has the object under Octavia's id already: a store shared but not
                # detected, or an earlier try that timed out.
                found = shared_store.read(landed, self.clients[name])
                if found is not None:
                    results[name] = (found, None)
        for name in self.names:
            if name not in results:
                results[name] = (None, VigilError(None, f"not tried: {name} did not answer a "
                                                        "change in the last seconds"))
        return results

    def _note(self, results, now, retry_after):
        """Remembers the nodes that did not answer; an error that may come from a store shared
        or no longer shared (no answer, 409, 503) makes the detection stale."""
        for name, (_, error) in results.items():
            self.note_answer(name, error, now, retry_after)
            if error is not None and error.status in (None, 409, 503):
                self.store_stale = True

    def note_answer(self, name, error, now, retry_after):
        """A node that did not answer (`error` without a status) is left out of changes for
        `retry_after` seconds; one that answered, even with an error, is in again."""
        if error is not None and error.status is None:
            self.down_until[name] = now + retry_after
        else:
            self.down_until.pop(name, None)


def _status(client):
    """A node's /v1/status for the detection; a node that cannot say counts as not answering."""
    try:
        return client.status()
    except VigilError:
        raise
    except Exception as e:  # a client without status(), an answer that is not JSON
        raise VigilError(None, f"no status: {e}") from e
