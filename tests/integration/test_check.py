"""`vigil check` and `vigil serve` on good and bad configs."""
import subprocess

from testing.harness.paths import VIGIL


def check(tmp_path, text):
    path = tmp_path / "vigil.yaml"
    path.write_text(text)
    return subprocess.run([str(VIGIL), "check", "-c", str(path)], capture_output=True, text=True, timeout=20)


GOOD = """
listeners:
  - {name: api, bind: ":6443", pool: masters}
pools:
  - name: masters
    health_monitor: {type: HTTPS, path: /readyz}
    members:
      - {name: master-01, address: 192.0.2.11, port: 6443}
      - {name: master-02, address: 192.0.2.12, port: 6443}
"""


def test_good_config_reports_timings(tmp_path):
    r = check(tmp_path, GOOD)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "pool masters" in r.stdout


def test_errors_name_file_and_line(tmp_path):
    r = check(tmp_path, GOOD.replace("path: /readyz", "path: /readyz, intervall: 5s").replace(
        "port: 6443}\n      - {name: master-02", "port: 70000}\n      - {name: master-02"))
    assert r.returncode == 1
    assert "vigil.yaml:6:" in r.stdout and "intervall" in r.stdout
    assert "vigil.yaml:8:" in r.stdout and "70000" in r.stdout


def test_missing_monitor_warns_and_slow_monitor_breaks_the_30s_rule(tmp_path):
    r = check(tmp_path, GOOD.replace("health_monitor: {type: HTTPS, path: /readyz}",
                                     "health_monitor: {type: HTTPS, interval: 10s, timeout: 10s, unhealthy_threshold: 3}"))
    assert r.returncode == 0
    assert "30" in r.stdout
    r = check(tmp_path, GOOD.replace("    health_monitor: {type: HTTPS, path: /readyz}\n", ""))
    assert r.returncode == 0
    assert "no health monitor" in r.stdout


def test_serve_refuses_an_invalid_config(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("listeners:\n  - {name: api, bind: ':6443', pool: nope}\npools: []\n")
    r = subprocess.run([str(VIGIL), "serve", "-c", str(path)], capture_output=True, text=True, timeout=20)
    assert r.returncode == 1
    assert "bad.yaml:2" in r.stderr
