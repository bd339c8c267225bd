"""`systemctl reload` with a broken file reaches the daemon: the unit's ExecReload= is
`vigil reload -c FILE`, which cannot read the admin address from a file that does not load, so
it sends SIGHUP to $MAINPID (systemd sets it for ExecReload=), as the test does here. The daemon
refuses the file itself: its log, RELOADING=1 then READY=1, vigil_config_last_reload_successful 0,
and the running configuration keeps serving. `vigil reload` exits 1 with the file:line errors."""
import subprocess

from test_metrics import samples, scrape
from test_systemd_notify import Systemd
from testing.harness.vigil_process import TOKEN, VIGIL, EchoServer, Vigil, echo_once, pool_config
from testing.harness.wait import wait_for

MONITOR = "    health_monitor: {type: TCP, interval: 300ms, fast_interval: 100ms, timeout: 500ms}"


def reload(vigil, env):
    return subprocess.run([str(VIGIL), "reload", "-c", str(vigil.config)], capture_output=True,
                          text=True, timeout=20, env={"PATH": "/usr/bin:/bin", **env})


def test_systemctl_reload_of_a_broken_file_is_refused_by_the_daemon(tmp_path, cleanup):
    systemd = Systemd(tmp_path / "notify")
    cleanup(systemd)
    backend = EchoServer()
    cleanup(backend)
    vigil = Vigil(tmp_path, pool_config(MONITOR, [("master-01", backend.port)]),
                  env={"NOTIFY_SOCKET": systemd.path})
    cleanup(vigil)
    vigil.wait_member("master-01", "ONLINE")
    ready, _ = systemd.wait("READY")
    assert samples(scrape(vigil), "vigil_config_last_reload_successful") == [1]

    good = vigil.config.read_text()
    vigil.config.write_text(good.replace("    health_monitor: {type: TCP,",
                                         "    health_monitor: {type: TCP, intervall: 1s,"))
    line = next(n for n, text in enumerate(good.splitlines(), 1) if "health_monitor" in text)

    # As systemd runs ExecReload=: $MAINPID, and no VIGIL_ADMIN or VIGIL_TOKEN.
    refused = reload(vigil, {"MAINPID": str(vigil.proc.pid)})
    assert refused.returncode == 1, refused.stderr
    assert refused.stderr.startswith(f"vigil reload: refused: {vigil.config} has errors")
    assert f"  {vigil.config}:{line}: error: " in refused.stderr and "intervall" in refused.stderr
    assert f"pid {vigil.proc.pid}, was sent SIGHUP" in refused.stderr

    # The daemon tried the file itself.
    wait_for(lambda: f"reload refused: {vigil.config} has errors" in vigil.log_text(),
             what="the daemon's refusal in its log")
    assert f"{vigil.config}:{line}: error: " in vigil.log_text()
    i, _ = systemd.wait("RELOADING", after=ready + 1)
    _, after = systemd.wait("READY", after=i + 1)
    assert after["STATUS"].startswith("serving the previous configuration; reload refused: ")
    wait_for(lambda: samples(scrape(vigil), "vigil_config_last_reload_successful") == [0],
             what="vigil_config_last_reload_successful 0")
    # The running configuration stays, and serves.
    assert set(vigil.members()) == {"master-01"}
    assert echo_once(*vigil.listener("api"), b"still serving") == b"still serving"

    # By hand, with the address: the daemon's own verdict, with the same file:line.
    asked = reload(vigil, {"VIGIL_ADMIN": f"http://{vigil.admin}", "VIGIL_TOKEN": TOKEN})
    assert asked.returncode == 1, asked.stderr
    assert f"  {vigil.config}:{line}: error: " in asked.stderr, asked.stderr

    # Fixed: applied (the file's admin.listen is port 0 here, so the address is given), and the
    # metric is 1 again.
    vigil.config.write_text(good)
    done = reload(vigil, {"VIGIL_ADMIN": f"http://{vigil.admin}", "VIGIL_TOKEN": TOKEN})
    assert done.returncode == 0, done.stderr
    assert samples(scrape(vigil), "vigil_config_last_reload_successful") == [1]
