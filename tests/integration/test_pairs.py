"""What a keepalived pair needs of vigil: a standby that listens on an address it does not hold
yet (freebind), and a health answer keepalived can trust (/healthz, /readyz, `vigil health`).

192.0.2.1 (TEST-NET-1) is on no interface here; it is only ever bound, never sent to."""
import os
import subprocess
import time

from testing.harness.octavia_api import create, raw, start_vigil
from testing.harness.paths import VIGIL
from testing.harness.vigil_process import ApiSim, Vigil, pool_config
from testing.harness.wait import wait_for

ABSENT = "192.0.2.1"

TCP_FAST = """    fail_open: {fail_open}
    health_monitor:
      type: TCP
      interval: 200ms
      fast_interval: 100ms
      timeout: 500ms
      healthy_threshold: 1
      unhealthy_threshold: 1"""


def absent_listener_config(freebind):
    text = pool_config("    health_monitor: {type: TCP}", [("m", 1)])
    extra = ", freebind: true" if freebind else ""
    return text.replace('bind: "127.0.0.1:0", pool: masters}',
                        f'bind: "{ABSENT}:0", pool: masters{extra}}}')


def test_freebind_listener_starts_on_an_address_the_host_does_not_hold(tmp_path, cleanup):
    vigil = Vigil(tmp_path, absent_listener_config(freebind=True))
    cleanup(vigil)
    assert vigil.listeners["api"].startswith(f"{ABSENT}:")
    code, body = vigil.get("/healthz", token=None)
    assert (code, body) == (200, "ok\n")


def test_without_freebind_serve_fails_clearly_and_check_warns(tmp_path):
    config = tmp_path / "vigil.yaml"
    (tmp_path / "token").write_text("t\n")
    config.write_text(absent_listener_config(freebind=False).replace("@TOKEN_FILE@", str(tmp_path / "token")))
    r = subprocess.run([str(VIGIL), "serve", "-c", str(config)], capture_output=True, text=True, timeout=20)
    assert r.returncode == 1
    assert f"listener api: cannot bind {ABSENT}:0: Cannot assign requested address" in r.stdout + r.stderr

    check = subprocess.run([str(VIGIL), "check", "-c", str(config)], capture_output=True, text=True, timeout=20)
    assert check.returncode == 0, check.stdout
    assert f'listener "api" binds {ABSENT}, which is not an address of this host' in check.stdout
    assert "set freebind: true" in check.stdout

    config.write_text(absent_listener_config(freebind=True).replace("@TOKEN_FILE@", str(tmp_path / "token")))
    check = subprocess.run([str(VIGIL), "check", "-c", str(config)], capture_output=True, text=True, timeout=20)
    assert "not an address of this host" not in check.stdout


def health(vigil, *args):
    env = dict(os.environ, VIGIL_ADMIN=f"http://{vigil.admin}")
    env.pop("VIGIL_TOKEN", None)
    return subprocess.run([str(VIGIL), "health", *args], capture_output=True, text=True, timeout=10, env=env)


def test_readyz_and_vigil_health_follow_the_members(tmp_path, cleanup):
    sims = [ApiSim(tmp_path, f"master-0{i}") for i in (1, 2)]
    for s in sims:
        cleanup(s)
    vigil = Vigil(tmp_path, pool_config(TCP_FAST.format(fail_open="false"), [(s.name, s.port) for s in sims]))
    cleanup(vigil)
    for s in sims:
        vigil.wait_member(s.name, "ONLINE")

    code, body = vigil.get("/readyz", token=None)
    assert (code, body) == (200, "ready\nok api: 2/2 members usable\n")
    r = health(vigil, "--exit-code")
    assert (r.returncode, r.stdout) == (0, "ready: ok api: 2/2 members usable\n"), r.stderr

    for s in sims:
        s.kill()
    for s in sims:
        vigil.wait_member(s.name, "ERROR")
    code, body = vigil.get("/readyz", token=None)
    assert code == 503
    assert body == "not ready\ndown api: no usable member (pool masters has 2 members)\n"
    r = health(vigil, "--exit-code")
    assert r.returncode == 1
    assert r.stdout == "not ready: down api: no usable member (pool masters has 2 members)\n"
    assert health(vigil).returncode == 0  # without --exit-code: it answered
    # Serving still: /healthz is about vigil, not its members.
    assert vigil.get("/healthz", token=None) == (200, "ok\n")

    vigil.stop()
    r = health(vigil, "--exit-code")
    assert r.returncode == 1
    assert r.stdout.startswith(f"not serving: cannot reach vigil at http://{vigil.admin}: ")


