"""The `vigil` provider agent: octavia-driver-agent runs it in a process of its own when
octavia.conf has `[driver_agent] enabled_provider_agents = vigil`.

Every [vigil] status_interval seconds it reads every vigil node's /v1/status ([vigil] endpoints:
a keepalived pair or a BGP fleet, fleet.py), with every listener's statistics, and writes them to
Octavia when they changed, and every operating status again every resync_polls polls: an idle
cloud needs no write but the resync's. It writes directly in Octavia's database, one transaction
a poll (octavia_db.py), as the amphora driver's health manager does for amphorae; here vigil's
own health checks are the source. Only load balancers Octavia knows are written: a node may also
hold its config file's and others created through its own API.

Statuses (status.fleet_update): the view of the best node that holds a load balancer, and the
load balancer DEGRADED while another node lacks it or does not answer. When no node answers
(refused, or no answer within half an interval), its load balancers are written as Octavia's
health driver writes an amphora that stopped reporting (operating ERROR,
status.unreachable_update), so Octavia never keeps a stale ONLINE.

Level-triggered reconcile: a node that lacks a load balancer Octavia has ACTIVE (it restarted
without its state, or was replaced) gets it pushed at once, under the failover lock, as a
failover would (repush.py). A node that answers again, every node at the agent's start, and
every node at each resync is also compared with Octavia in full (reconcile.drift: the changes it
missed while it was down) and pushed again where it differs; and a load balancer Octavia deleted
meanwhile is deleted from it, if it carries Octavia's owner tag (translate.OWNER_TAG).

Nodes that share one store (shared_store.py; detected from the polls' /v1/status) are not
pushed to one by one: a write through any node is on all of them. A node that lacks what another
serves lags behind the store and is reported, not pushed to; what no node serves as Octavia
holds it is pushed once, through the first node that answers.
"""
import time

from oslo_log import log as logging

from vigil_octavia import config
from vigil_octavia import node_metrics
from vigil_octavia import reconcile
from vigil_octavia import repush
from vigil_octavia import status
from vigil_octavia import translate
from vigil_octavia.client import VigilError
from vigil_octavia.fleet import Fleet
from vigil_octavia.provisioning import driver_library, report

LOG = logging.getLogger(__name__)

# Load balancers locked, pushed and marked together: one transaction each way, and none held
# PENDING_UPDATE for longer than a chunk's pushes (about 2 s for 50 on one node).
CATCH_UP_CHUNK = 50

# A load balancer in these provisioning statuses is being created or deleted by the API's
# worker: its statuses are that worker's to write.
BUSY = ("PENDING_CREATE", "PENDING_DELETE")


