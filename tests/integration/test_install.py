"""`cmake --install` of the build: the systemd unit and the example config follow the prefix given
at install time (`--prefix /usr` on a build configured for /usr/local gives /usr/bin/vigil and
/etc/vigil), as packagers install. DESTDIR keeps it in the test's directory."""
import os
import subprocess

import pytest

from testing.harness.paths import BUILD


@pytest.mark.parametrize("prefix, etc", [("/usr", "/etc"), ("/opt/vigil", "/opt/vigil/etc")])
def test_the_unit_and_config_follow_the_install_prefix(tmp_path, prefix, etc):
    done = subprocess.run(["cmake", "--install", str(BUILD), "--prefix", prefix],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, DESTDIR=str(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    unit = (tmp_path / prefix.lstrip("/") / "lib/systemd/system/vigil.service").read_text()
    assert f"ExecStart={prefix}/bin/vigil serve -c {etc}/vigil/vigil.yaml" in unit, unit
    assert f"ConditionPathExists={etc}/vigil/vigil.yaml" in unit
    assert "/usr/local" not in unit
    assert (tmp_path / etc.lstrip("/") / "vigil/vigil.yaml.example").is_file()
    assert (tmp_path / prefix.lstrip("/") / "bin/vigil").is_file()
