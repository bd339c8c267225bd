"""The [vigil] section of octavia.conf: where the vigil daemon's admin API is and how to reach it.

Registered on import by the driver (in octavia-api) and by the provider agent (in
octavia-driver-agent); `list_opts` is for oslo-config-generator.
"""
from oslo_config import cfg

GROUP = "vigil"

OPTS = [
    cfg.URIOpt("endpoint", default="http://127.0.0.1:8404", schemes=["http", "https"],
               help="Base URL of the vigil daemon's admin API (its admin.listen)."),
    cfg.StrOpt("token_file", default="/etc/vigil/token",
               help="File holding vigil's admin token (its admin.token_file); read at every "
                    "request, so a rotated token is picked up."),
    cfg.ListOpt("endpoints", default=[],
                help="Base URLs of every vigil node that serves this provider's load "
                     "balancers: a keepalived pair or a BGP fleet. Each load balancer lives on "
                     "every node; a change is applied to each, and a node that missed one is "
                     "caught up by the provider agent, unless the nodes share one store "
                     "(shared_store). Empty: the single endpoint above."),
    cfg.StrOpt("shared_store", default="auto", choices=["auto", "true", "false"],
               help="Whether the nodes of endpoints keep their API objects in one shared store "
                    "(vigil's admin.store type etcd): then each change is written once, "
                    "through the first node that answers, and the provider agent pushes "
                    "nothing to a node that lacks an object another node serves (it reports "
                    "it as lagging). auto: shared when every node's /v1/status names the same "
                    "etcd endpoints and prefix, not on loopback addresses. true: for nodes "
                    "that name one etcd cluster differently (each its own member first)."),
    cfg.ListOpt("token_files", default=[],
                help="One token file per entry of endpoints, in the same order, when the "
                     "nodes have different tokens. Empty: token_file for every node."),
    cfg.FloatOpt("request_timeout", default=10.0, min=0.1,
                 help="Seconds to wait for one answer of vigil's admin API."),
    cfg.IntOpt("status_interval", default=5, min=1,
               help="Seconds between two polls of vigil's statuses and statistics by the "
                    "provider agent (octavia-driver-agent, enabled_provider_agents = vigil)."),
    cfg.IntOpt("resync_polls", default=12, min=1,
               help="Every this many polls the agent writes every operating status again, "
                    "changed or not, so Octavia's database heals from a lost update, and "
                    "compares every node with Octavia in full."),
    cfg.StrOpt("metrics_file", default="",
               help="A file the provider agent writes after every poll with what it knows of "
                    "each vigil node (answering, load balancers held and lacking, pushes) in "
                    "Prometheus' text format: for node_exporter's textfile collector, e.g. "
                    "/var/lib/prometheus/node-exporter/vigil_octavia.prom. Empty: none."),
    cfg.IntOpt("commit_timeout", default=60, min=1,
               help="Seconds the driver waits for Octavia's API to commit a new object before "
                    "it gives up creating it in vigil (the API rolled the request back)."),
]


def register(conf=cfg.CONF):
    """Registers the options (once) and returns the [vigil] group."""
    conf.register_opts(OPTS, group=GROUP)
    return conf.vigil


def list_opts():
    return [(GROUP, OPTS)]
