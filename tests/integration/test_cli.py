"""The command line itself: --help on every verb, usage errors, --version, `vigil reload` and the
member table's check columns and escaping, against the real binary (and a running vigil where a
verb needs one)."""
import gzip
import re
import subprocess

from testing.harness.octavia_api import create, free_port, start_vigil
from testing.harness.paths import BUILD, ROOT, VIGIL
from testing.harness.vigil_process import EchoServer, Vigil, pool_config
from testing.harness.wait import wait_for

MONITOR = "    health_monitor: {type: TCP, interval: 300ms, fast_interval: 100ms, timeout: 500ms}"

# Every verb, with an option its --help must list.
VERBS = {
    ("serve",): "--ready-file",
    ("check",): "--config",
    ("convert",): "HAPROXY_CFG",
    ("members",): "--json",
    ("status",): "--json",
    ("health",): "--exit-code",
    ("member", "drain"): "--wait",
    ("member", "maint"): "--admin",
    ("member", "ready"): "--token-file",
    ("member", "weight"): "N",
    ("sessions",): "--member",
    ("sessions", "kill"): "--pool",
    ("reload",): "--admin",
    ("upgrade",): "--admin",
    ("version",): "--help",
}


def run(*args, env=None):
    return subprocess.run([str(VIGIL), *args], capture_output=True, text=True, timeout=20,
                          env=env or {"PATH": "/usr/bin:/bin"})


def test_every_verb_answers_help_with_its_options():
    top = run("--help")
    assert top.returncode == 0, top.stderr
    for verb in {v[0] for v in VERBS}:
        assert re.search(rf"^  {verb}\b", top.stdout, re.M), verb
    assert run("help").stdout == top.stdout
    for verb, option in VERBS.items():
        helped = run(*verb, "--help")
        assert helped.returncode == 0, (verb, helped.stderr)
        assert f"vigil {' '.join(verb)}" in helped.stdout, (verb, helped.stdout)
        assert option in helped.stdout, (verb, helped.stdout)
        assert run(*verb, "-h").stdout == helped.stdout


