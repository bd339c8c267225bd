"""/metrics of the real binary with traffic through it: promtool finds nothing to say about the
scrape, the byte counters match the bytes sent, docs/metrics.md lists exactly the families served,
a refused reload shows, the Prometheus rules pass promtool, and `openstack loadbalancer stats
show` reports the same counters.
"""
import json
import os
import re
import shutil
import subprocess

import pytest

from testing.harness.octavia_api import OPENSTACK, OpenStack, raw
from testing.harness.paths import ROOT, VIGIL
from testing.harness.vigil_process import EchoServer, Vigil, echo_once
from testing.harness.wait import wait_for

PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="promtool is missing (Debian: prometheus)")

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
"""

SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$")


def scrape(vigil, query=""):
    code, body = vigil.get("/metrics" + query)
    assert code == 200, body
    return body


def samples(body, name, **labels):
    """The values of `name`'s samples whose labels include `labels`."""
    out = []
    for line in body.splitlines():
        m = SAMPLE.match(line)
        if m and m.group(1) == name and all(f'{k}="{v}"' in (m.group(2) or "") for k, v in labels.items()):
            out.append(float(m.group(3)))
    return out


def documented_families():
    text = (ROOT / "docs/metrics.md").read_text()
    return set(re.findall(r"^\| `([a-z_:]+)` \|", text, re.M))


@pytest.fixture
def running(tmp_path, cleanup):
    echo = EchoServer()
    cleanup(echo)
    vigil = Vigil(tmp_path, CONFIG.format(port=echo.port))
    cleanup(vigil)
    vigil.wait_member("e1", "ONLINE")
    host, port = vigil.listener("echo")
    sent = 0
    for i in range(5):
        payload = os.urandom(100_000 + i)
        assert echo_once(host, port, payload) == payload
        sent += len(payload)
    return vigil, sent


def test_byte_counters_match_the_bytes_sent(running):
    vigil, sent = running

    def counted():
        body = scrape(vigil, "?histograms=member")
        got = {name: samples(body, name) for name in (
            "vigil_listener_received_bytes_total", "vigil_listener_sent_bytes_total",
            "vigil_member_sent_bytes_total", "vigil_member_received_bytes_total")}
        # A session's counters settle just after its client saw the end of the echo.
        closed = samples(body, "vigil_listener_active_connections") == [0]
        return all(v == [sent] for v in got.values()) and closed and body or None
    body = wait_for(counted, timeout=10, what=f"every byte counter at {sent}, no session open")
    assert samples(body, "vigil_listener_connections_total", listener="echo") == [5]
    assert samples(body, "vigil_member_connections_total", member="e1") == [5]
    assert samples(body, "vigil_member_active_connections", member="e1") == [0]
    assert samples(body, "vigil_member_status", member="e1", status="ONLINE") == [1]
    assert samples(body, "vigil_member_check_result", member="e1", result="ok") == [1]
    assert samples(body, "vigil_member_check_duration_seconds_count", member="e1")[0] >= 1
    assert samples(body, "vigil_member_transitions_total", member="e1")[0] >= 1
    assert samples(body, "vigil_config_last_reload_successful") == [1]
    assert samples(body, "process_open_fds")[0] > 0


