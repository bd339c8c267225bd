"""The real Octavia 11 API and driver agent (Debian's python3-octavia) on one machine, for tests:
SQLite, auth_strategy noauth, noop network/compute/amphora drivers, fake:// messaging, the API on
loopback and the driver agent's unix sockets in the test's temporary directory, the vigil
provider driver (integrations/octavia) found through its entry points, and a proxy in front that
adds the project id and answers the CLI's Neutron lookups (project_proxy.py).

Holds no tests. Every wait is bounded.
"""
import os
import signal
import subprocess
import tomllib
import types
import urllib.request
from pathlib import Path

from testing.harness.project_proxy import ProjectProxy
from testing.harness.octavia_api import OPENSTACK, OpenStack, free_port
from testing.harness.wait import wait_for

ROOT = Path(__file__).resolve().parents[2]
DRIVER_SRC = ROOT / "integrations/octavia"
OCTAVIA_API = Path("/usr/bin/octavia-api")
OCTAVIA_AGENT = Path("/usr/bin/octavia-driver-agent")
PROJECT_ID = "9a8b7c6d5e4f40318e2d1c0b0a090807"
PYTHON = "/usr/bin/python3"  # the interpreter Debian's Octavia runs on

CONF = """
[DEFAULT]
debug = true
transport_url = fake://

[api_settings]
auth_strategy = noauth
bind_host = 127.0.0.1
bind_port = {api_port}
{providers}

[database]
connection = sqlite:///{dir}/octavia.db

[controller_worker]
network_driver = network_noop_driver
amphora_driver = amphora_noop_driver
compute_driver = compute_noop_driver

[driver_agent]
status_socket_path = {dir}/status.sock
stats_socket_path = {dir}/stats.sock
get_socket_path = {dir}/get.sock
{agents}
"""

# The vigil provider driver and its agent, fed by a vigil daemon.
VIGIL_PROVIDER = (
    "enabled_provider_drivers = vigil:The vigil TCP load balancer\n"
    "default_provider_driver = vigil",
    "enabled_provider_agents = vigil\n\n"
    "[vigil]\nendpoint = http://{vigil_admin}\ntoken_file = {token_file}\n{vigil_options}")
# Octavia's noop provider: it records calls and reports nothing; a test moves statuses itself
# through the driver agent (noop_provider.py in tests/octavia).
NOOP_PROVIDER = (
    "enabled_provider_drivers = noop_driver:The Octavia no-op driver\n"
    "default_provider_driver = noop_driver",
    "enabled_provider_agents =")


def missing():
    """Why the Octavia tests cannot run here, or None."""
    for path in (OCTAVIA_API, OCTAVIA_AGENT):
        if not path.exists():
            return f"{path} is missing (Debian: octavia-api octavia-driver-agent; scripts/setup.sh)"
    if OPENSTACK is None:
        return "the openstack CLI is missing (python3-openstackclient python3-octaviaclient)"
    return None


def install_entry_points(site):
    """Makes the driver's entry points visible to Octavia's stevedore without installing the
    package: a .dist-info beside the source on PYTHONPATH, written from pyproject.toml."""
    project = tomllib.loads((DRIVER_SRC / "pyproject.toml").read_text())["project"]
    info = Path(site) / f"vigil_octavia-{project['version']}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    lines = []
    for group, points in project["entry-points"].items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {target}" for name, target in points.items()]
        lines.append("")
    (info / "entry_points.txt").write_text("\n".join(lines))


class Octavia:
    """octavia-api, octavia-driver-agent and the project proxy, in `tmp_path/octavia`; with the
    vigil provider driver fed by the vigil at `vigil_admin`, or without one Octavia's noop
    provider. `vigil_options` are more lines of its [vigil] section; `populate(octavia)` runs
    once the schema is built and before any process starts (a benchmark fills the database);
    `api_options` are more lines of its [api_settings] section; `proxy_options` go to the
    ProjectProxy."""

    def __init__(self, tmp_path, vigil_admin=None, token_file=None,
                 vigil_options="status_interval = 1\n", populate=None, api_options="",
                 **proxy_options):
        self.dir = Path(tmp_path) / "octavia"
        self.dir.mkdir()
        self.procs = []
        self.logs = []
        self.proxy = None
        install_entry_points(self.dir / "site")
        self.env = dict(os.environ, PYTHONPATH=f"{self.dir / 'site'}:{DRIVER_SRC}",
                        PYTHONWARNINGS="ignore", no_proxy="*")
        self.api_port = free_port()
        self.conf = self.dir / "octavia.conf"
        providers, agents = NOOP_PROVIDER if vigil_admin is None else VIGIL_PROVIDER
        self.conf.write_text(CONF.format(
            api_port=self.api_port, dir=self.dir, providers=f"{providers}\n{api_options}",
            agents=agents.format(vigil_admin=vigil_admin, token_file=token_file,
                                 vigil_options=vigil_options)))
        subprocess.run([PYTHON, str(Path(__file__).parent / "octavia_schema.py"),
                        "--config-file", str(self.conf)], check=True, env=self.env, timeout=180,
                       capture_output=True)
        if populate is not None:
            populate(self)
        self.agent = self._start("agent", OCTAVIA_AGENT)
        self.api = self._start("api", OCTAVIA_API)
        wait_for(self._api_answers, timeout=120, interval=0.5, what="octavia-api answering")
        wait_for(lambda: all((self.dir / f"{s}.sock").exists() for s in ("status", "stats", "get")),
                 timeout=120, interval=0.5, what="the driver agent's sockets")
        self.proxy = ProjectProxy("127.0.0.1", self.api_port, PROJECT_ID, **proxy_options)

    def _start(self, name, program):
        log = open(self.dir / f"{name}.log", "w")
        self.logs.append(log)
        proc = subprocess.Popen([PYTHON, str(program), "--config-file", str(self.conf)],
                                stdout=log, stderr=subprocess.STDOUT, env=self.env,
                                start_new_session=True)
        self.procs.append(proc)
        return proc

    def _api_answers(self):
        if self.api.poll() is not None:
            raise AssertionError(f"octavia-api exited with {self.api.returncode}: "
                                 f"{self.log_text('api')[-3000:]}")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(f"http://127.0.0.1:{self.api_port}/", timeout=5) as r:
                return r.status == 200
        except OSError:
            return False

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.proxy.port}"

    def log_text(self, name):
        return (self.dir / f"{name}.log").read_text(errors="replace")

    def stop(self):
        if self.proxy is not None:
            self.proxy.stop()
        for proc in reversed(self.procs):
            if proc.poll() is None:
                # The agent stops its children (listeners, provider agent) itself on SIGTERM; a
                # SIGTERM to all of them at once leaves it waiting for nothing.
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=10)
            try:  # whatever of its session is left
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for log in self.logs:
            log.close()


class OctaviaCli(OpenStack):
    """`openstack loadbalancer ...` against the Octavia above. SQLite takes one writer at a time
    and answers a writer that would have to wait for another "database is locked" at once (a
    cloud's MySQL waits instead); the transaction is rolled back, so such an answer, and only
    that one, is tried again, at most three times."""

    def __init__(self, octavia):
        # Under noauth the token is not checked; the proxy sets the project, as Keystone would.
        super().__init__(types.SimpleNamespace(admin=f"127.0.0.1:{octavia.proxy.port}"),
                         token="noauth")

    def run(self, *args, check=True):
        for _ in range(3):
            done = super().run(*args, check=False)
            if "database is locked" not in done.stderr:
                break
        if check:
            assert done.returncode == 0, f"openstack loadbalancer {' '.join(args)}: {done.stderr}"
        return done