def test_fail_open_counts_as_usable_and_says_so(tmp_path, cleanup):
    # Both fail their /readyz but answer: fail-open routes to them. A third refuses: it gets
    # nothing even then, and is not counted as usable.
    sims = [ApiSim(tmp_path, f"m{i}", args=["--fail-readyz", "etcd"]) for i in (1, 2)]
    for s in sims:
        cleanup(s)
    monitor = """    fail_open: true
    health_monitor:
      type: HTTPS
      path: /readyz
      interval: 200ms
      fast_interval: 100ms
      timeout: 500ms
      healthy_threshold: 1
      unhealthy_threshold: 1"""
    vigil = Vigil(tmp_path, pool_config(monitor, [("m1", sims[0].port), ("m2", sims[1].port),
                                                  ("m3", 1)]))
    cleanup(vigil)
    for name in ("m1", "m2", "m3"):
        vigil.wait_member(name, "ERROR")
    body = wait_for(lambda: (r := vigil.get("/readyz", token=None))[1].startswith("ready\nfail-open") and r,
                    what="fail-open in /readyz")
    assert body == (200, "ready\nfail-open api: no member healthy in pool masters, routing to the 2 of 3 "
                         "that take connections\n")
    assert health(vigil, "--exit-code").returncode == 0


def test_track_file_says_1_the_moment_vigil_dies(tmp_path, cleanup):
    """`vigil health --track-file` (keepalived's track_file, docs/ha.md): 0 while vigil is ready,
    1 at once when vigil is killed, seen through the connection the tracker holds (a single
    failed check writing nothing is the system test's, test_keepalived_pair.py)."""
    sim = ApiSim(tmp_path, "master-01")
    cleanup(sim)
    vigil = Vigil(tmp_path, pool_config(TCP_FAST.format(fail_open="false"), [(sim.name, sim.port)]))
    cleanup(vigil)
    vigil.wait_member(sim.name, "ONLINE")
    track = tmp_path / "run" / "vigil.track"
    track.parent.mkdir()
    with open(tmp_path / "tracker.log", "w") as log:
        tracker = subprocess.Popen([str(VIGIL), "health", "--track-file", str(track), "--admin",
                                    f"http://{vigil.admin}"], stdout=log, stderr=subprocess.STDOUT)
    try:
        def value():
            return track.read_text() if track.exists() else None
        wait_for(lambda: value() == "0\n", what="the track file at 0")

        killed = time.monotonic()
        vigil.proc.kill()
        wait_for(lambda: value() == "1\n", timeout=5, interval=0.005, what="the track file at 1")
        took = time.monotonic() - killed
        assert took < 0.3, f"1 written {took:.3f}s after the kill"
        # The line follows the write.
        line = (f"wrote 1 to {track}: not serving: cannot reach vigil at http://{vigil.admin}: "
                "Connection refused")
        wait_for(lambda: (tmp_path / "tracker.log").read_text().endswith(line + "\n"), timeout=5,
                 what="the tracker's line")
        log_text = (tmp_path / "tracker.log").read_text()
        assert tracker.poll() is None, log_text
    finally:
        tracker.kill()
        tracker.wait(timeout=10)


HEADER = ("# Written by `vigil health --vips-file`: the addresses of the load balancers created "
          "through vigil's API. Do not edit.\n")


