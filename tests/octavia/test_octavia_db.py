"""The agent reads Octavia's load balancers in bulk from Octavia's database (octavia_db.trees)
rather than one driver-library lookup each: a re-push from that read sends vigil exactly the
bodies it would send from Octavia's own conversion (the driver agent's), for plain load balancers
and for one that varies every field a push sends. Runs tree_bodies.py on Octavia's interpreter
against a database built as the other Octavia tests build theirs."""
import json
import os
import subprocess
from pathlib import Path

import pytest

from testing.harness.octavia_harness import CONF, DRIVER_SRC, NOOP_PROVIDER, PYTHON, ROOT, missing
from testing.harness.octavia_api import free_port

pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))


def test_the_bulk_read_pushes_what_octavias_own_lookup_pushes(tmp_path):
    providers, agents = NOOP_PROVIDER
    conf = tmp_path / "octavia.conf"
    conf.write_text(CONF.format(api_port=free_port(), dir=tmp_path, providers=providers,
                                agents=agents))
    env = dict(os.environ, PYTHONPATH=f"{ROOT}:{DRIVER_SRC}", PYTHONWARNINGS="ignore")
    harness = ROOT / "testing/harness/octavia_schema.py"
    subprocess.run([PYTHON, str(harness), "--config-file", str(conf)], check=True, env=env,
                   timeout=180, capture_output=True)
    done = subprocess.run([PYTHON, str(Path(__file__).with_name("tree_bodies.py")),
                           "--config-file", str(conf)], env=env, timeout=180,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert len(result) == 4
    for lb_id, both in result.items():
        assert both["agent"] == both["octavia"], lb_id
    variants = next(b["octavia"] for b in result.values() if b["octavia"]["lb"][0].get("topology"))
    assert len(variants) == 1 + 2 + 2 + 2 + 1  # the load balancer, listeners, pools, members, hm
