"""The Debian package on this machine, as an operator gets it: `dpkg -i`, then what it installed,
the user and token it made, the unit it ships (systemd-analyze verify), the installed binary
serving as that user, and `dpkg --purge`.

Needs root and the package built by scripts/package.sh (its path in $VIGIL_DEB). Changes this
machine's /usr, /etc and users: CI runs it on a machine of its own.
"""
import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from vigil_harness import EchoServer, echo_once, read_ready_file  # noqa: E402

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
                 "/usr/share/doc/vigil/examples/bird/vigil-bgp-health"):
        assert Path(path).is_file(), path
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


def test_purge_removes_what_the_package_made():
    result = run("dpkg", "-i", DEB, check=False)
    assert result.returncode == 0, result.stderr
    assert run("dpkg", "--purge", "vigil", check=False).returncode == 0
    for path in ("/usr/bin/vigil", "/etc/vigil/token", "/etc/vigil/read-token", "/var/lib/vigil",
                 "/usr/lib/systemd/system/vigil.service"):
        assert not Path(path).exists(), path
