"""bench/peer_sync's figures from its runs: medians and ranges, the sync's extra CPU round by
round, the table, and the JSON line."""

import statistics

from benchlib import emit_json, fmt


def spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def summarize(runs):
    by = {"peers": [r for r in runs if r["mode"] == "peers"], "alone": [r for r in runs if r["mode"] == "alone"]}
    figures = {}
    for mode, rs in by.items():
        for key in sorted({k for r in rs for k in r if k.endswith("_pct") or k.endswith("_per_s")}):
            figures[f"{mode}.{key}"] = spread([r.get(key) for r in rs])
    # The sync's extra on A, round by round: the same round's two runs, so that a busier minute of
    # the machine counts against both.
    extra = {}
    for part in ("a_pct", "a_control_pct", "a_workers_pct"):
        diffs = []
        for p in by["peers"]:
            alone = [r for r in by["alone"] if r["round"] == p["round"]]
            if alone and part in p and part in alone[0]:
                diffs.append(p[part] - alone[0][part])
        extra[part] = spread(diffs)
    for part in ("b_pct", "b_control_pct", "b_workers_pct"):
        extra[part] = spread([p.get(part) for p in by["peers"]])
    per_session = [(p["b_rss_anon_kb_known"] - p["b_rss_anon_kb_none"]) * 1024 / p["held_end"]
                   for p in by["peers"] if p.get("b_rss_anon_kb_known") and p.get("held_end")]
    consistent = [{k: p.get(k) for k in ("round", "a_sent_churning", "b_known_churning", "a_sent_end",
                                         "b_known_end", "held_end", "b_lost", "failed")} for p in by["peers"]]
    return {"figures": figures, "extra": extra, "sessions_known": consistent,
            "b_rss_anon_kb": {k: spread([p.get(f"b_rss_anon_kb_{k}") for p in by["peers"]])
                              for k in ("none", "known", "end")},
            "b_rss_bytes_per_session": spread(per_session)}


def cell(s, digits=2):
    if s is None:
        return "-"
    if s["n"] == 1:
        return fmt(s["median"], digits)
    return f"{fmt(s['median'], digits)} ({fmt(s['min'], digits)} to {fmt(s['max'], digits)})"


def print_report(result, json_out=None):
    f, x = result["figures"], result["extra"]
    print(f"\nvigil peer sync: {result['sessions_planned']} sessions through A ({result['held']} long-lived, "
          f"{result['rate']} new a second living {result['life_ms'][0]}-{result['life_ms'][1]} ms), "
          f"{result['workers']} worker(s), window {result['window_s']:g} s, {len(result['runs']) // 2} rounds")
    m = result["machine"]
    print(f"{m['nproc']} CPUs, {m['cpu']}, kernel {m['kernel']}; load average {result['load_average'][0]} "
          f"before, {result['load_average'][1]} after")
    print("\nCPU, % of one core: median (min to max) over the rounds")
    print(f"{'':28} {'peers':>24} {'alone':>24} {'extra of the sync':>26}")
    rows = [("A, whole process", "a_pct"), ("A, control thread", "a_control_pct"),
            ("A, workers", "a_workers_pct"), ("B, whole process", "b_pct"),
            ("B, control thread", "b_control_pct"), ("B, workers", "b_workers_pct")]
    for label, key in rows:
        print(f"{label:28} {cell(f.get('peers.' + key)):>24} {cell(f.get('alone.' + key)):>24} "
              f"{cell(x.get(key)):>26}")
    for label, key in (("load client", "client_pct"), ("echo backend", "echo_pct"), ("whole machine", "machine_pct")):
        print(f"{label:28} {cell(f.get('peers.' + key)):>24} {cell(f.get('alone.' + key)):>24}")
    print(f"\nsessions opened a second {cell(f.get('peers.opened_per_s'), 0)} (peers), "
          f"{cell(f.get('alone.opened_per_s'), 0)} (alone); closed {cell(f.get('peers.closed_per_s'), 0)}, "
          f"{cell(f.get('alone.closed_per_s'), 0)}")
    print(f"A's stream to B: {cell(f.get('peers.stream_bytes_per_s'), 0)} bytes a second")
    for s in result["sessions_known"]:
        print(f"round {s['round']}: churning, A sent {fmt(s['a_sent_churning'], 0)} and B knew "
              f"{fmt(s['b_known_churning'], 0)}; churn stopped, A sent {fmt(s['a_sent_end'], 0)}, B knew "
              f"{fmt(s['b_known_end'], 0)}, the client held {s['held_end']}; failed sessions {s['failed']}, "
              f"peer lost {fmt(s['b_lost'], 0)}")
    r = result["b_rss_anon_kb"]
    print(f"B's RssAnon, kB: no session known {cell(r['none'], 0)}, A's sessions known {cell(r['known'], 0)}, "
          f"after the churn {cell(r['end'], 0)}: {cell(result['b_rss_bytes_per_session'], 0)} bytes a session")
    emit_json(result, json_out)