@needs_promtool
def test_promtool_finds_nothing_to_say_about_the_scrape(running):
    vigil, _ = running
    body = scrape(vigil)
    done = subprocess.run([PROMTOOL, "check", "metrics"], input=body, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0 and not done.stdout.strip() and not done.stderr.strip(), (
        done.stdout + done.stderr)


def test_docs_list_exactly_the_families_served(running):
    vigil, _ = running
    # The members' histograms only when asked (admin.metrics.member_histograms is off).
    served = set(re.findall(r"^# TYPE (\S+) ", scrape(vigil, "?histograms=member"), re.M))
    documented = documented_families()
    assert served - documented == set(), "served but not in docs/metrics.md"
    # The peer sync's families are served only with `peers:` (tests/integration/test_peers.py),
    # the shared store's only with `admin.store` type etcd (test_shared_store.py).
    assert {f for f in documented - served
            if not f.startswith(("vigil_peer_", "vigil_store_"))} == set(), \
        "in docs/metrics.md but not served"


def test_build_info_names_the_commit_that_vigil_version_names(running):
    vigil, _ = running
    info = re.search(r'^vigil_build_info\{version="([^"]+)",revision="([^"]+)"\} 1$', scrape(vigil),
                     re.M)
    assert info, "vigil_build_info with version and revision labels"
    version = subprocess.run([str(VIGIL), "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    commit = re.search(r"^commit: (\S+)", version, re.M).group(1)
    assert version.startswith(f"vigil {info.group(1)}\n")
    assert info.group(2) == (commit if re.fullmatch(r"[0-9a-f]{12}", commit) else "unknown")


def test_a_refused_reload_shows_until_one_succeeds(running):
    vigil, _ = running
    good = vigil.config.read_text()
    vigil.config.write_text(good + "\nnot: [valid\n")
    code, _ = raw(vigil, "POST", "/v1/reload")
    assert code == 409
    body = scrape(vigil)
    assert samples(body, "vigil_config_last_reload_successful") == [0]
    failed_at = samples(body, "vigil_config_last_reload_timestamp_seconds")[0]
    assert failed_at >= samples(body, "process_start_time_seconds")[0]
    vigil.config.write_text(good)
    code, _ = raw(vigil, "POST", "/v1/reload")
    assert code == 200
    assert samples(scrape(vigil), "vigil_config_last_reload_successful") == [1]


@needs_promtool
def test_promtool_checks_and_tests_the_rules():
    rules = ROOT / "deploy/prometheus"
    for args in (["check", "rules", "vigil-rules.yml"], ["test", "rules", "vigil-rules.test.yml"]):
        done = subprocess.run([PROMTOOL, *args], cwd=rules, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr


def test_the_dashboard_queries_only_families_that_exist():
    dashboard = json.loads((ROOT / "deploy/grafana/vigil-dashboard.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    assert exprs
    used = {n for e in exprs for n in re.findall(r"\b((?:vigil|process)_[a-z_]+)", e)}
    known = documented_families()
    histograms = {f + s for f in known for s in ("_bucket", "_sum", "_count")}
    assert used - known - histograms == set()


@pytest.mark.skipif(OPENSTACK is None, reason="the openstack CLI is missing")
def test_openstack_stats_show_reports_the_counters(running):
    vigil, sent = running
    wait_for(lambda: samples(scrape(vigil), "vigil_listener_sent_bytes_total") == [sent]
             and samples(scrape(vigil), "vigil_listener_active_connections") == [0],
             timeout=10, what="the sent bytes counted, no session open")
    lb = OpenStack(vigil)
    [listener] = lb.json("listener", "list")
    stats = lb.json("listener", "stats", "show", listener["id"])
    assert stats["bytes_in"] == sent and stats["bytes_out"] == sent, stats
    assert stats["total_connections"] == 5 and stats["active_connections"] == 0, stats
    assert stats["request_errors"] == 0, stats
    [balancer] = lb.json("list")
    assert lb.json("stats", "show", balancer["id"])["bytes_out"] == sent
    # /v1/status gives the same statistics for every listener at once (the provider agent's
    # one read per poll).
    [in_status] = vigil.status()["listeners"]
    assert {k: in_status[k] for k in stats} == stats, in_status


def test_every_alert_has_a_runbook_section():
    import yaml
    rules = yaml.safe_load((ROOT / "deploy/prometheus/vigil-rules.yml").read_text())
    runbook = (ROOT / "docs/runbook.md").read_text()
    sections = {m.lower() for m in re.findall(r"^## (\w+)$", runbook, re.M)}
    alerts = [r for group in rules["groups"] for r in group["rules"] if "alert" in r]
    assert len(alerts) >= 11
    for rule in alerts:
        url = rule["annotations"].get("runbook_url", "")
        assert url == f"file:///usr/share/doc/vigil/runbook.md#{rule['alert'].lower()}", rule
        assert rule["alert"].lower() in sections, f"docs/runbook.md has no section {rule['alert']}"


def test_the_dashboard_reads_documented_families_per_node():
    dashboard = json.loads((ROOT / "deploy/grafana/vigil-dashboard.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    assert exprs and "instance" in {v["name"] for v in dashboard["templating"]["list"]}
    documented = documented_families()
    for expr in exprs:
        # Every series is picked by the node variable: a keepalived pair's two nodes check the
        # same members, and must not count twice.
        for name, selector in re.findall(r"\b((?:vigil|process)_\w+)(\{[^}]*\})?", expr):
            assert 'instance=~"$instance"' in selector, f"{name} in {expr}"
            family = re.sub(r"_bucket$", "", name)
            assert family in documented or name.startswith("process_"), family
    assert any("vigil_takeover_tickles_total" in e for e in exprs)  # the failover counters


def test_a_panel_of_the_member_histograms_says_how_to_turn_them_on():
    """vigil leaves the members' histograms out unless asked: such a panel, empty by default,
    says what to set rather than "No data"."""
    dashboard = json.loads((ROOT / "deploy/grafana/vigil-dashboard.json").read_text())
    panels = [p for p in dashboard["panels"]
              if any("_bucket" in t["expr"] for t in p.get("targets", []))]
    assert panels
    for panel in panels:
        assert "member_histograms: true" in panel["fieldConfig"]["defaults"].get("noValue", ""), (
            panel["title"])
