"""Whether the provider's vigil nodes keep their API objects in one shared store (vigil's
`admin.store: {type: etcd}`), and a change written once through such nodes.

On a shared store a write through any node is on every node: sending it to each node, as
fleet.py does for nodes with stores of their own, makes the second copy of a create meet the
first (409) and a re-push fight the store. So the change goes through the first node that
answers, and the next is tried only when the first surely did not write it: no connection, or a
503 naming the store (etcd did not commit it). After a timeout the first may have committed it;
sending it again could create it twice (409), so a create is first read back by its id, which
Octavia chose, through the next node.

Detection ([vigil] shared_store = auto): every node's /v1/status says `"store": {"type":
"etcd", "name": "etcd (<endpoints>)", "prefix": ...}`; nodes share one store when all of them
answer with the same name and prefix. A store named by loopback addresses only is not taken as
shared: each node's 127.0.0.1:2379 may be a member of one cluster or an etcd of its own, which
the name cannot tell. Nodes that spell one cluster differently (each names its own member first)
are not detected either; `shared_store = true` says so for them. A wrong "not shared" costs
409s that the driver already survives (the change is done once one node took it); a wrong
"shared" would leave nodes without changes, hence the caution.
"""
import re

from vigil_octavia.client import VigilError

AUTO, TRUE, FALSE = "auto", "true", "false"
MODES = (AUTO, TRUE, FALSE)

_LOOPBACK = re.compile(r"//(127\.|localhost\b|\[::1\])")


def identity(doc):
    """The store a node's /v1/status answer names, as a comparable value; None when the node
    keeps its objects itself, or names its store in a way that cannot be compared."""
    store = doc.get("store") if isinstance(doc, dict) else None
    if not isinstance(store, dict) or store.get("type") != "etcd":
        return None
    name, prefix = store.get("name"), store.get("prefix")
    if not name or prefix is None:  # a vigil from before the prefix was shown
        return None
    endpoints = re.findall(r"[a-z]+://[^\s,()]+", name)
    if not endpoints or all(_LOOPBACK.search(e) for e in endpoints):
        return None
    return (name, prefix)


def decide(docs, nodes):
    """(True, False or None when it cannot tell yet, why) from the /v1/status answers `docs`
    ({node: doc}) of the nodes that answered, out of `nodes` nodes."""
    if nodes < 2:
        return False, "one node"
    ids = {name: identity(doc) for name, doc in docs.items()}
    own = sorted(name for name, i in ids.items() if i is None)
    if own:
        return False, f"node {', '.join(own)} keeps its objects itself (or on a loopback etcd)"
    if len(set(ids.values())) > 1:
        return False, "the nodes name different stores: " + "; ".join(
            f"{n}: {i[0]} {i[1]}" for n, i in sorted(ids.items()))
    if len(ids) < nodes:
        return None, "not every node answered"
    name, prefix = next(iter(ids.values()))
    return True, f"every node keeps its objects in {name} under {prefix}"


def fails_over(error):
    """Whether the next node may be sent a change this node surely did not write: it could not
    be reached, or its store did not commit the change (503 naming the store)."""
    if error.maybe_applied:
        return False
    if error.status is None:
        return True
    text = error.message.lower()
    return error.status == 503 and ("store" in text or "etcd" in text)


def write_once(clients, order, call, landed=None):
    """{node: (result, None) or (None, VigilError)} of the nodes tried, in `order`, until one
    wrote the change. `landed(client)`: the object when the change is already there (a create
    read back by its id), None when not; after a timeout it is asked before the change is sent
    again. Without it (an update, a delete, a batch: each the same when applied twice), the
    change is sent again through the next node."""
    results = {}
    uncertain = False  # a node timed out: the change may be in the store
    for name in order:
        client = clients[name]
        try:
            if uncertain and landed is not None:
                found = landed(client)
                if found is not None:
                    results[name] = (found, None)
                    return results
            results[name] = (call(client), None)
            return results
        except VigilError as e:
            results[name] = (None, e)
            if uncertain and e.status == 409 and landed is not None:
                # The timed-out write reached the store after the read: this node knows it now.
                found = read(landed, client)
                if found is not None:
                    results[name] = (found, None)
                    return results
            if e.maybe_applied:
                uncertain = True
            elif not fails_over(e):
                return results  # refused by vigil or the store: every node would refuse it
    return results


def read(landed, client):
    try:
        return landed(client)
    except VigilError:
        return None