class StatusPoller:
    """Every vigil node's statuses into Octavia, and every node kept holding what Octavia holds.
    `octavia` lists Octavia's vigil load balancers and locks one for a re-push
    (octavia_db.OctaviaDatabase)."""

    def __init__(self, fleet, lib, resync_polls, octavia):
        self.fleet = fleet
        self.lib = lib
        self.resync_polls = resync_polls
        self.octavia = octavia
        self.polls = 0
        self.written = {}  # load balancer id -> the operating update last written
        self.counted = {}  # load balancer id -> the statistics update last written
        self.down = set()  # load balancers written as unreachable since a node last had them
        self.failing = {}  # node -> why it did not answer the last poll (absent: it answered)
        self.seen = set()  # nodes that answered a poll since this agent started
        self.started = {}  # node -> when its vigil started, as it last said
        self.lagging = {}  # node of a shared store -> load balancers it lacked at the last poll
        self.records = node_metrics.NodeRecords(fleet.names)  # [vigil] metrics_file

    def poll(self):
        began = time.monotonic()
        self.polls += 1
        resync = self.polls % self.resync_polls == 0
        # Octavia's list first: a load balancer ACTIVE in it was in vigil before the status read.
        known = self.octavia.loadbalancers()
        views, errors, started = {}, {}, {}
        answers = self.fleet.each(lambda c: c.status())
        self.fleet.observe(answers)
        for name, (doc, error) in answers.items():
            if error is None:
                views[name] = {e["loadbalancer"]["id"]: e for e in status.api_loadbalancers(doc)}
                started[name] = status.started_at(doc)
            else:
                errors[name] = error.message
        back = self._note_answers(views, errors, started)
        self.records.answers(known, views, errors, time.time())
        # This poll's writes, made in one transaction at the end: lb id -> update.
        statuses, statistics, unreachable = {}, {}, {}
        for lb_id, (provisioning, operating) in sorted(known.items()):
            serving = [name for name in views if lb_id in views[name]]
            if serving:
                self.down.discard(lb_id)
                entries = [views[name][lb_id] for name in serving]
                update = status.fleet_update(entries, len(self.fleet.names))
                if resync or self.written.get(lb_id) != update:
                    statuses[lb_id] = update
                # Statistics only when they changed, resyncs included: a write that fails is
                # tried again, and Octavia's statistics drivers cost a transaction a listener
                # (2.5 s of a resync's 4.2 s with 1,000 load balancers).
                update = status.statistics_update(status.listener_statistics(entries))
                if update["listeners"] and self.counted.get(lb_id) != update:
                    statistics[lb_id] = update
            elif provisioning in BUSY or operating == "OFFLINE" or (
                    lb_id in self.down and not resync):
                # OFFLINE: disabled, or never served (vigil refused it): nothing to correct.
                continue
            elif not views:
                unreachable[lb_id] = "; ".join(errors.values())
            elif provisioning == "ERROR" and operating in ("ONLINE", "DEGRADED"):
                unreachable[lb_id] = "no vigil node has it"
            elif lb_id in self.written:
                del self.written[lb_id]  # written again once a node has it
        for gone in set(self.written) - known.keys():
            del self.written[gone]
            self.counted.pop(gone, None)
        self._write(statuses, statistics, unreachable)
        # Which nodes to compare with Octavia in full: those back (or seen for the first time),
        # and every node at a resync.
        compare = set(views) if resync else back
        plan = self._plan(known, views, compare, resync)
        for chunk in range(0, len(plan), CATCH_UP_CHUNK):
            self._catch_up(dict(plan[chunk:chunk + CATCH_UP_CHUNK]))
        for name in sorted(compare):
            self._delete_unowned(name, views[name], known)
        self.records.poll_done(node_metrics.operating_counts(known, self.written, self.down),
                               time.monotonic() - began, time.time())

    def _note_answers(self, views, errors, started):
        """Logs each node's episodes once; returns the nodes that answer now and did not answer
        the last poll, restarted since (a restart quicker than a poll), or had not answered
        since this agent started."""
        back = set()
        for name, at in started.items():
            if at and self.started.get(name) not in (None, at):
                LOG.warning("vigil provider agent: vigil node %s restarted (at %s)", name, at)
                self.records.restarted(name)
                back.add(name)
            if at:
                self.started[name] = at
        for name, error in errors.items():
            if self.failing.get(name) != error:
                LOG.warning("vigil provider agent: vigil node %s does not answer: %s (retrying "
                            "every poll)", name, error)
            self.failing[name] = error
        for name in views:
            if name in self.failing or name not in self.seen:
                if name in self.failing:
                    LOG.info("vigil provider agent: vigil node %s answers again", name)
                back.add(name)
            self.failing.pop(name, None)
            self.seen.add(name)
        return back

    def _plan(self, known, views, compare, resync):
        """[(load balancer, (its provisioning status, the nodes to push it to, the nodes that
        serve it meanwhile, those of the first that lack it))]: each answering node that lacks
        a load balancer Octavia has ACTIVE (ERROR too, at a resync), and each node of `compare`
        that holds one otherwise than Octavia or holds one with objects in ERROR (a change no
        node took: a push repairs them). On a shared store, only what no node serves as
        Octavia holds it, pushed once (repush.push_to); the others' nodes lag (logged)."""
        candidates = {lb_id: provisioning for lb_id, (provisioning, _) in known.items()
                      if provisioning == "ACTIVE" or (provisioning == "ERROR" and resync)}
        checked = {lb_id: [name for name in views if name in compare and lb_id in views[name]]
                   for lb_id in candidates}
        trees, broken = {}, set()
        if any(checked.values()):
            try:
                trees = self.octavia.trees([i for i, names in checked.items() if names])
                broken = self.octavia.with_error_objects()
            except Exception as e:  # SQLite busy: the next poll compares again
                LOG.info("vigil: cannot read Octavia's load balancers to compare yet: %s", e)
                checked = {}
        plan, lagging = [], {}
        shared = self.fleet.shares_store()
        for lb_id, provisioning in sorted(candidates.items()):
            lacking = [name for name in views if lb_id not in views[name]]
            differing = {}
            tree = trees.get(lb_id)
            for name in checked.get(lb_id, []) if tree is not None else []:
                reason = reconcile.drift(repush.Tree(tree), views[name][lb_id])
                if reason is None and lb_id in broken:
                    reason = "objects in provisioning ERROR in Octavia"
                if reason is not None:
                    differing[name] = reason
            serving = [n for n in views if lb_id in views[n] and n not in differing]
            if shared and serving:
                # The store holds it as Octavia does: a node without it lags behind the store,
                # which a push through that node would not cure.
                for name in lacking + sorted(differing):
                    lagging.setdefault(name, []).append(lb_id)
                continue
            for name in lacking:
                LOG.warning("vigil provider agent: vigil node %s does not have load balancer %s "
                            "(restarted without its state, or replaced): pushing it from "
                            "Octavia's database", name, lb_id)
            for name, reason in differing.items():
                LOG.warning("vigil provider agent: vigil node %s holds load balancer %s "
                            "otherwise than Octavia (%s): pushing it again", name, lb_id, reason)
            if lacking or differing:
                plan.append((lb_id, (provisioning, lacking + sorted(differing), serving,
                                     lacking)))
        if shared:
            self._note_lagging(lagging)
        return plan

    def _note_lagging(self, lagging):
        """Logs once per episode each node of a shared store that lacks, or holds otherwise,
        load balancers another node serves as Octavia does: its copy of the store is behind
        (not following etcd: its /v1/status `store` says why)."""
        for name, lb_ids in sorted(lagging.items()):
            if name not in self.lagging:
                LOG.warning("vigil provider agent: vigil node %s lags behind the shared store: "
                            "it lacks or differs on %d load balancers other nodes serve (%s); "
                            "nothing is pushed to it, it catches up from the store", name,
                            len(lb_ids), ", ".join(lb_ids[:5]))
        for name in sorted(set(self.lagging) - lagging.keys()):
            LOG.info("vigil provider agent: vigil node %s holds what the shared store holds "
                     "again", name)
        self.lagging = {name: len(lb_ids) for name, lb_ids in lagging.items()}

    def _catch_up(self, plan):
        """Pushes each load balancer of `plan` to its nodes under the failover lock
        (PENDING_UPDATE), as Octavia's health manager fails an amphora over; a chunk at a time,
        so that none stays locked for long. Marked ACTIVE, every object under it too, once a
        node holds Octavia's tree; otherwise as it was while other nodes still serve it, and
        ERROR when none does."""
        try:
            locked = self.octavia.lock_for_failover(list(plan))
            trees = self.octavia.trees(locked)
        except Exception as e:  # SQLite busy: the next poll tries again
            LOG.info("vigil: cannot lock load balancers for a re-push yet: %s", e)
            locked, trees = set(), {}
        marks = {}
        for lb_id in sorted(locked):  # a change holds the others: left to it
            provisioning, names, serving, lacking = plan[lb_id]
            tree = trees.get(lb_id)
            if tree is None:
                continue  # deleted meanwhile
            tree = repush.Tree(tree)
            errors = repush.push_to(self.fleet, tree, names, absent=lacking)
            for name, error in sorted(errors.items()):
                self.records.pushed(name, error is None)
                if error is not None:
                    LOG.warning("vigil provider agent: load balancer %s not pushed to vigil "
                                "node %s yet: %s", lb_id, name, error)
            if any(error is None for error in errors.values()):
                update = tree.active_update()
            else:
                update = {"loadbalancers": [{
                    "id": lb_id, "provisioning_status": provisioning if serving else "ERROR"}]}
            for key, items in update.items():
                marks.setdefault(key, []).extend(items)
        if marks:
            self._mark(marks)

    def _mark(self, marks):
        """Writes the outcome in one transaction; through the driver library if that fails, so
        that nothing stays PENDING_UPDATE."""
        try:
            self.octavia.mark(marks)
        except Exception as e:
            LOG.warning("vigil: cannot write the re-pushes' outcome to Octavia's database "
                        "(%s): through the driver agent instead", e)
            report(self.lib, marks)

    def _delete_unowned(self, name, view, known):
        """Deletes from the node the load balancers that carry Octavia's owner tag and that
        Octavia no longer holds (deleted while the node was down). A load balancer without the
        tag (the node's own API's, or its config file's) is never touched."""
        candidates = set(view) - known.keys()
        if not candidates:
            return
        client = self.fleet.clients[name]
        try:
            # Every one: without a limit vigil pages at Octavia's 1,000, as Octavia does.
            listed = client.request(
                "GET", "/v2/lbaas/loadbalancers?limit=infinite")["loadbalancers"]
            owned = {lb["id"] for lb in listed
                     if lb["id"] in candidates and translate.OWNER_TAG in (lb.get("tags") or [])}
            # Read Octavia again after the node: the driver creates a load balancer in vigil
            # only once Octavia committed it, so one created since the poll began is seen here.
            owned -= self.octavia.loadbalancers().keys() if owned else set()
            for lb_id in sorted(owned):
                LOG.warning("vigil provider agent: vigil node %s holds load balancer %s, which "
                            "Octavia deleted: deleting it there", name, lb_id)
                client.delete("loadbalancer", lb_id, cascade=True)
        except VigilError as e:
            LOG.info("vigil: cannot compare node %s's load balancers with Octavia's yet: %s",
                     name, e.message)

    def _write(self, statuses, statistics, unreachable):
        """Writes the poll's operating statuses (and, for the load balancers in `unreachable`
        with the reason, what Octavia's health driver writes for an amphora that stopped
        reporting) in one transaction, and the statistics in one call; what fails is written
        at the next poll."""
        silenced = {}
        if unreachable:
            # Octavia's tree says what to write where nothing was written since the agent
            # started; the statuses last written say it otherwise.
            need = [i for i in unreachable if self.written.get(i) is None]
            try:
                trees = self.octavia.trees(need) if need else {}
            except Exception as e:  # SQLite busy: the next poll tries again
                LOG.info("vigil: cannot read unreachable load balancers from Octavia yet: %s", e)
                trees = {}
            for lb_id in unreachable:
                written = self.written.get(lb_id)
                if written is not None:
                    silenced[lb_id] = status.silenced(written)
                elif lb_id in trees:
                    silenced[lb_id] = status.unreachable_update(trees[lb_id])
        merged = {}
        for update in list(statuses.values()) + list(silenced.values()):
            for key, items in update.items():
                merged.setdefault(key, []).extend(items)
        try:
            if merged:
                self.octavia.write_operating(merged)
        except Exception as e:
            LOG.info("vigil: operating statuses of %d load balancers not written yet: %s",
                     len(statuses) + len(silenced), e)
        else:
            self.written.update(statuses)
            for lb_id in silenced:
                self.written.pop(lb_id, None)  # the nodes' statuses are written again
                if lb_id not in self.down:
                    LOG.warning("vigil provider agent: load balancer %s is now operating ERROR, "
                                "its listeners ERROR and its pools and members OFFLINE: %s",
                                lb_id, unreachable[lb_id])
                self.down.add(lb_id)
        listeners = [item for update in statistics.values() for item in update["listeners"]]
        try:
            self.octavia.write_statistics(listeners)
        except Exception as e:
            LOG.info("vigil: statistics of %d listeners not written yet: %s", len(listeners), e)
        else:
            self.counted.update(statistics)


