#!/usr/bin/env python3
"""The fleet targets in one run: a build (--vigil) and the build before it (--baseline) at N load
balancers made through the Octavia API, measured by api_state.py (writes beside reads, a member
create into a pool of --last-pool-members, the journal's bytes per write) and metrics_scrape.py
(the default /metrics scrape), then one table of each target, both builds' figures and whether
the build meets it. Benchmarks print numbers and never gate CI: "met" is a reading, not a test.

    python3 -m bench.scale.fleet_targets --baseline OTHER_VIGIL [--vigil PATH] [--lbs 10000]

The targets (docs/performance.md, "The fleet targets in one run"):
- writes beside a list of every load balancer, a /metrics scrape and the status tree run back
  to back: p50 <= 5 ms and p99 <= 10 ms;
- a member create at --last-pool-members (1,000) members in one pool: p50 <= 5 ms;
- the journal's bytes per member write: a member's record, whatever its pool holds (<= 1 KB);
- the default scrape: <= 20 MB, rendered in <= 1 s of a core.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from bench.benchlib import log, run_main
from bench.scale.api_state import ROOT

# (label, where the figure is, the most it may be)
TARGETS = [
    ("writes beside the reads back to back, p50 ms", ("api", "write_during_reads_p50_ms"), 5.0),
    ("writes beside the reads back to back, p99 ms", ("api", "write_during_reads_p99_ms"), 10.0),
    ("member create into the big pool, p50 ms", ("api", "create_p50_ms"), 5.0),
    ("journal bytes per member write", ("api", "journal_bytes_per_write"), 1024),
    ("default /metrics scrape, MB", ("scrape", "mb"), 20.0),
    ("default /metrics scrape, CPU s", ("scrape", "cpu_s"), 1.0),
]


def run_bench(module, argv, tmp):
    out = os.path.join(tmp, module + ".json")
    subprocess.run([sys.executable, "-m", f"bench.scale.{module}", *argv, "--json-out", out],
                   check=True, cwd=ROOT)
    with open(out) as f:
        return json.load(f)


def figures(api, scrape, label):
    """{"api": api_state's figures, "scrape": the worst default scrape's} of one build."""
    scrapes = [s for s in scrape[label]["scrapes"] if s["query"] == ""]
    worst = {k: max(s[k] for s in scrapes) for k in ("mb", "cpu_s")} if scrapes else {}
    return {"api": api[label], "scrape": worst}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--lbs", type=int, default=10000)
    p.add_argument("--last-pool-members", type=int, default=1000)
    p.add_argument("--writes", type=int, default=30)
    p.add_argument("--back-to-back", type=int, default=3)
    p.add_argument("--rounds", type=int, default=3, help="default scrapes of each build (default 3)")
    p.add_argument("--vigil", default=str(ROOT / "build/release/src/daemon/vigil"))
    p.add_argument("--baseline", required=True, help="the build before, run the same way")
    args = p.parse_args(argv)
    builds = ["--vigil", args.vigil, "--baseline", args.baseline]
    with tempfile.TemporaryDirectory(prefix="vigil-bench-targets-", dir="/tmp") as tmp:
        log("api_state: writes, the journal, writes beside reads")
        api = run_bench("api_state", ["--lbs", str(args.lbs), "--writes", str(args.writes),
                                      "--last-pool-members", str(args.last_pool_members),
                                      "--back-to-back", str(args.back_to_back), *builds], tmp)
        log("metrics_scrape: the default scrape")
        scrape = run_bench("metrics_scrape", ["--lbs", str(args.lbs), "--rounds", str(args.rounds),
                                              "--query", "", *builds], tmp)
    ours, before = figures(api, scrape, "vigil"), figures(api, scrape, "baseline")
    print(f"\nThe fleet targets at {args.lbs} load balancers ({args.last_pool_members} members in the pool written to)")
    print(f"{'target':<48} {'at most':>8} {'vigil':>9} {'before':>9}  met")
    rows = []
    for label, (part, key), most in TARGETS:
        got, was = ours[part].get(key), before[part].get(key)
        met = got is not None and got <= most
        rows.append({"target": label, "at_most": most, "vigil": got, "baseline": was, "met": met})
        print(f"{label:<48} {most:>8} {str(got):>9} {str(was):>9}  {'yes' if met else 'NO'}")
    print(json.dumps({"bench": "fleet_targets", "lbs": args.lbs, "rows": rows}, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    run_main(main, sys.argv[1:])
