"""bench/peer_sync's figures from its rounds: medians and ranges, the table, and the JSON line."""

import statistics

from bench.benchlib import emit_json, fmt


def spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def summarize(runs):
    """Every figure of the rounds as its spread; the extra of A over A0 is the same round's, so
    that a busier minute of the machine counts against both."""
    keys = sorted({k for r in runs for k, v in r.items() if isinstance(v, (int, float)) and k != "round"})
    figures = {k: spread([r.get(k) for r in runs]) for k in keys}
    per_session = [(r["b_rss_anon_kb_known"] - r["b_rss_anon_kb_none"]) * 1024 / r["held_end"]
                   for r in runs if r.get("b_rss_anon_kb_known") and r.get("held_end")]
    figures["b_rss_bytes_per_session"] = spread(per_session)
    consistent = [{k: r.get(k) for k in ("round", "a_sent_churning", "b_known_churning", "a_sent_end",
                                         "b_known_end", "held_end", "b_lost", "a_failed", "a0_failed", "a_lost", "a0_lost")}
                  for r in runs]
    return {"figures": figures, "sessions_known": consistent}


def cell(s, digits=2):
    if s is None:
        return "-"
    if s["n"] == 1:
        return fmt(s["median"], digits)
    return f"{fmt(s['median'], digits)} ({fmt(s['min'], digits)} to {fmt(s['max'], digits)})"


def print_report(result, json_out=None):
    f = result["figures"]
    print(f"\nvigil peer sync: {result['sessions_planned']} sessions through each A ({result['held']} "
          f"long-lived, {result['rate']} new a second living {result['life_ms'][0]}-{result['life_ms'][1]} ms), "
          f"{result['workers']} worker(s), window {result['window_s']:g} s, {len(result['runs'])} rounds")
    m = result["machine"]
    print(f"{m['nproc']} CPUs, {m['cpu']}, kernel {m['kernel']}; load average {result['load_average'][0]} "
          f"before, {result['load_average'][1]} after")
    print("\nCPU, % of one core: median (min to max) over the rounds")
    print(f"{'':16} {'A (peers)':>24} {'A0 (alone)':>24} {'A - A0: the sync':>24} {'B (receives)':>24}")
    for label, part in (("whole process", ""), ("control thread", "_control"), ("workers", "_workers")):
        print(f"{label:16} {cell(f.get(f'a{part}_pct')):>24} {cell(f.get(f'a0{part}_pct')):>24} "
              f"{cell(f.get(f'extra{part}_pct')):>24} {cell(f.get(f'b{part}_pct')):>24}")
    print(f"{'its load':16} {cell(f.get('load_a_pct')):>24} {cell(f.get('load_a0_pct')):>24}")
    print(f"whole machine (every process, the run's and others'): {cell(f.get('machine_pct'))}")
    print(f"\nsessions opened a second through A {cell(f.get('a_opened_per_s'), 0)}, through A0 "
          f"{cell(f.get('a0_opened_per_s'), 0)}; closed {cell(f.get('a_closed_per_s'), 0)} and "
          f"{cell(f.get('a0_closed_per_s'), 0)}")
    print(f"A's stream to B: {cell(f.get('stream_bytes_per_s'), 0)} bytes a second")
    for s in result["sessions_known"]:
        print(f"round {s['round']}: churning, A sent {fmt(s['a_sent_churning'], 0)} and B knew "
              f"{fmt(s['b_known_churning'], 0)}; churn stopped, A sent {fmt(s['a_sent_end'], 0)}, B knew "
              f"{fmt(s['b_known_end'], 0)}, A's client held {s['held_end']}; failed sessions "
              f"{s['a_failed']} and {s['a0_failed']} (long-lived {s['a_lost']} and {s['a0_lost']}), "
              f"peer lost {fmt(s['b_lost'], 0)}")
    print(f"RssAnon, kB: B with none of A's sessions known {cell(f.get('b_rss_anon_kb_none'), 0)}, with "
          f"them known {cell(f.get('b_rss_anon_kb_known'), 0)} ({cell(f.get('b_rss_bytes_per_session'), 0)} "
          f"bytes a session), after the churn {cell(f.get('b_rss_anon_kb_end'), 0)}; A "
          f"{cell(f.get('a_rss_anon_kb_end'), 0)} and A0 {cell(f.get('a0_rss_anon_kb_end'), 0)} after the churn")
    emit_json(result, json_out)
