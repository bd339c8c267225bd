"""The same stock `openstack loadbalancer` CLI steps against the real Octavia 11 API (noop
provider, its statuses moved on through the driver agent as a real provider would:
noop_provider.py) and against a vigil daemon's own Octavia API, compared field by field
(differential.py says what is normalised). Every difference left must be in
deliberate_differences.yaml with its reason, and every entry there must still occur.

Both sides sit behind the same ProjectProxy (what Keystone's middleware does: X-Project-Id);
Octavia's also answers the CLI's Neutron lookups with vigil's own subnet, so both see the same
`--vip-subnet-id vigil-local`. The listener's port is one the kernel picked (vigil binds it),
the same on both sides. vigil's members are three simulated API servers, so its checks pass.
"""
import concurrent.futures
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from differential import (Answer, Labels, as_entries, check, differences, is_raw,
                          load_deliberate)
from testing.harness.octavia_api import free_port, raw, start_vigil
from testing.harness.octavia_harness import PROJECT_ID, PYTHON, Octavia, missing
from testing.harness.project_proxy import ProjectProxy
from testing.harness.vigil_process import TOKEN, ApiSim
from testing.harness.wait import wait_for

pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))
HERE = Path(__file__).resolve().parent
DELIBERATE = HERE / "deliberate_differences.yaml"
MISSING_ID = "00000000-0000-4000-8000-000000000000"
KINDS = {"listener", "pool", "member", "healthmonitor"}


