"""The `vigil` provider agent: octavia-driver-agent runs it in a process of its own when
octavia.conf has `[driver_agent] enabled_provider_agents = vigil`.

Every [vigil] status_interval seconds it reads vigil's /v1/status and each listener's statistics
and writes them to Octavia through the driver library when they changed, and all of them every
resync_polls polls: each write is a database transaction, and an idle cloud needs none. This
is what the amphora driver's health manager does for amphorae; here vigil's own health checks
are the source. Only load balancers Octavia knows are written: vigil may also hold its config
file's and others created through its own API.

When vigil does not answer (refused, or no answer within one interval), its load balancers are
written as Octavia's health driver writes an amphora that stopped reporting (operating ERROR,
status.unreachable_update), so Octavia never keeps a stale ONLINE. When it answers again, its own
statuses are written; a load balancer Octavia has ACTIVE that vigil lacks (it restarted without
its state) is locked and pushed again, as a failover would (repush.py).
"""
import time

from oslo_log import log as logging

from vigil_octavia import config
from vigil_octavia import repush
from vigil_octavia import status
from vigil_octavia.client import VigilClient, VigilError
from vigil_octavia.provisioning import driver_library, report

LOG = logging.getLogger(__name__)

# A load balancer in these provisioning statuses is being created or deleted by the API's
# worker: its statuses are that worker's to write.
BUSY = ("PENDING_CREATE", "PENDING_DELETE")


class StatusPoller:
    """One vigil's statuses into Octavia. `octavia` lists Octavia's vigil load balancers and
    locks one for a re-push (octavia_db.OctaviaDatabase)."""

    def __init__(self, client, lib, resync_polls, octavia):
        self.client = client
        self.lib = lib
        self.resync_polls = resync_polls
        self.octavia = octavia
        self.polls = 0
        self.written = {}  # load balancer id -> the operating update last written
        self.counted = {}  # load balancer id -> the statistics update last written
        self.down = set()  # load balancers written as unreachable since vigil last had them

    def poll(self):
        """Raises VigilError when vigil does not answer, once its load balancers are written
        down."""
        self.polls += 1
        resync = self.polls % self.resync_polls == 0
        # Octavia's list first: a load balancer ACTIVE in it was in vigil before the status read.
        known = self.octavia.loadbalancers()
        try:
            entries = status.api_loadbalancers(self.client.status())
        except VigilError as e:
            self._write_unreachable(known, e.message, resync)
            raise
        seen = set()
        for entry in entries:
            lb_id = entry["loadbalancer"]["id"]
            if lb_id not in known:
                continue  # not Octavia's (or not committed yet)
            seen.add(lb_id)
            self.down.discard(lb_id)
            self._write_statuses(lb_id, status.operating_update(entry), resync)
            self._write_statistics(lb_id, entry, resync)
        for gone in set(self.written) - seen:
            del self.written[gone]
            self.counted.pop(gone, None)
        for lb_id, (provisioning, operating) in sorted(known.items()):
            if lb_id in seen:
                continue
            if provisioning == "ACTIVE":
                self._catch_up(lb_id)
            elif provisioning == "ERROR" and operating in ("ONLINE", "DEGRADED"):
                self._write_unreachable({lb_id: known[lb_id]}, "vigil does not have it", resync)

    def _write_unreachable(self, known, reason, resync):
        """What Octavia's health driver writes for an amphora that stopped reporting."""
        for lb_id, (provisioning, operating) in sorted(known.items()):
            # OFFLINE: disabled, or never served (vigil refused it): nothing to correct.
            if (provisioning in BUSY or operating == "OFFLINE" or
                    (lb_id in self.down and not resync)):
                continue
            # vigil's statuses are written again when it answers.
            written = self.written.pop(lb_id, None)
            try:
                if written is not None:
                    update = status.silenced(written)
                else:  # none written since this agent started: Octavia's tree says what to
                    lb = self.lib.get_loadbalancer(lb_id)
                    update = lb and status.unreachable_update(lb)
                if update:
                    self.lib.update_loadbalancer_status(update)
            except Exception as e:  # the next poll tries again
                if written is not None:
                    self.written[lb_id] = written
                LOG.info("vigil: statuses of unreachable load balancer %s not written yet: %s",
                         lb_id, e)
                continue
            if lb_id not in self.down:
                LOG.warning("vigil provider agent: load balancer %s is now operating ERROR, "
                            "its listeners ERROR and its pools and members OFFLINE: %s",
                            lb_id, reason)
            self.down.add(lb_id)

    def _catch_up(self, lb_id):
        """vigil lacks a load balancer Octavia has ACTIVE: it restarted without its state.
        Pushed again as a failover would, under the same lock (PENDING_UPDATE)."""
        try:
            locked = self.octavia.lock_for_failover(lb_id)
        except Exception as e:  # SQLite busy: the next poll tries again
            LOG.info("vigil: cannot lock load balancer %s for a re-push yet: %s", lb_id, e)
            return
        if not locked:
            return  # a change holds it
        LOG.warning("vigil provider agent: vigil does not have load balancer %s (restarted "
                    "without its state?): pushing it again from Octavia's database", lb_id)
        update = repush.failover(self.lib, self.client, lb_id)
        if update is not None:
            report(self.lib, update)

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
                if e.status is None:
                    raise  # vigil stopped answering: the next poll finds out
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
    from vigil_octavia.octavia_db import OctaviaDatabase  # Octavia's own modules: only here

    conf = config.register()
    LOG.info("vigil provider agent: polling %s every %ss", conf.endpoint, conf.status_interval)
    # A poll vigil does not answer within half an interval says it is down: a frozen vigil is
    # seen, and written down, within two intervals, not after request_timeout.
    client = VigilClient(conf.endpoint, conf.token_file,
                         min(conf.request_timeout, conf.status_interval / 2))
    poller = StatusPoller(client, driver_library(), conf.resync_polls, OctaviaDatabase())
    last_error = None
    next_poll = time.monotonic()
    while not exit_event.is_set():
        error = None
        try:
            poller.poll()
        except VigilError as e:
            error = e.message
        except Exception as e:  # Octavia's database or driver agent: the next poll tries again
            error = f"cannot read Octavia's database: {e}"
        # Logged once per episode, outside the except (oslo.log would append the exception).
        if error != last_error:
            if error is None:
                LOG.info("vigil provider agent: vigil at %s answers again", conf.endpoint)
            else:
                LOG.warning("vigil provider agent: %s (retrying every %ss)", error,
                            conf.status_interval)
            last_error = error
        # Polls start every interval, however long the last one took.
        next_poll = max(next_poll + conf.status_interval, time.monotonic())
        exit_event.wait(next_poll - time.monotonic())
    LOG.info("vigil provider agent is exiting")
