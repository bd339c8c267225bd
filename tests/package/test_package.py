"""The Debian package on this machine, as an operator gets it: `dpkg -i`, then what it installed,
the user and token it made, the unit it ships (systemd-analyze verify), the installed binary
serving as that user, an upgrade of a running vigil that refuses no connection, and
`dpkg --purge`.

Needs root and the package built by scripts/package.sh (its path in $VIGIL_DEB). Changes this
machine's /usr, /etc and users: CI runs it on a machine of its own.
"""
import gzip
import json
import os
import pwd
import shutil
import socket
import stat
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from testing.harness.octavia_api import free_port
from testing.harness.vigil_process import EchoServer, echo_once, read_ready_file
from testing.harness.wait import wait_for
from tests.integration.test_systemd_notify import Systemd

DEB = os.environ.get("VIGIL_DEB", "")
pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not DEB or shutil.which("dpkg") is None,
                                reason="needs root, dpkg and $VIGIL_DEB (scripts/package.sh)")


def run(*argv, check=True):
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=check)


@pytest.fixture(scope="module")
def installed():
    run("dpkg", "--purge", "vigil", check=False)
    result = run("dpkg", "-i", DEB, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    yield
    result = run("dpkg", "--purge", "vigil", check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_files_user_and_token(installed):
    assert run("/usr/bin/vigil", "--version").stdout.startswith("vigil ")
    for path in ("/usr/lib/systemd/system/vigil.service", "/usr/share/man/man1/vigil.1.gz",
                 "/usr/share/man/man5/vigil.yaml.5.gz", "/usr/share/bash-completion/completions/vigil",
                 "/usr/share/doc/vigil/LICENSE", "/etc/vigil/vigil.yaml.example",
                 "/usr/share/doc/vigil/examples/keepalived/keepalived.conf",
                 "/usr/share/doc/vigil/examples/keepalived/vigil-keepalived-track.service",
                 "/usr/share/doc/vigil/examples/bird/vigil-node.conf",
                 "/usr/share/doc/vigil/examples/bird/router.conf",
                 "/usr/share/doc/vigil/examples/bird/vigil-bgp-health",
                 "/usr/share/doc/vigil/runbook.md",
                 "/usr/share/doc/vigil/examples/prometheus/vigil-rules.yml",
                 "/usr/share/doc/vigil/examples/grafana/vigil-dashboard.json",
                 "/usr/share/doc/vigil/copyright", "/usr/share/doc/vigil/changelog.Debian.gz"):
        assert Path(path).is_file(), path
    # Debian policy: a maintainer who can be written to, and the changelog of this build.
    fields = run("dpkg-deb", "-f", DEB, "Maintainer").stdout
    assert "@" in fields and "localhost" not in fields, fields
    changelog = gzip.decompress(Path("/usr/share/doc/vigil/changelog.Debian.gz").read_bytes())
    assert changelog.decode().startswith("vigil (")
    user = pwd.getpwnam("vigil")
    assert user.pw_uid < 1000 and user.pw_shell in ("/usr/sbin/nologin", "/bin/false")
    for token in (Path("/etc/vigil/token"), Path("/etc/vigil/read-token")):
        st = token.stat()
        assert stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == user.pw_uid, token
        text = token.read_text().strip()
        assert len(text) == 64 and all(c in "0123456789abcdef" for c in text)  # URL-safe as it is
    assert Path("/etc/vigil/token").read_text() != Path("/etc/vigil/read-token").read_text()
    assert Path("/var/lib/vigil").stat().st_uid == user.pw_uid
    # Not serving until the admin writes a config: the unit's condition is not met.
    assert not Path("/etc/vigil/vigil.yaml").exists()
    assert "ConditionPathExists=/etc/vigil/vigil.yaml" in Path(
        "/usr/lib/systemd/system/vigil.service").read_text()
    check = run("/usr/bin/vigil", "check", "-c", "/etc/vigil/vigil.yaml.example")
    assert check.stdout.strip().endswith("OK: 2 listeners, 2 pools, 6 members")
    assert os.access("/usr/libexec/vigil/upgrade-or-restart", os.X_OK)


def test_the_unit_reloads_through_the_daemon(installed):
    unit = Path("/usr/lib/systemd/system/vigil.service").read_text()
    # `vigil reload` asks the daemon (POST /v1/reload), or sends SIGHUP to $MAINPID when the file
    # is too broken to read the admin address from (tests/integration/test_reload_broken_file.py).
    assert "\nExecReload=/usr/bin/vigil reload -c /etc/vigil/vigil.yaml\n" in unit
    assert "\nNotifyAccess=all\n" in unit  # the new process of an upgrade sends MAINPID=


def test_unit_verifies(installed):
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze not installed")
    result = run("systemd-analyze", "verify", "--man=no", "/usr/lib/systemd/system/vigil.service",
                 "/usr/share/doc/vigil/examples/keepalived/vigil-keepalived-track.service", check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr.strip() == "", result.stderr


def test_the_installed_binary_serves_as_the_vigil_user(installed):
    echo = EchoServer()
    work = Path(tempfile.mkdtemp(prefix="vigil-package-"))  # pytest's own is root's alone
    config = work / "vigil.yaml"
    config.write_text(f"""
admin: {{listen: 127.0.0.1:0, token_file: /etc/vigil/token, state_file: /var/lib/vigil/state.json}}
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters}}
pools:
  - name: masters
    health_monitor: {{type: TCP, interval: 1s}}
    members:
      - {{name: m1, address: 127.0.0.1, port: {echo.port}}}
""")
    user = pwd.getpwnam("vigil")
    os.chown(work, user.pw_uid, user.pw_gid)
    ready = work / "ready"
    proc = subprocess.Popen(["/usr/bin/vigil", "serve", "-c", str(config), "--ready-file", str(ready)],
                            user="vigil", group="vigil", extra_groups=[],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        try:
            info = json.loads(read_ready_file(ready, proc))
        except AssertionError:
            proc.kill()
            raise AssertionError(proc.communicate(timeout=10)[0])
        host, port = info["listeners"]["api"].rsplit(":", 1)
        assert echo_once(host, int(port), b"hello through the package") == b"hello through the package"
        assert Path("/var/lib/vigil").stat().st_uid == user.pw_uid
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
        echo.stop()
        shutil.rmtree(work)
    assert proc.returncode == 0, out


HELPER = "/usr/libexec/vigil/upgrade-or-restart"


class Fakes:
    """systemctl, deb-systemd-invoke, vigil (unless `real_vigil`) and policy-rc.d (under
    $DPKG_ROOT, where deb-systemd-invoke looks too) as scripts that log their arguments; the unit's
    MainPID is the file `mainpid`, which the fake `vigil upgrade` (or the test, as systemd would on
    MAINPID=) rewrites."""

    def __init__(self, root, mainpid, policy=None, upgrade_rc=0, upgrade_says="", new_pid=None,
                 real_vigil=False):
        self.root = Path(root)
        bin_dir = self.root / "bin"
        bin_dir.mkdir(parents=True)
        self.calls = self.root / "calls"
        self.calls.touch()
        self.mainpid = self.root / "mainpid"
        self.mainpid.write_text(f"{mainpid}\n")
        scripts = {
            "systemctl": f"""echo "systemctl $*" >>{self.calls}
case "$*" in
  *--property=MainPID*) cat {self.mainpid} ;;
  *is-active*) [ "$(cat {self.mainpid})" != 0 ] ;;
esac""",
            "deb-systemd-invoke": f'echo "deb-systemd-invoke $*" >>{self.calls}',
        }
        if not real_vigil:
            takeover = f"echo {new_pid} >{self.mainpid}" if new_pid else ":"
            scripts["vigil"] = f"""echo "vigil $*" >>{self.calls}
echo "{upgrade_says}"
[ {upgrade_rc} = 0 ] && {takeover}
exit {upgrade_rc}"""
        for name, body in scripts.items():
            (bin_dir / name).write_text("#!/bin/sh\n" + body + "\n")
            (bin_dir / name).chmod(0o755)
        if policy is not None:
            sbin = self.root / "usr/sbin"
            sbin.mkdir(parents=True)
            (sbin / "policy-rc.d").write_text(f'#!/bin/sh\necho "policy-rc.d $*" >>{self.calls}\n'
                                              f"exit {policy}\n")
            (sbin / "policy-rc.d").chmod(0o755)

    def run(self, *args):
        env = {"PATH": f"{self.root / 'bin'}:/usr/sbin:/usr/bin:/sbin:/bin", "DPKG_ROOT": str(self.root)}
        return subprocess.run([HELPER, *args], capture_output=True, text=True, timeout=120, env=env)

    def logged(self):
        return [line for line in self.calls.read_text().splitlines()
                if not line.startswith("systemctl ")]


UPGRADE = "vigil upgrade -c /etc/vigil/vigil.yaml"
TRY_RESTART = "deb-systemd-invoke try-restart vigil.service"
HANDOVER_CASES = [
    {"description": "not running: try-restart as before, which starts nothing",
     "fakes": {"mainpid": 0}, "calls": [TRY_RESTART], "says": ""},
    {"description": "policy-rc.d forbids it: neither an upgrade nor a restart",
     "fakes": {"mainpid": 100, "policy": 101},
     "calls": ["policy-rc.d vigil.service try-restart"], "says": "policy-rc.d forbids"},
    {"description": "a daemon too old for `vigil upgrade`: try-restart, and the reason",
     "fakes": {"mainpid": 100, "upgrade_rc": 1, "upgrade_says": "vigil: vigil answered 404: no route"},
     "calls": [UPGRADE, TRY_RESTART],
     "says": "`vigil upgrade` failed (vigil: vigil answered 404: no route); restarting it instead"},
    {"description": "the new process never takes over (its config refused, say): try-restart",
     "fakes": {"mainpid": 100}, "wait": "1", "calls": [UPGRADE, TRY_RESTART],
     "says": "did not take over from pid 100 within 1s"},
    {"description": "the handover, policy-rc.d allowing it: no restart",
     "fakes": {"mainpid": 100, "policy": 104, "new_pid": 200},
     "calls": ["policy-rc.d vigil.service try-restart", UPGRADE],
     "says": "upgraded in place: pid 100 handed its listening sockets to pid 200"},
]


@pytest.mark.parametrize("case", HANDOVER_CASES, ids=[c["description"] for c in HANDOVER_CASES])
def test_the_postinst_upgrades_in_place_or_restarts(installed, tmp_path, case):
    fakes = Fakes(tmp_path, **case["fakes"])
    done = fakes.run("--wait", case.get("wait", "10"))
    assert done.returncode == 0, done.stderr
    assert fakes.logged() == case["calls"]
    assert case["says"] in done.stdout, done.stdout
    if not case["says"]:
        assert done.stdout == ""


def test_the_postinst_calls_the_helper_on_an_upgrade_only():
    postinst = run("dpkg-deb", "-I", DEB, "postinst").stdout
    assert 'if [ -n "$2" ] && [ -e /etc/vigil/vigil.yaml ]; then\n      ' + HELPER in postinst
    assert "deb-systemd-invoke try-restart" not in postinst  # the helper's fallback now


def newer_package(work):
    """The same package as version <version>+1: an upgrade for dpkg."""
    tree = work / "tree"
    run("dpkg-deb", "-R", DEB, str(tree))
    control = tree / "DEBIAN/control"
    version = next(l.split(": ", 1)[1] for l in control.read_text().splitlines()
                   if l.startswith("Version: "))
    control.write_text(control.read_text().replace(f"Version: {version}", f"Version: {version}+1"))
    deb = work / "vigil-newer.deb"
    run("dpkg-deb", "-b", str(tree), str(deb))
    return deb


class ConnectLoop:
    """Connects to the listener over and over (a client sending a line and reading it back),
    counting what each attempt got."""

    def __init__(self, host, port):
        self.address = (host, port)
        self.ok = self.refused = 0
        self.errors = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        while not self.done.is_set():
            try:
                with socket.create_connection(self.address, timeout=5) as s:
                    s.sendall(b"ping\n")
                    if s.recv(16) == b"ping\n":
                        self.ok += 1
                    else:
                        self.errors.append("no echo")
            except ConnectionRefusedError:
                self.refused += 1
            except OSError as e:
                self.errors.append(repr(e))
            time.sleep(0.002)

    def stop(self):
        self.done.set()
        self.thread.join(timeout=10)


def gone(pid):
    try:
        return Path(f"/proc/{pid}/status").read_text().split("State:")[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


def test_an_upgrade_of_a_running_vigil_refuses_no_connection(installed):
    """The old package's vigil serving under a stand-in systemd (the notify socket, and
    MainPID taken from MAINPID=), a client connecting in a loop; `dpkg -i` of a newer package
    (no systemd here, so its postinst leaves vigil alone), then the postinst's helper with the real
    `vigil upgrade`: a new PID runs the newly installed file, from the same socket, with 0
    connects refused."""
    echo = EchoServer()
    work = Path(tempfile.mkdtemp(prefix="vigil-package-upgrade-"))
    user = pwd.getpwnam("vigil")
    os.chown(work, user.pw_uid, user.pw_gid)
    config = work / "vigil.yaml"
    config.write_text(f"""
admin: {{listen: 127.0.0.1:{free_port()}, token_file: /etc/vigil/token}}
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters}}
pools:
  - name: masters
    health_monitor: {{type: TCP, interval: 1s}}
    members:
      - {{name: m1, address: 127.0.0.1, port: {echo.port}}}
""")
    systemd = Systemd(work / "notify")
    os.chmod(work / "notify", 0o666)
    ready = work / "ready"
    log = open(work / "vigil.log", "w")
    proc = subprocess.Popen(["/usr/bin/vigil", "serve", "-c", str(config), "--ready-file", str(ready)],
                            user="vigil", group="vigil", extra_groups=[], stdout=log,
                            stderr=subprocess.STDOUT, env={"NOTIFY_SOCKET": systemd.path})
    new_pid = None
    client = follower = None
    try:
        info = json.loads(read_ready_file(ready, proc))
        host, port = info["listeners"]["api"].rsplit(":", 1)
        systemd.wait("READY")
        fakes = Fakes(work / "fakes", mainpid=proc.pid, real_vigil=True)
        client = ConnectLoop(host, int(port))
        wait_for(lambda: client.ok >= 20, what="the client's first connections")

        newer = newer_package(work)
        installed_newer = run("dpkg", "-i", str(newer), check=False)
        assert installed_newer.returncode == 0, installed_newer.stdout + installed_newer.stderr
        assert "vigil:" not in installed_newer.stdout  # no systemd here: the postinst leaves it
        assert os.readlink(f"/proc/{proc.pid}/exe") == "/usr/bin/vigil (deleted)"

        def follow_mainpid():  # what systemd does with MAINPID=, for the fake systemctl
            while not client.done.is_set():
                pids = [fields["MAINPID"] for _, fields in systemd.receive() if "MAINPID" in fields]
                if pids:
                    fakes.mainpid.write_text(pids[-1] + "\n")
                time.sleep(0.02)
        follower = threading.Thread(target=follow_mainpid, daemon=True)
        follower.start()
        before = client.ok
        handed = fakes.run("-c", str(config), "--wait", "60")
        assert handed.returncode == 0, handed.stderr
        assert "upgraded in place" in handed.stdout, handed.stdout + (work / "vigil.log").read_text()
        new_pid = int(fakes.mainpid.read_text())
        assert new_pid != proc.pid
        assert f"pid {proc.pid} handed its listening sockets to pid {new_pid}" in handed.stdout
        assert fakes.logged() == []  # no try-restart
        assert os.readlink(f"/proc/{new_pid}/exe") == "/usr/bin/vigil"  # the file just installed
        assert proc.wait(timeout=40) == 0  # the old process stopped gracefully
        during = client.ok
        wait_for(lambda: client.ok >= during + 20, what="connections to the new process")
        client.stop()
        print(f"upgrade: {client.ok} connections, {client.ok - before} from the handover on, "
              f"{client.refused} refused, {len(client.errors)} failed")
        assert client.refused == 0 and client.errors == []
        assert client.ok > before
    finally:
        if client:
            client.stop()
        if follower:
            follower.join(timeout=10)
        for pid in (new_pid, proc.pid):
            if pid and not gone(pid):
                os.kill(pid, 15)
        if new_pid:
            wait_for(lambda: gone(new_pid), timeout=40, what="the new vigil to stop")
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        log.close()
        systemd.stop()
        echo.stop()
        shutil.rmtree(work)


def test_purge_removes_what_the_package_made():
    result = run("dpkg", "-i", DEB, check=False)
    assert result.returncode == 0, result.stderr
    assert run("dpkg", "--purge", "vigil", check=False).returncode == 0
    for path in ("/usr/bin/vigil", "/etc/vigil/token", "/etc/vigil/read-token", "/var/lib/vigil",
                 "/usr/lib/systemd/system/vigil.service"):
        assert not Path(path).exists(), path