def test_vips_file_follows_the_load_balancers_and_runs_the_reload(tmp_path, cleanup):
    """`vigil health --vips-file` (docs/ha.md, "Load balancers created through the API"): the
    addresses of the API's load balancers, renamed into place when they change, then the reload
    command; a failing reload is logged and run again; a dead vigil leaves the file as it was."""
    vigil = start_vigil(tmp_path, cleanup)
    # ACTIVE_STANDBY: the address is keepalived's to bring, and the listener binds it already.
    pair = create(vigil, "loadbalancers", "loadbalancer",
                  {"name": "pair", "topology": "ACTIVE_STANDBY", "vip_address": ABSENT})
    listener = create(vigil, "listeners", "listener",
                      {"loadbalancer_id": pair["id"], "protocol": "TCP", "protocol_port": 16443})
    create(vigil, "loadbalancers", "loadbalancer", {"name": "local"})  # 127.0.0.1: not moved
    vips = tmp_path / "run" / "vips.conf"
    vips.parent.mkdir()
    reloads = tmp_path / "reloads"
    allowed = tmp_path / "reload-allowed"
    allowed.touch()
    reload = f"test -e {allowed} && echo reloaded >> {reloads}"
    with open(tmp_path / "watcher.log", "w") as log:
        watcher = subprocess.Popen(
            [str(VIGIL), "health", "--vips-file", str(vips), "--vips-reload", reload,
             "--token-file", str(tmp_path / "token"), "--admin", f"http://{vigil.admin}"],
            stdout=log, stderr=subprocess.STDOUT)
    try:
        def reload_count():
            return len(reloads.read_text().splitlines()) if reloads.exists() else 0

        def logged(text):
            return text in (tmp_path / "watcher.log").read_text()

        wait_for(lambda: reload_count() == 1, what="the first reload")
        assert vips.read_text() == HEADER + f"{ABSENT}/32\n"
        code, listeners = raw(vigil, "GET", "/v2.0/lbaas/listeners")
        assert code == 200 and listeners["listeners"][0]["operating_status"] != "ERROR", listeners
        # A listener with no pool is idle: /readyz leaves it out (every node of a pair holds the
        # same, and Octavia builds a load balancer that way), so vigil stays ready.
        wait_for(lambda: logged("ready: idle "), what="the watcher's ready line")
        assert not logged("not ready")
        code, _ = raw(vigil, "DELETE", f"/v2.0/lbaas/listeners/{listener['id']}")
        assert code == 204

        allowed.unlink()
        second = create(vigil, "loadbalancers", "loadbalancer",
                        {"name": "second", "topology": "ACTIVE_STANDBY", "vip_address": "2001:db8::10"})
        wait_for(lambda: "2001:db8::10/128" in vips.read_text(), what="the second address")
        assert vips.read_text() == HEADER + f"{ABSENT}/32\n2001:db8::10/128\n"
        wait_for(lambda: logged(f"`{reload}` exited 1; again in 1 s"), what="the failed reload's line")
        assert reload_count() == 1
        allowed.touch()
        wait_for(lambda: reload_count() == 2, timeout=5, what="the reload run again")

        # One set, one reload: nothing more while nothing changes.
        mtime = vips.stat().st_mtime_ns
        code, _ = raw(vigil, "DELETE", f"/v2.0/lbaas/loadbalancers/{second['id']}")
        assert code == 204
        wait_for(lambda: reload_count() == 3, what="the reload after a deletion")
        assert vips.read_text() == HEADER + f"{ABSENT}/32\n" and vips.stat().st_mtime_ns != mtime
        assert list(vips.parent.iterdir()) == [vips]  # no temporary left

        vigil.proc.kill()
        vigil.proc.wait(timeout=10)
        wait_for(lambda: logged("not serving: cannot reach vigil"), what="the watcher's line")
        # The file stays: polled for 2.5 s, past two of the watcher's rounds (one a second).
        deadline = time.monotonic() + 2.5
        while time.monotonic() < deadline:
            assert vips.read_text() == HEADER + f"{ABSENT}/32\n"
            time.sleep(0.05)
        assert reload_count() == 3 and watcher.poll() is None
    finally:
        watcher.kill()
        watcher.wait(timeout=10)


def test_vips_file_without_token_says_so_and_keeps_the_file(tmp_path, cleanup):
    vigil = start_vigil(tmp_path, cleanup)
    vips = tmp_path / "vips.conf"
    env = {k: v for k, v in os.environ.items() if k != "VIGIL_TOKEN"}
    with open(tmp_path / "watcher.log", "w") as log:
        watcher = subprocess.Popen(
            [str(VIGIL), "health", "--vips-file", str(vips), "--vips-format", "bird", "--admin",
             f"http://{vigil.admin}"], stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        line = (f"vips: vigil answered /v1/status with HTTP 401 (give --token-file); {vips} kept "
                "as it is")
        wait_for(lambda: line in (tmp_path / "watcher.log").read_text(), what="the 401 line")
        # Written empty at the start: BIRD refuses to start with an include of a missing file.
        assert vips.read_text() == HEADER
    finally:
        watcher.kill()
        watcher.wait(timeout=10)


def test_health_usage(tmp_path):
    r = subprocess.run([str(VIGIL), "health", "--help"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0 and "health [--exit-code | [--track-file FILE] [--vips-file FILE" in r.stdout
    r = subprocess.run([str(VIGIL), "health", "--vips-reload", "true"], capture_output=True, text=True,
                       timeout=10)
    assert r.returncode == 2 and "requires --vips-file" in r.stderr, r.stderr
    r = subprocess.run([str(VIGIL), "health", "--exit-code", "--track-file", str(tmp_path / "t")],
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 2 and "excludes" in r.stderr
    r = subprocess.run([str(VIGIL), "health", "--track-file", str(tmp_path / "no-such-dir" / "t"),
                        "--admin", "http://127.0.0.1:1"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 1 and "no-such-dir" in r.stderr, r.stderr
    r = subprocess.run([str(VIGIL), "health", "extra"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 2
    env = dict(os.environ, VIGIL_ADMIN="https://127.0.0.1:1")
    r = subprocess.run([str(VIGIL), "health", "--exit-code"], capture_output=True, text=True, timeout=10, env=env)
    assert r.returncode == 2