def test_usage_errors_are_exit_2_with_a_clear_message():
    cases = {
        ("members", "--bogus"): "--bogus",
        ("check",): "--config is required",
        ("serve", "-c"): "-c",
        ("serve", "-c", "x.yaml", "--log-level", "loud"): "loud",
        ("frobnicate",): 'unknown command "frobnicate"',
        ("member", "evict", "m1"): 'unknown command "member evict"',
        ("member",): "subcommand is required",
        ("member", "weight", "m1", "257"): "not in range",
        ("member", "drain", "m1", "--wait=soon"): "--wait=soon",
        ("sessions", "kill"): "--member is required",
        ("health", "extra"): "extra",
        (): "subcommand is required",
    }
    for args, message in cases.items():
        r = run(*args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert message in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr and "terminate called" not in r.stderr


def test_version_names_the_commit_the_build_and_the_libraries():
    shown = run("--version")
    assert shown.returncode == 0, shown.stderr
    assert run("version").stdout == shown.stdout
    lines = shown.stdout.splitlines()
    assert re.fullmatch(r"vigil \d+\.\d+\.\d+", lines[0]), lines[0]
    fields = dict(line.split(": ", 1) for line in lines[1:])
    assert re.fullmatch(r"[0-9a-f]{12}|unknown \(not built from a git checkout\)", fields["commit"])
    assert fields["build"].split(",")[0] in ("Debug", "Release", "RelWithDebInfo", "MinSizeRel")
    assert fields["OpenSSL"].startswith("OpenSSL 3.")
    assert fields["Boost"].startswith("1.81.0")
    assert re.match(r"\d+\.\d+", fields["libyaml"]), fields["libyaml"]
    assert re.match(r"\d+ ", fields["libsystemd"]) and "libsystemd.so" in fields["libsystemd"]


def test_reload_applies_a_good_file_and_prints_a_bad_files_errors(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    config = pool_config(MONITOR, [("master-01", backend.port)])
    vigil = Vigil(tmp_path, config)
    cleanup(vigil)
    vigil.wait_member("master-01", "ONLINE")

    vigil.config.write_text(vigil.config.read_text().replace(
        "    members:\n",
        f"    members:\n      - {{name: master-02, address: 127.0.0.1, port: {backend.port}}}\n"))
    done = vigil.cli("reload")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "reloaded: the new configuration is applied\n"
    assert "master-02" in vigil.members()  # applied before the answer

    good = vigil.config.read_text()
    vigil.config.write_text(good.replace("    health_monitor: {type: TCP,",
                                         "    health_monitor: {type: TCP, intervall: 1s,"))
    refused = vigil.cli("reload")
    assert refused.returncode == 1, refused.stderr
    assert refused.stderr.startswith(f"vigil reload: refused: {vigil.config} has errors")
    line = next(n for n, text in enumerate(good.splitlines(), 1) if "health_monitor" in text)
    assert f"  {vigil.config}:{line}: error: " in refused.stderr, refused.stderr
    assert "intervall" in refused.stderr
    # With -c the client reads admin.listen and token_file from the file, which does not load:
    # the same errors, and (neither an address nor systemd's $MAINPID) a note that vigil was not
    # asked. test_reload_broken_file.py has the unit's way, through $MAINPID.
    local = run("reload", "-c", str(vigil.config))
    assert local.returncode == 1, local.stderr
    assert local.stderr.startswith(refused.stderr)
    assert "vigil was not asked" in local.stderr
    # The running configuration stays, and serves.
    assert set(vigil.members()) == {"master-01", "master-02"}
    assert vigil.get("/healthz", token=None)[0] == 200

    denied = subprocess.run([str(VIGIL), "reload", "--admin", f"http://{vigil.admin}"],
                            capture_output=True, text=True, timeout=20,
                            env={"PATH": "/usr/bin:/bin", "VIGIL_TOKEN": "wrong"})
    assert denied.returncode == 1 and "refused the token" in denied.stderr
    unreachable = run("reload", "--admin", f"http://127.0.0.1:{free_port()}",
                      env={"PATH": "/usr/bin:/bin", "VIGIL_TOKEN": "x"})
    assert unreachable.returncode == 2 and "cannot reach vigil" in unreachable.stderr


def test_members_shows_the_checks_layer_and_duration(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    dead = free_port()
    vigil = Vigil(tmp_path, pool_config(MONITOR, [("master-01", backend.port), ("master-02", dead)]))
    cleanup(vigil)
    vigil.wait_member("master-01", "ONLINE")
    vigil.wait_member("master-02", "ERROR")
    table = vigil.cli("members")
    assert table.returncode == 0, table.stderr
    header = next(line for line in table.stdout.splitlines() if line.startswith("| pool "))
    cells = [c.strip() for c in header.strip("|").split("|")]
    assert cells[cells.index("in_rotation") + 1:cells.index("reason")] == ["check", "duration"]
    rows = {row[1]: row for row in ([c.strip() for c in line.strip("|").split("|")]
                                    for line in table.stdout.splitlines()
                                    if line.startswith("| masters "))}
    at = cells.index("check")
    assert rows["master-01"][at] == "L4OK"
    assert rows["master-02"][at] == "L4CON"
    for name in ("master-01", "master-02"):
        assert re.fullmatch(r"\d+(\.\d)?ms|\d+\.\ds", rows[name][at + 1]), rows[name]


def test_names_from_the_api_never_reach_the_terminal_raw(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    vigil = start_vigil(tmp_path, cleanup)
    lb = create(vigil, "loadbalancers", "loadbalancer", {"name": "lb\x1b]0;owned\x07"})
    listener = create(vigil, "listeners", "listener", {"loadbalancer_id": lb["id"], "protocol": "TCP",
                                                       "protocol_port": free_port()})
    pool = create(vigil, "pools", "pool", {"listener_id": listener["id"], "protocol": "TCP",
                                           "lb_algorithm": "ROUND_ROBIN", "name": "p\x1b[2J"})
    create(vigil, None, "member", {"address": "127.0.0.1", "protocol_port": backend.port,
                                   "name": "m\x1b[31m1\u009b"},
           path=f"/v2/lbaas/pools/{pool['id']}/members")
    def pool_shown():
        status = vigil.status()
        return any(p["name"] == "p\x1b[2J" for lb in status.get("loadbalancers") or [status]
                   for p in lb["pools"])
    wait_for(pool_shown, what="the API's pool in /v1/status")
    for args in (("members",), ("status",)):
        shown = vigil.cli(*args)
        assert shown.returncode == 0, shown.stderr
        assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout and "\u009b" not in shown.stdout
    table = vigil.cli("members").stdout
    assert "m\\x1b[31m1\\u009b" in table and "p\\x1b[2J" in table
    assert "lb\\x1b]0;owned\\x07" in vigil.cli("status").stdout


def test_bash_completion_knows_every_verb():
    script = ROOT / "deploy/bash-completion/vigil"
    assert subprocess.run(["bash", "-n", str(script)], timeout=10).returncode == 0
    listed = re.search(r'local commands="([^"]+)"', script.read_text()).group(1).split()
    top = run("--help").stdout
    verbs = re.findall(r"^  ([a-z]+) ", top.split("Subcommands:")[1], re.M)
    assert verbs and sorted(verbs) == sorted(listed)


def test_bash_completion_offers_the_running_vigils_pools_and_members(tmp_path, cleanup):
    backend = EchoServer()
    cleanup(backend)
    vigil = Vigil(tmp_path, pool_config(MONITOR, [("master-01", backend.port),
                                                  ("master-02", backend.port)]))
    cleanup(vigil)
    script = ROOT / "deploy/bash-completion/vigil"
    # What bash-completion's _init_completion would set for `vigil member drain --admin URL ma`.
    words = f'vigil member drain --admin http://{vigil.admin} --token-file {vigil.dir / "token"} ma'
    probe = (f"source {script}; words=({words}); cword=7; _vigil_names member; echo ---; "
             "_vigil_names pool")
    done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=20,
                          env={"PATH": f"{VIGIL.parent}:/usr/bin:/bin"})
    members, pools = done.stdout.split("---\n")
    assert members.split() == ["master-01", "master-02", "masters/master-01",
                               "masters/master-02"], done.stdout + done.stderr
    assert pools.split() == ["masters"]
    # No vigil to ask (a closed port): nothing, quickly, and no error on the terminal.
    closed = probe.replace(vigil.admin, f"127.0.0.1:{free_port()}")
    done = subprocess.run(["bash", "-c", closed], capture_output=True, text=True, timeout=20,
                          env={"PATH": f"{VIGIL.parent}:/usr/bin:/bin"})
    assert done.stdout == "---\n" and done.stderr == ""


def test_help_all_and_the_man_page_show_every_verbs_options():
    """vigil(1) is help2man's rendering of --help-all: a verb's verbs (`member drain`, `sessions
    kill`) must show their options too, and SIGNALS what each signal does."""
    shown = run("--help-all")
    assert shown.returncode == 0, shown.stderr
    drain = shown.stdout.split("\nmember drain\n", 1)[1].split("\nmember maint\n", 1)[0]
    assert "--wait" in drain and "name, id or address" in drain
    assert "\nsessions kill\n" in shown.stdout
    man = BUILD / "man/vigil.1.gz"
    if man.exists():  # help2man is there (scripts/setup.sh installs it)
        text = gzip.decompress(man.read_bytes()).decode()
        assert "\\-\\-wait" in text and "SIGUSR2" in text and "shutdown_grace" in text
