"""vigil on every node (docs/kubernetes.md, "vigil on every node") in the system tests' namespace:
the shipped preset, deploy/kubernetes/node-local/vigil.yaml, run as it is but for its example
addresses and /etc/vigil paths, on 127.0.0.1:7445 and [::1]:7445 in front of the three masters of
testing/harness/netns.py. The masters serve the default/kubernetes EndpointSlices with a
certificate for `kubernetes` from a CA of the test's, and vigil follows them with a kubeconfig
that reads the API through vigil itself (https://127.0.0.1:7445, tls-server-name: kubernetes), as
the docs' static pod does. The preset's VIP, 10.0.0.10, becomes 127.0.0.10, where nothing
listens: a backup member that stays down.
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import yaml

from testing.harness.netns import (MASTER_PORT, MASTERS, TOKEN, Experiment, Master, Result, VigilLB,
                                   find_kubectl, http_post)
from testing.harness.paths import ROOT
from testing.harness.pki import make_ca, make_cert, write_node_kubeconfig
from testing.harness.vigil_process import read_ready_file
from testing.harness.wait import wait_for

PRESET = ROOT / "deploy/kubernetes/node-local/vigil.yaml"
PORT = 7445
EXTRA = ("master-04", "127.0.0.14")   # a master the API lists only later


def endpoints(*addresses):
    """`--endpoints` and /sim/endpoints?set= syntax."""
    return ",".join(f"{a}:{MASTER_PORT}" for a in addresses)


def preset_monitor():
    """The preset's health monitor (interval and timeout decide how long a recovery may take)."""
    pools = yaml.safe_load(PRESET.read_text())["pools"]
    return next(p for p in pools if p["name"] == "masters")["health_monitor"]


class ClusterPki:
    """A cluster CA and the API servers' certificate (DNS:kubernetes and every master's address)."""

    def __init__(self, workdir):
        d = Path(workdir) / "pki"
        d.mkdir(parents=True, exist_ok=True)
        self.ca = make_ca(d, "cluster-ca")
        ips = ",".join(f"IP:{a}" for a in [*MASTERS.values(), EXTRA[1]])
        self.cert, self.key = make_cert(d, self.ca, "apiserver", f"DNS:kubernetes,{ips}")

    def master_args(self, listed=tuple(MASTERS.values())):
        """What every master is started with: the certificate and the EndpointSlices' addresses."""
        return ["--cert", self.cert, "--key", self.key, "--endpoints", endpoints(*listed)]


class NodeLocalVigil(VigilLB):
    """The node-local preset, as a LoadBalancer of testing.harness.netns.Experiment."""

    key = "node-local"

    def __init__(self, pki):
        super().__init__(port=PORT, monitor=preset_monitor())
        self.pki = pki

    def start(self, ns, workdir):
        d = Path(workdir) / "node-local"
        d.mkdir(parents=True, exist_ok=True)
        (d / "token").write_text(TOKEN + "\n")
        write_node_kubeconfig(d, self.pki.ca)
        text = PRESET.read_text()
        for old, new in (("/etc/vigil/", f"{d}/"), ("address: 10.0.0.", "address: 127.0.0.")):
            assert old in text, f"{PRESET} no longer has {old!r}: update the test's substitutions"
            text = text.replace(old, new)
        self.config_path = d / "vigil.yaml"
        self.config_path.write_text(text)
        self.log_path = d / "vigil.log"
        ready = d / "vigil.ready"
        ready.unlink(missing_ok=True)
        self.proc = ns.spawn([self.binary, "serve", "-c", self.config_path, "--ready-file", ready], self.log_path)
        info = json.loads(read_ready_file(ready, self.proc))
        self.admin = info["admin"]
        self.listener = info["listeners"]["api"]
        ns.call(lambda: wait_for(lambda: self.source().get("state") == "following", 30,
                                 what="the node-local vigil following the API's EndpointSlices"), timeout=35)

    def pool(self):
        """The pool `masters` of GET /v1/status (from a thread inside the namespace)."""
        return next(p for p in self.status()["pools"] if p["name"] == "masters")

    def source(self):
        """The pool's members_from state: state, server, error... (from inside the namespace)."""
        return self.pool().get("members_from") or {}


def set_endpoints(ns, addresses, masters):
    """The EndpointSlices of every master in `masters` (the running ones: vigil may watch any of
    them) list `addresses`."""
    for address in masters:
        status = ns.call(http_post, address, MASTER_PORT, f"/sim/endpoints?set={endpoints(*addresses)}")
        assert status == 200, (address, status)


def refuse_endpoint_slices(ns, code, masters=tuple(MASTERS.values())):
    """Every master answers its EndpointSlice reads and watches with `code` (0: serves them again)."""
    for address in masters:
        status = ns.call(http_post, address, MASTER_PORT, f"/sim/endpoints/refuse?code={code}")
        assert status == 200, (address, status)


class Traffic:
    """The masters, the node-local vigil and every client of a system test running, without a
    scenario of Experiment's: the test changes the API's list itself, between mark("fault") and
    stop(), and result() is what the clients saw (testing.harness.netns.Result)."""

    def __init__(self, ns, workdir, scenario):
        self.ns, self.workdir, self.scenario = ns, Path(workdir), scenario
        self.pki = ClusterPki(workdir)
        self.lb = NodeLocalVigil(self.pki)
        kubectl = find_kubectl()
        if kubectl is None:
            warnings.warn("kubectl is not installed: the node-local test runs without its kubectl clients")
        self.exp = Experiment(ns, workdir, [self.lb], kubectl=kubectl, master_args=self.pki.master_args(),
                              kubectl_watch=True)

    def start(self):
        self.exp.start_masters(self.scenario)
        self.exp.start_lbs()
        self.exp.wait_lbs_ready()
        self.exp.start_clients()
        self.exp.wait_clients_warm()

    def start_master(self, name, address):
        self.exp.masters[name] = Master(self.ns, self.workdir, name, address, self.pki.master_args())
        return self.exp.masters[name]

    def mark(self, name):
        self.exp.mark(name)

    def wait_members(self, want, timeout, what):
        """Until the pool's members are exactly `want` (names), each ONLINE and in rotation but the
        backup; returns the pool."""
        def pool():
            p = self.lb.pool()
            got = {m["name"]: m for m in p["members"]}
            ok = set(got) == set(want) and all(
                m["backup"] or (m["operating_status"] == "ONLINE" and m["in_rotation"]) for m in got.values())
            return ok and p
        return self.ns.call(lambda: wait_for(pool, timeout, interval=0.2, what=what), timeout=timeout + 5)

    def stop(self):
        self.exp.stop_clients()
        nc, kc, wc, mon, kw = self.exp.clients[self.lb.key]
        res = Result(self.scenario, self.lb, self.exp.marks, nc, kc, wc, mon, kw)
        res.alive_at_end = self.exp.alive_at_end[self.lb.key]
        report = res.report_lines()
        print("\n".join(report))
        (self.workdir / "summary.txt").write_text("\n".join(report) + "\n")
        return res, report

    def destroy(self):
        self.exp.stop_all()
