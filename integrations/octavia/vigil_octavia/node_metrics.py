"""What the provider agent knows of each vigil node, as Prometheus metrics in a file
([vigil] metrics_file, for node_exporter's textfile collector).

Octavia shows a load balancer's operating status, DEGRADED while a node lacks it or does not
answer, but not which node: octavia-lib gives a provider no record per node. Octavia's amphora
table would, but the amphora API's failover and configure calls cast RPCs to the amphora
worker for any row in it: with no worker (a vigil-only cloud) the load balancer would stay
PENDING_UPDATE for good, and with one it would try to rebuild a Nova server that is not there.
So the per-node view is here, beside each node's own /metrics (`vigil_lb_status`).

Counts only, no series per load balancer: the file stays a few hundred bytes at any scale.
"""
import dataclasses

from prometheus_client import CollectorRegistry, write_to_textfile
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily


@dataclasses.dataclass
class NodeRecord:
    up: bool = False  # answered the last poll
    error: str = ""  # why it did not, when it did not
    last_answer: float = 0.0  # wall-clock time of its last answer
    held: int = 0  # Octavia's load balancers it holds, at its last answer
    lacking: int = 0  # Octavia's ACTIVE load balancers it lacked at its last answer
    restarts: int = 0  # restarts seen (its vigil's started_at changed)
    pushes: dict = dataclasses.field(default_factory=lambda: {"ok": 0, "failed": 0})


class NodeRecords:
    """Filled by StatusPoller.poll, read by `write`."""

    def __init__(self, names):
        self.nodes = {name: NodeRecord() for name in names}
        self.operating = {}  # Octavia operating status -> load balancers, as last written
        self.polls = 0
        self.poll_seconds = 0.0  # how long the last poll took
        self.last_poll = 0.0  # wall-clock time the last poll ended

    def answers(self, known, views, errors, now):
        """One poll's answers: `known` is Octavia's {lb id: (provisioning, operating)},
        `views` each answering node's {lb id: entry}, `errors` the others' reasons."""
        for name, view in views.items():
            record = self.nodes[name]
            record.up, record.error, record.last_answer = True, "", now
            record.held = sum(1 for lb_id in known if lb_id in view)
            record.lacking = sum(1 for lb_id, (provisioning, _) in known.items()
                                 if provisioning == "ACTIVE" and lb_id not in view)
        for name, error in errors.items():
            self.nodes[name].up, self.nodes[name].error = False, error

    def restarted(self, name):
        self.nodes[name].restarts += 1

    def pushed(self, name, ok):
        self.nodes[name].pushes["ok" if ok else "failed"] += 1

    def poll_done(self, operating, seconds, now):
        self.operating = dict(operating)
        self.polls += 1
        self.poll_seconds, self.last_poll = seconds, now

    def families(self):
        def gauge(name, doc, labels=()):
            return GaugeMetricFamily(name, doc, labels=list(labels))

        up = gauge("vigil_octavia_node_up", "1 when the vigil node answered the agent's last "
                   "poll of /v1/status, else 0.", ["node"])
        last = gauge("vigil_octavia_node_last_answer_timestamp_seconds",
                     "When the vigil node last answered a poll (0: never, since the agent "
                     "started).", ["node"])
        held = gauge("vigil_octavia_node_loadbalancers", "Octavia's load balancers the vigil "
                     "node held at its last answer.", ["node"])
        lacking = gauge("vigil_octavia_node_loadbalancers_lacking", "Octavia's ACTIVE load "
                        "balancers the vigil node lacked at its last answer (the agent pushes "
                        "them).", ["node"])
        restarts = CounterMetricFamily("vigil_octavia_node_restarts", "Restarts of the vigil "
                                       "node's process that the agent saw.", labels=["node"])
        pushes = CounterMetricFamily("vigil_octavia_node_pushes", "Load balancers the agent "
                                     "pushed to the vigil node from Octavia's database, by "
                                     "outcome.", labels=["node", "result"])
        for name, record in self.nodes.items():
            up.add_metric([name], 1 if record.up else 0)
            last.add_metric([name], record.last_answer)
            held.add_metric([name], record.held)
            lacking.add_metric([name], record.lacking)
            restarts.add_metric([name], record.restarts)
            for result, count in sorted(record.pushes.items()):
                pushes.add_metric([name, result], count)
        operating = gauge("vigil_octavia_loadbalancers", "Octavia's vigil load balancers by the "
                          "operating status the agent last wrote or read.", ["operating_status"])
        for status, count in sorted(self.operating.items()):
            operating.add_metric([status], count)
        polls = CounterMetricFamily("vigil_octavia_polls", "Polls of the vigil nodes.")
        polls.add_metric([], self.polls)
        took = gauge("vigil_octavia_poll_duration_seconds", "How long the last poll took "
                     "(reads, writes and pushes).")
        took.add_metric([], self.poll_seconds)
        at = gauge("vigil_octavia_last_poll_timestamp_seconds", "When the last poll ended: an "
                   "agent that stopped polling shows here.")
        at.add_metric([], self.last_poll)
        return [up, last, held, lacking, restarts, pushes, operating, polls, took, at]


def operating_counts(known, written, down):
    """{operating status: load balancers}: for each of Octavia's load balancers (`known`, {lb
    id: (provisioning, operating)} as read at the poll's start), the status the poll wrote
    (`written`, lb id -> operating_update; `down`, those written unreachable) or else the one
    Octavia holds."""
    counts = {}
    for lb_id, (_, operating) in known.items():
        if lb_id in down:
            operating = "ERROR"
        elif lb_id in written:
            operating = written[lb_id]["loadbalancers"][0]["operating_status"]
        counts[operating] = counts.get(operating, 0) + 1
    return counts


class _Collector:
    def __init__(self, records):
        self.records = records

    def collect(self):
        return self.records.families()


def write(path, records):
    """Writes the records to `path` in Prometheus' text format, replacing it at once
    (prometheus_client writes a temporary file beside it and renames it)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Collector(records))
    write_to_textfile(path, registry)
