"""The `vigil` provider agent: octavia-driver-agent runs it in a process of its own when
octavia.conf has `[driver_agent] enabled_provider_agents = vigil`.

Every [vigil] status_interval seconds it reads vigil's /v1/status and each listener's statistics
and writes them to Octavia through the driver library when they changed, and all of them every
resync_polls polls: each write is a database transaction, and an idle cloud needs none. This
is what the amphora driver's health manager does for amphorae; here vigil's own health checks
are the source. Only load balancers Octavia knows are written: vigil may also hold its config
file's and others created through its own API.
"""
from oslo_log import log as logging

from vigil_octavia import config
from vigil_octavia import status
from vigil_octavia.client import VigilClient, VigilError
from vigil_octavia.provisioning import driver_library

LOG = logging.getLogger(__name__)


class StatusPoller:
    def __init__(self, client, lib, resync_polls):
        self.client = client
        self.lib = lib
        self.resync_polls = resync_polls
        self.polls = 0
        self.written = {}  # load balancer id -> the operating update last written
        self.counted = {}  # load balancer id -> the statistics update last written

    def poll(self):
        self.polls += 1
        resync = self.polls % self.resync_polls == 0
        seen = set()
        for entry in status.api_loadbalancers(self.client.status()):
            lb_id = entry["loadbalancer"]["id"]
            if lb_id not in self.written and not self._known(lb_id):
                continue  # not Octavia's (or not committed yet)
            seen.add(lb_id)
            self._write_statuses(lb_id, status.operating_update(entry), resync)
            self._write_statistics(lb_id, entry, resync)
        for gone in set(self.written) - seen:
            del self.written[gone]
            self.counted.pop(gone, None)

    def _known(self, lb_id):
        try:
            return self.lib.get_loadbalancer(lb_id) is not None
        except Exception as e:  # the driver agent busy or restarting: the next poll asks again
            error = str(e)
        LOG.info("vigil: cannot look up load balancer %s in Octavia: %s", lb_id, error)
        return False

    def _write_statuses(self, lb_id, update, resync):
        if not resync and self.written.get(lb_id) == update:
            return
        try:
            self.lib.update_loadbalancer_status(dict(update))
            self.written[lb_id] = update
        except Exception as e:  # the next poll tries again
            self.written.setdefault(lb_id, None)
            LOG.info("vigil: operating statuses of load balancer %s not written yet: %s",
                     lb_id, e)

    def _write_statistics(self, lb_id, entry, resync):
        stats = {}
        for listener_id in status.listener_ids(entry):
            try:
                stats[listener_id] = self.client.listener_stats(listener_id)
            except VigilError as e:
                LOG.info("vigil: no statistics for listener %s: %s", listener_id, e.message)
        update = status.statistics_update(stats)
        if not stats or (not resync and self.counted.get(lb_id) == update):
            return
        try:
            self.lib.update_listener_statistics(update)
            self.counted[lb_id] = update
        except Exception as e:  # the next poll tries again
            LOG.info("vigil: listener statistics of load balancer %s not written: %s", lb_id, e)


def vigil_provider_agent(exit_event):
    """The entry point octavia-driver-agent calls; returns when exit_event is set."""
    conf = config.register()
    LOG.info("vigil provider agent: polling %s every %ss", conf.endpoint, conf.status_interval)
    poller = StatusPoller(VigilClient.from_conf(conf), driver_library(), conf.resync_polls)
    last_error = None
    while not exit_event.is_set():
        error = None
        try:
            poller.poll()
        except VigilError as e:
            error = e.message
        # Logged once per episode, outside the except (oslo.log would append the exception).
        if error != last_error:
            if error is None:
                LOG.info("vigil provider agent: vigil at %s answers again", conf.endpoint)
            else:
                LOG.warning("vigil provider agent: %s (retrying every %ss)", error,
                            conf.status_interval)
            last_error = error
        exit_event.wait(conf.status_interval)
    LOG.info("vigil provider agent is exiting")
