"""/metrics of the real binary by scope, by family name, without members in maintenance, with and
without the members' histograms: each answer is chunked, promtool finds nothing to say about it,
the four scopes together are the whole scrape, and what /metrics does not take is a 400.
"""
import http.client
import re
import shutil
import subprocess

import pytest

from testing.harness.vigil_process import TOKEN, EchoServer, Vigil

PROMTOOL = shutil.which("promtool")

CONFIG = """
admin:
  listen: 127.0.0.1:0
  token_file: @TOKEN_FILE@
listeners:
  - {{name: echo, bind: "127.0.0.1:0", pool: echoes}}
pools:
  - name: echoes
    health_monitor: {{type: TCP, interval: 200ms, timeout: 500ms}}
    members:
      - {{name: e1, address: 127.0.0.1, port: {port}}}
      - {{name: e2, address: 127.0.0.1, port: {port}}}
"""

SCOPES = ("process", "listener", "pool", "member")


def get(vigil, target):
    """(status, headers, body) of one GET on a connection of its own."""
    host, port = vigil.admin.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request("GET", target, headers={"X-Auth-Token": TOKEN})
        r = conn.getresponse()
        return r.status, r.headers, r.read().decode()
    finally:
        conn.close()


def scrape(vigil, query=""):
    code, headers, body = get(vigil, "/metrics" + query)
    assert code == 200, body
    assert headers["Transfer-Encoding"] == "chunked"
    return body


def families(body):
    return set(re.findall(r"^# TYPE (\S+) ", body, re.M))


def series(body):
    return {line.rsplit(" ", 1)[0] for line in body.splitlines() if line and not line.startswith("#")}


def promtool_says(body):
    done = subprocess.run([PROMTOOL, "check", "metrics"], input=body, capture_output=True, text=True,
                          timeout=30)
    return done.returncode, (done.stdout + done.stderr).strip()


@pytest.fixture(scope="module")
def vigil(tmp_path_factory):
    echo = EchoServer()
    vigil = Vigil(tmp_path_factory.mktemp("metrics-scope"), CONFIG.format(port=echo.port))
    try:
        vigil.wait_member("e1", "ONLINE")
        vigil.wait_member("e2", "ONLINE")
        assert vigil.cli("member", "maint", "echoes/e2").returncode == 0
        yield vigil
    finally:
        vigil.stop()
        echo.stop()


def test_a_small_vigil_gets_every_scope_by_default_and_nothing_is_left_out(vigil):
    # admin.metrics.scopes: auto, two members: far below the 2,000 above which members are left out.
    body = scrape(vigil)
    assert {"vigil_member_up", "vigil_listener_connections_total", "vigil_pool_status"} <= families(body)
    assert re.search(r"^vigil_metrics_members_left_out 0$", body, re.M), body


def test_the_four_scopes_together_are_the_whole_scrape(vigil):
    whole = families(scrape(vigil))
    parts = [families(scrape(vigil, f"?scope={s}")) for s in SCOPES]
    assert all(parts)
    assert set().union(*parts) == whole
    assert sum(len(p) for p in parts) == len(whole), "no family in two scopes"
    assert {f for f in parts[3] if not f.startswith(("vigil_member_", "vigil_check_"))} == set()
    assert {f for f in parts[1] if not f.startswith("vigil_listener_")} == set()
    two = families(scrape(vigil, "?scope=process&scope=pool"))
    assert two == parts[0] | parts[2]


@pytest.mark.skipif(PROMTOOL is None, reason="promtool is missing (Debian: prometheus)")
@pytest.mark.parametrize("query", [f"?scope={s}" for s in SCOPES] + [
    "?scope=process&scope=pool", "?histograms=member", "?no-maint",
    "?name%5B%5D=vigil_member_up&name%5B%5D=vigil_pool_status"])
def test_promtool_finds_nothing_to_say_about_a_scoped_scrape(vigil, query):
    assert promtool_says(scrape(vigil, query)) == (0, "")


def test_names_pick_families(vigil):
    body = scrape(vigil, "?name%5B%5D=vigil_member_up&name%5B%5D=vigil_pool_status")
    assert families(body) == {"vigil_member_up", "vigil_pool_status"}
    assert len([s for s in series(body) if s.startswith("vigil_member_up{")]) == 2


def test_the_members_histograms_only_when_asked(vigil):
    assert "vigil_member_check_duration_seconds" not in families(scrape(vigil))
    for query in ("?histograms=member", "?name%5B%5D=vigil_member_check_duration_seconds"):
        body = scrape(vigil, query)
        assert "vigil_member_check_duration_seconds" in families(body), query
        assert re.search(r'^vigil_member_check_duration_seconds_count\{[^}]*member="e1"', body, re.M)


def test_no_maint_leaves_the_member_in_maintenance_out(vigil):
    everything, without = scrape(vigil), scrape(vigil, "?no-maint")
    assert 'member="e2"' in everything
    assert 'member="e2"' not in without and 'member="e1"' in without
    assert "vigil_pool_members_in_rotation" in families(without)


@pytest.mark.parametrize("query, says", [
    ("?scope=server", 'unknown scope \\"server\\"; use process, listener, pool or member'),
    ("?scope=", 'unknown scope \\"\\"'),
    ("?histograms=all", "use histograms=member"),
    ("?scopes=pool", 'unknown parameter \\"scopes\\"'),
    ("?name%5B%5D=not%20a%20name", "is no metric family name"),
])
def test_what_metrics_does_not_take_is_a_400_that_says_what_it_takes(vigil, query, says):
    code, _, body = get(vigil, "/metrics" + query)
    assert code == 400 and says in body, body
    assert scrape(vigil, "?scope=pool")  # and vigil serves on


def test_the_config_sets_what_a_scrape_without_a_query_gets(tmp_path, cleanup):
    echo = EchoServer()
    cleanup(echo)
    config = CONFIG.replace("  token_file: @TOKEN_FILE@\n", "  token_file: @TOKEN_FILE@\n"
                            "  metrics: {{scopes: [process, pool], member_histograms: true}}\n")
    vigil = Vigil(tmp_path, config.format(port=echo.port))
    cleanup(vigil)
    vigil.wait_member("e1", "ONLINE")
    body = scrape(vigil)
    default = families(body)
    assert "vigil_pool_status" in default and "vigil_build_info" in default
    # The list left the members out by choice: not reported as left out.
    assert re.search(r"^vigil_metrics_members_left_out 0$", body, re.M), body
    assert not {f for f in default if f.startswith(("vigil_member_", "vigil_listener_"))}
    members = families(scrape(vigil, "?scope=member"))
    assert {"vigil_member_up", "vigil_member_check_duration_seconds"} <= members
