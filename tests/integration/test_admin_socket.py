"""The admin API's Unix socket (admin.socket): the CLI reaches the daemon with `--admin unix:PATH`
(and by itself when the config names the socket), an override set over it names the user the
kernel reports (SO_PEERCRED) whatever $USER claims, the file is mode 0660 and goes at a clean
stop, survives `vigil upgrade`, and a file that is no socket is refused at start and left alone.
Every wait is bounded."""
import json
import os
import pwd
import signal
import socket
import stat
import subprocess

from testing.harness.paths import VIGIL
from testing.harness.vigil_process import TOKEN, EchoServer, Vigil
from testing.harness.wait import wait_for


def config(socket_path, member_port):
    # admin.listen on port 0: a CLI that fell back to TCP from the config could not reach it.
    return f"""
admin:
  listen: 127.0.0.1:0
  socket: {socket_path}
  token_file: @TOKEN_FILE@
listeners:
  - {{name: api, bind: "127.0.0.1:0", pool: masters}}
pools:
  - name: masters
    health_monitor: {{type: TCP, interval: 1s, timeout: 500ms}}
    members:
      - {{name: master-01, address: 127.0.0.1, port: {member_port}}}
"""


def cli(*args, admin=None, user="mallory"):
    """The CLI as an operator whose $USER (and SUDO_USER) lie about who they are."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIGIL_ADMIN", "SUDO_USER")}
    env.update(VIGIL_TOKEN=TOKEN, USER=user, SUDO_USER=user)
    if admin is not None:
        env["VIGIL_ADMIN"] = admin
    return subprocess.run([str(VIGIL), *args], capture_output=True, text=True, timeout=20, env=env)


def override_by(vigil):
    member = vigil.members("masters")["master-01"]
    return member["admin_override"] and member["admin_override"]["by"]


def start(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    path = tmp_path / "admin.sock"
    vigil = Vigil(tmp_path, config(path, backend.port))
    cleanup(vigil)
    vigil.wait_member("master-01", "ONLINE")
    return vigil, path


def test_the_cli_over_the_socket_names_the_kernels_user(tmp_path, cleanup):
    vigil, path = start(tmp_path, cleanup)
    mode = os.lstat(path).st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o660, oct(mode)
    me = pwd.getpwuid(os.getuid()).pw_name
    assert me != "mallory"

    listed = cli("members", "--admin", f"unix:{path}")
    assert listed.returncode == 0, listed.stderr
    assert "master-01" in listed.stdout

    # Over the socket the kernel names the user; the client's claim of mallory is dropped, or,
    # when the kernel says root (who may claim anyone, as sudo does), kept after it.
    drained = cli("member", "drain", "master-01", admin=f"unix:{path}")
    assert drained.returncode == 0, drained.stderr
    credited = f"CLI ({me}, for mallory)" if me == "root" else f"CLI ({me})"
    assert f"set by {credited}" in drained.stdout, drained.stdout
    assert override_by(vigil) == credited
    assert cli("member", "ready", "master-01", "--admin", f"unix:{path}").returncode == 0

    # Over TCP nothing changes: the client's word is all there is.
    tcp = cli("member", "drain", "master-01", admin=f"http://{vigil.admin}")
    assert tcp.returncode == 0, tcp.stderr
    assert override_by(vigil) == "CLI (mallory)"

    # Without --admin the config's socket is preferred: its admin.listen (port 0) is unreachable.
    readied = cli("member", "ready", "master-01", "-c", str(vigil.config))
    assert readied.returncode == 0, readied.stderr
    assert override_by(vigil) is None

    # The token is still required over the socket.
    env = {k: v for k, v in os.environ.items() if k not in ("VIGIL_ADMIN", "VIGIL_TOKEN")}
    refused = subprocess.run([str(VIGIL), "member", "drain", "master-01", "--admin", f"unix:{path}"],
                             capture_output=True, text=True, timeout=20, env=env)
    assert refused.returncode == 1, refused.stderr
    assert override_by(vigil) is None

    assert vigil.stop() == 0
    assert not path.exists(), "a clean stop removes the socket"


def test_a_file_that_is_no_socket_is_refused_and_kept(tmp_path):
    path = tmp_path / "admin.sock"
    path.write_text("precious\n")
    cfg = tmp_path / "vigil.yaml"
    (tmp_path / "token").write_text(TOKEN + "\n")
    (tmp_path / "token").chmod(0o600)
    cfg.write_text(config(path, 9).replace("@TOKEN_FILE@", str(tmp_path / "token")))
    served = subprocess.run([str(VIGIL), "serve", "-c", str(cfg)], capture_output=True, text=True,
                            timeout=30)
    assert served.returncode != 0
    assert f"admin socket {path}: something that is not a socket is there" in served.stderr, \
        served.stderr
    assert path.read_text() == "precious\n"


def test_a_stale_socket_is_replaced_and_an_upgrade_keeps_the_socket(tmp_path, cleanup):
    path = tmp_path / "admin.sock"
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    stale.close()  # the file stays, as after a crash
    vigil, _ = start(tmp_path, cleanup)
    first = vigil.proc.pid
    assert cli("members", admin=f"unix:{path}").returncode == 0

    upgraded = cli("upgrade", admin=f"unix:{path}")
    assert upgraded.returncode == 0, upgraded.stderr

    def ready_pid():
        try:
            return json.loads(vigil.ready.read_text())["pid"]
        except (FileNotFoundError, ValueError, KeyError):
            return None
    second = wait_for(lambda: (p := ready_pid()) != first and p, timeout=15, what="a new process")
    cleanup(Adopted(second))
    assert vigil.proc.wait(timeout=15) == 0, "the old process ends"
    # The old process handed the socket over: it did not remove the file on its way out.
    assert stat.S_ISSOCK(os.lstat(path).st_mode)
    status = cli("status", admin=f"unix:{path}")
    assert status.returncode == 0, status.stderr


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


class Adopted:
    """The vigil an upgrade started (not our child): stopped by its pid."""

    def __init__(self, pid):
        self.pid = pid

    def stop(self):
        if alive(self.pid):
            os.kill(self.pid, signal.SIGTERM)
            wait_for(lambda: not alive(self.pid), timeout=10, what=f"pid {self.pid} to stop")