def vigil_provider_agent(exit_event):
    """The entry point octavia-driver-agent calls; returns when exit_event is set."""
    from vigil_octavia.octavia_db import OctaviaDatabase  # Octavia's own modules: only here

    conf = config.register()
    # A poll a node does not answer within half an interval says it is down: a frozen vigil is
    # seen, and written down, within two intervals, not after request_timeout.
    try:
        fleet = Fleet.from_conf(conf, min(conf.request_timeout, conf.status_interval / 2))
    except ValueError as e:
        LOG.error("vigil provider agent cannot start: %s", e)
        return
    LOG.info("vigil provider agent: polling vigil node %s every %ss", ", ".join(fleet.names),
             conf.status_interval)
    poller = StatusPoller(fleet, driver_library(), conf.resync_polls, OctaviaDatabase())
    last_error = metrics_error = None
    next_poll = time.monotonic()
    while not exit_event.is_set():
        error = None
        try:
            poller.poll()
        except Exception as e:  # Octavia's database or driver agent: the next poll tries again
            error = f"cannot read Octavia's database: {e}"
        # Logged once per episode, outside the except (oslo.log would append the exception).
        if error != last_error:
            if error is None:
                LOG.info("vigil provider agent: Octavia's database answers again")
            else:
                LOG.warning("vigil provider agent: %s (retrying every %ss)", error,
                            conf.status_interval)
            last_error = error
        if conf.metrics_file:
            metrics_error = _write_metrics(conf.metrics_file, poller.records, metrics_error)
        # Polls start every interval, however long the last one took.
        next_poll = max(next_poll + conf.status_interval, time.monotonic())
        exit_event.wait(next_poll - time.monotonic())
    LOG.info("vigil provider agent is exiting")


def _write_metrics(path, records, last_error):
    """Writes [vigil] metrics_file; logs a failure once per episode. Returns this one's error."""
    try:
        node_metrics.write(path, records)
        error = None
    except OSError as e:
        error = f"cannot write [vigil] metrics_file {path}: {e}"
    if error != last_error:
        if error is None:
            LOG.info("vigil provider agent: writes %s again", path)
        else:
            LOG.warning("vigil provider agent: %s (retrying every poll)", error)
    return error