class Cli:
    """cli_runner.py against one endpoint; runs one step at a time."""

    def __init__(self, endpoint, token, tmp_path, name):
        env = dict(os.environ, no_proxy="*", NO_PROXY="*", PYTHONWARNINGS="ignore")
        for key in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
            env.pop(key, None)
        self.base = ["--os-auth-type", "admin_token", "--os-token", token,
                     "--os-endpoint", endpoint, "loadbalancer"]
        self.errors = open(Path(tmp_path) / f"cli-{name}.log", "w")
        self.proc = subprocess.Popen([PYTHON, str(HERE / "cli_runner.py")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.errors, text=True,
                                     env=env)
        self.labels = Labels()

    def run(self, args):
        # SQLite answers a writer that would wait for another "database is locked" and rolls
        # it back (a cloud's MySQL waits): that answer, and only that one, is tried again.
        start = time.monotonic()
        for _ in range(3):
            self.proc.stdin.write(json.dumps(self.base + list(args)) + "\n")
            self.proc.stdin.flush()
            done = json.loads(self.proc.stdout.readline() or "null")
            assert done is not None, f"cli_runner exited: {self.proc.poll()}"
            if "database is locked" not in done["stderr"]:
                break
        done["seconds"] = round(time.monotonic() - start, 2)
        return done

    def stop(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.errors.close()


class Differential:
    def __init__(self, octavia_cli, vigil_cli, provider, record):
        self.sides = {"octavia": octavia_cli, "vigil": vigil_cli}
        self.record = record  # every step's answers, for whoever reads a failure
        self.steps = []
        self.provider = provider
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)
        self.found = []
        self.names = set()

    def step(self, name, *args, settle=True):
        """Runs `openstack loadbalancer ARGS` on both sides at once; a write (settle) is then
        reported done by the noop provider. Returns both answers, normalised."""
        assert name not in self.names, f"two steps named {name}"
        self.names.add(name)
        start = time.monotonic()
        futures = {side: self.pool.submit(cli.run, args) for side, cli in self.sides.items()}
        done = {side: f.result(timeout=120) for side, f in futures.items()}
        ran = time.monotonic()
        if settle:
            self.provider.settle()
        seconds = {"run": round(ran - start, 2), "settle": round(time.monotonic() - ran, 2),
                   **{side: d["seconds"] for side, d in done.items()}}
        for side, cli in self.sides.items():
            self._learn(args, done[side], cli.labels)
        answers = {side: Answer.of(done[side], cli.labels) for side, cli in self.sides.items()}
        self.found += differences(name, answers["octavia"], answers["vigil"])
        self.steps.append({"step": name, "args": list(args), "seconds": seconds,
                           **{side: vars(a) for side, a in answers.items()}})
        return answers

    @staticmethod
    def _learn(args, done, labels):
        """Labels the id a create answered with `<kind:name>`."""
        kind = args[0] if args[0] in KINDS else "loadbalancer"
        if "create" not in args[:2] or "-f" not in args or done["rc"] != 0:
            return
        obj = json.loads(done["stdout"])
        labels.add(obj["id"], f"{kind}:{obj.get('name') or 'unnamed'}")

    def stop(self):
        self.pool.shutdown(wait=True)
        self.record.write_text(json.dumps(self.steps, indent=1))


def vigil_members_online(vigil):
    code, body = raw(vigil, "GET", "/v2/lbaas/pools/masters/members")
    return code == 200 and all(m["operating_status"] == "ONLINE" for m in body["members"])


def test_octavia_and_vigil_answer_alike(tmp_path, cleanup):
    sims = [ApiSim(tmp_path, f"master-0{i}") for i in (1, 2, 3)]
    for sim in sims:
        cleanup(sim)
    vigil = start_vigil(tmp_path, cleanup)
    host, admin_port = vigil.admin.rsplit(":", 1)
    vigil_proxy = ProjectProxy(host, int(admin_port), PROJECT_ID, neutron=None)
    cleanup(vigil_proxy)
    # Octavia's proxy answers the CLI's Neutron lookups with vigil's own subnet and network.
    subnet = raw(vigil, "GET", "/v2.0/subnets?name=vigil-local")[1]["subnets"][0]
    network = raw(vigil, "GET", f"/v2.0/networks/{subnet['network_id']}")[1]["network"]
    octavia = Octavia(tmp_path, neutron={"subnets": subnet, "networks": network, "ports": None})
    cleanup(octavia)
    from noop_provider import NoopProvider  # octavia_lib: only where Octavia is installed
    sides = [Cli(octavia.endpoint, "noauth", tmp_path, "octavia"),
             Cli(f"http://127.0.0.1:{vigil_proxy.port}", TOKEN, tmp_path, "vigil")]
    for cli in sides:
        cleanup(cli)
        cli.labels.add(subnet["id"], "subnet:vigil-local")
        cli.labels.add(network["id"], "network:vigil-local")
        for sim in sims:
            cli.labels.add_port(sim.port, f"port:{sim.name}")
    diff = Differential(*sides, NoopProvider(octavia), tmp_path / "differential.json")
    cleanup(diff)
    step = diff.step
    port, web_port = str(free_port()), str(free_port())
    for cli in sides:
        cli.labels.add_port(port, "port:api")
        cli.labels.add_port(web_port, "port:web")

    # Creates, each followed by its show and list.
    step("lb create", "create", "--name", "k8s", "--vip-subnet-id", "vigil-local",
         "--vip-address", "127.0.0.1", "-f", "json")
    step("lb show", "show", "k8s", "-f", "json", settle=False)
    step("lb list", "list", "-f", "json", settle=False)
    step("lb list --project", "list", "--project", PROJECT_ID, "-f", "json", settle=False)
    step("listener create", "listener", "create", "--name", "api", "--protocol", "TCP",
         "--protocol-port", port, "k8s", "-f", "json")
    step("listener show", "listener", "show", "api", "-f", "json", settle=False)
    step("listener list", "listener", "list", "-f", "json", settle=False)
    step("listener list --project", "listener", "list", "--project", PROJECT_ID, "-f", "json",
         settle=False)
    step("status show, no pool", "status", "show", "k8s", settle=False)
    step("pool create, UDP on TCP", "pool", "create", "--protocol", "UDP",
         "--lb-algorithm", "ROUND_ROBIN", "--listener", "api")
    step("pool create", "pool", "create", "--name", "masters", "--protocol", "TCP",
         "--lb-algorithm", "ROUND_ROBIN", "--listener", "api", "-f", "json")
    step("pool show", "pool", "show", "masters", "-f", "json", settle=False)
    step("pool list", "pool", "list", "-f", "json", settle=False)
    step("status show, empty pool", "status", "show", "k8s", settle=False)
    for sim in sims:
        step(f"member create {sim.name}", "member", "create", "--name", sim.name,
             "--address", "127.0.0.1", "--protocol-port", str(sim.port), "masters", "-f", "json")
    step("member show", "member", "show", "masters", "master-01", "-f", "json", settle=False)
    step("member list", "member", "list", "masters", "-f", "json", settle=False)
    step("member list --project", "member", "list", "masters", "--project", PROJECT_ID,
         "-f", "json", settle=False)
    step("status show, no monitor", "status", "show", "k8s", settle=False)
    step("healthmonitor create", "healthmonitor", "create", "--name", "tls", "--delay", "5",
         "--max-retries", "4", "--timeout", "10", "--type", "TLS-HELLO", "masters", "-f", "json")
    wait_for(lambda: vigil_members_online(vigil), timeout=60, interval=0.2,
             what="vigil's members ONLINE")
    step("healthmonitor show", "healthmonitor", "show", "tls", "-f", "json", settle=False)
    step("healthmonitor list", "healthmonitor", "list", "-f", "json", settle=False)
    step("healthmonitor list --project", "healthmonitor", "list", "--project", PROJECT_ID,
         "-f", "json", settle=False)
    step("member list, monitored", "member", "list", "masters", "-f", "json", settle=False)
    step("status show", "status", "show", "k8s", settle=False)
    step("stats show", "stats", "show", "k8s", "-f", "json", settle=False)
    step("listener stats show", "listener", "stats", "show", "api", "-f", "json", settle=False)

    # Changes, each followed by a show.
    step("lb set", "set", "--description", "the API servers", "k8s")
    step("lb show, set", "show", "k8s", "-f", "json", settle=False)
    step("listener set", "listener", "set", "--connection-limit", "1000", "--description",
         "kube-apiserver", "api")
    step("listener show, set", "listener", "show", "api", "-f", "json", settle=False)
    step("pool set", "pool", "set", "--lb-algorithm", "LEAST_CONNECTIONS", "masters")
    step("pool show, set", "pool", "show", "masters", "-f", "json", settle=False)
    step("member set --weight 0", "member", "set", "--weight", "0", "masters", "master-03")
    step("member set --disable", "member", "set", "--disable", "masters", "master-02")
    step("member list, set", "member", "list", "masters", "-f", "json", settle=False)
    step("healthmonitor set", "healthmonitor", "set", "--delay", "6", "--max-retries-down", "5",
         "tls")
    step("healthmonitor show, set", "healthmonitor", "show", "tls", "-f", "json", settle=False)
    step("status show, set", "status", "show", "k8s", settle=False)
    step("lb unset", "unset", "--description", "k8s")
    step("listener unset", "listener", "unset", "--connection-limit", "api")
    step("member unset", "member", "unset", "--weight", "masters", "master-03")
    step("healthmonitor unset", "healthmonitor", "unset", "--max-retries-down", "tls")
    step("listener show, unset", "listener", "show", "api", "-f", "json", settle=False)
    step("member show, unset", "member", "show", "masters", "master-03", "-f", "json",
         settle=False)
    step("healthmonitor show, unset", "healthmonitor", "show", "tls", "-f", "json", settle=False)

    # Errors.
    step("show missing", "show", MISSING_ID, settle=False)
    step("listener show missing", "listener", "show", MISSING_ID, settle=False)
    step("member show missing", "member", "show", "masters", MISSING_ID, settle=False)
    step("listener create, port taken", "listener", "create", "--protocol", "TCP",
         "--protocol-port", port, "k8s")
    step("member create, duplicate", "member", "create", "--address", "127.0.0.1",
         "--protocol-port", str(sims[0].port), "masters")
    step("healthmonitor create, second", "healthmonitor", "create", "--delay", "5",
         "--max-retries", "4", "--timeout", "10", "--type", "TCP", "masters")
    # What the CLI checks itself (max-retries 11, weight 257) never reaches the API.
    step("member create, weight 257", "member", "create", "--address", "127.0.0.2",
         "--protocol-port", "6443", "--weight", "257", "masters")
    step("member create, bad address", "member", "create", "--address", "127.0.0.256",
         "--protocol-port", "6443", "masters")
    step("listener set, connection limit -2", "listener", "set", "--connection-limit", "-2",
         "api")
    # Octavia takes a timeout of 0, vigil does not: no monitor is shown after this.
    step("healthmonitor set, timeout 0", "healthmonitor", "set", "--timeout", "0", "tls")
    step("delete without --cascade", "delete", "k8s")
    # A write while the last one is still PENDING_UPDATE: Octavia refuses it as immutable.
    step("lb set, pending", "set", "--name", "k8s", "k8s", settle=False)
    step("lb set, immutable", "set", "--name", "k8s", "k8s")

    step("member delete", "member", "delete", "masters", "master-03")
    step("member list, deleted", "member", "list", "masters", "-f", "json", settle=False)
    # Last, as Octavia's noop provider takes what vigil refuses and the two would part.
    step("listener create, HTTP", "listener", "create", "--name", "web", "--protocol", "HTTP",
         "--protocol-port", web_port, "k8s", "-f", "json")
    step("delete --cascade", "delete", "--cascade", "k8s")
    step("show, deleted", "show", "k8s", settle=False)
    step("list, deleted", "list", "-f", "json", settle=False)
    step("listener list, deleted", "listener", "list", "-f", "json", settle=False)

    cli_entries = [e for e in load_deliberate(DELIBERATE) if not is_raw(e)]
    unexplained, unused = check(diff.found, cli_entries)
    report = ""
    if unexplained:
        entries = as_entries(unexplained)
        (tmp_path / "unexplained.yaml").write_text(entries)
        report += "differences not in deliberate_differences.yaml:\n" + entries
    if unused:
        report += ("entries of deliberate_differences.yaml that no longer occur:\n"
                   + "\n".join(f"  {e}" for e in unused) + "\n")
    assert not report, report
