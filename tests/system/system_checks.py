"""The system tests' assertions: what vigil promises its clients during a master failure (no
failed request, no new request slower than about 1.5 s, a watch back within 3 s).

run_vigil_scenario() runs one scenario (testing.harness.netns.Experiment) with vigil in front of the
three masters, prints one line per client, and fails with every broken promise listed at once
(not just the first), with the numbers, so that a failing run says exactly what went wrong.
"""
import re
import warnings

import pytest

from testing.harness.netns import VICTIM, Experiment, VigilLB, find_kubectl, missing_prerequisites

requires_netns = pytest.mark.skipif(missing_prerequisites() is not None,
                                    reason=missing_prerequisites() or "")


def _first(items, n=3):
    return "; ".join(f"{t:+.2f}s ({ph}): {x}" if not isinstance(x, float) else f"{t:+.2f}s ({ph}): {x:.2f}s"
                     for t, ph, x in items[:n])


def in_flight_at_fault(res, r):
    """A request already talking to the victim when it lost power or was killed. No L4 load
    balancer can save it: its bytes went to a host that then vanished. Each client sends one
    request at a time, so there is at most one such request per client."""
    return r.served_by in (None, VICTIM) and r.start < res.fault < r.end


def client_problems(res, cut=True):
    """Zero failed requests of any kind, none slower than the scenario's latency bound, the watch
    back within its gap bound (testing.harness.netns.latency_bound, watch_gap_bound). The one
    request per client that may have been in flight to the victim at the instant of the fault is
    reported, not counted (see in_flight_at_fault). `cut`: the fault ends the watches' streams
    (else each must stream on through it: never cut, and not silent when the clients stop)."""
    problems = []
    for client in (res.newconn, res.kubectl):
        if client is None:
            continue
        s = res.summary(client)
        lost = [r for r in client.requests if not r.ok and in_flight_at_fault(res, r)]
        for r in lost:
            print(f"{s.kind}: one request was in flight to {VICTIM} at the fault "
                  f"(started {r.start - res.fault:+.2f}s) and was lost: {r.error}")
        failures = s.failures - len(lost)
        if failures:
            errors = [e for e in s.errors if not any(abs(e[0] - (r.start - res.fault)) < 1e-9
                                                     for r in lost)]
            problems.append(f"{s.kind}: {failures} of {s.count} requests failed "
                            f"({s.http_401} of them 401 Unauthorized); first: {_first(errors)}")
        # The lost one took as long as vigil needed to end it: not counted here either.
        slow = [x for x in s.slow if not any(abs(x[0] - (r.start - res.fault)) < 1e-9 for r in lost)]
        if slow:
            worst = max(x[2] for x in slow)
            problems.append(f"{s.kind}: {len(slow)} requests slower than {res.latency_bound():g}s "
                            f"(max {worst:.2f}s); first: {_first(slow)}")
    for kind, w in res.watches():
        failed = res.watch_failed_connects(w)
        if failed:
            problems.append(f"{kind}: {len(failed)} reconnect attempts failed; first: {_first(failed)}")
        if not cut:
            if res.watch_max_gap(w) > 2.0 or res.watch_reconnected_after_fault(w):
                problems.append(f"{kind}: its stream was cut or went silent during the fault (longest "
                                f"silence {res.watch_max_gap(w):.2f}s); {watch_gap_story(res, w)}")
            continue
        if not w.pinned:
            problems.append(f"{kind}: never landed on {VICTIM}, so the fault did not cut it")
        if not res.watch_reconnected_after_fault(w):
            problems.append(f"{kind}: did not reconnect after the fault (silent for "
                            f"{res.watch_silence_at_end(w):.1f}s when the run ended)")
        elif res.watch_max_gap(w) > res.watch_gap_bound():
            problems.append(f"{kind}: went {res.watch_max_gap(w):.2f}s without events "
                            f"(bound {res.watch_gap_bound():g}s); {watch_gap_story(res, w)}")
    return problems


def watch_gap_story(res, watch=None):
    """Where the longest gap began against the fault, the load then, and what ended its stream."""
    gaps = [g for g in res.watch_gaps(watch) if g[0] >= -1.0]
    if not gaps:
        return f"silent at the end of the run; load {res.max_load():.1f} at most"
    t, gap, old, why, new = max(gaps, key=lambda g: g[1])
    began = res.fault + t
    return (f"its last event came {t:+.2f}s from the fault ({res.when(began)}), on {old} "
            f"({why}), the next on {new}; load {res.max_load():.1f} at most in the run")


def vigil_status_problems(res, scenario):
    """vigil's status and log show master-01 going down with a reason and coming back."""
    problems = []
    timeline = [(t, st) for t, st in res.state_timeline() if st and "error" not in st]
    seen = " -> ".join(f"{st['status']}{'' if st['in_rotation'] else '(out)'}@{t:+.1f}s"
                       + (f" [{st['reason']}]" if st.get("reason") else "") for t, st in timeline)
    errors = [(t, st) for t, st in timeline if t >= 0 and st["status"] == "ERROR"]
    if not errors:
        problems.append(f"status: {VICTIM} never ERROR after the fault; seen: {seen}")
    else:
        if not any(st["reason"] for _, st in errors):
            problems.append(f"status: {VICTIM} ERROR without a reason; seen: {seen}")
        t_err = errors[0][0]
        if not any(t > t_err and st["status"] == "ONLINE" and st["in_rotation"] for t, st in timeline):
            problems.append(f"status: {VICTIM} not ONLINE again after its restart; seen: {seen}")
    if scenario in ("graceful", "rolling-restart"):
        exited = res.marks["exited"] - res.fault
        draining = [st for t, st in timeline if 0 <= t < exited and st["status"] == "DRAINING"]
        if not draining:
            problems.append(f"status: {VICTIM} never DRAINING while it announced [-]shutdown and still "
                            f"served (SIGTERM at +0s, exit at +{exited:.1f}s); seen: {seen}")
        else:
            # Drain: the member shows DRAINING until it stops answering.
            t_drain = next(t for t, st in timeline if 0 <= t < exited and st["status"] == "DRAINING")
            early = [(t, st) for t, st in timeline if t_drain < t < exited - 0.5 and st["status"] == "ERROR"]
            if early:
                t, st = early[0]
                problems.append(f"status: {VICTIM} went from DRAINING to ERROR at {t:+.1f}s [{st['reason']}] "
                                f"while it still served (it exited at +{exited:.1f}s); it should stay "
                                f"DRAINING until it stops answering")
        # Drain keeps established sessions: the watch on the victim lasts until the victim closes it.
        first = next((s for s in res.watch.streams if s.served_by == VICTIM), None) if res.watch else None
        if first is not None and first.ended is not None and first.ended < res.marks["exited"] - 1.0:
            problems.append(f"watch: the stream on draining {VICTIM} was cut at "
                            f"{first.ended - res.fault:+.1f}s ({first.end_reason}), before {VICTIM} closed "
                            f"it at +{exited:.1f}s; established sessions should continue while it drains")
        reasons = " ".join(st["reason"] + " " + " ".join(st.get("failed_checks", [])) for _, st in timeline)
        if "shutdown" not in reasons:
            problems.append(f"status: the failing readyz check [-]shutdown never appeared in "
                            f"{VICTIM}'s status; seen: {seen}")
        down = res.mark_down()
        if down is None or down > exited:
            problems.append(f"status: {VICTIM} was not out of rotation before it exited "
                            f"(out after {down}, exit at +{exited:.1f}s)")
    lines = [ln for ln in res.lb.log_text().splitlines() if re.search(rf" member {VICTIM}[ :]", ln)]
    down_i = next((i for i, ln in enumerate(lines) if re.search(r" DOWN: \S", ln)), None)
    if down_i is None:
        problems.append(f"log: no '{VICTIM} ... DOWN: <reason>' line; {VICTIM} lines: {lines}")
    elif not any(re.search(r" UP\b", ln) for ln in lines[down_i + 1:]):
        problems.append(f"log: no '{VICTIM} ... UP' line after '{lines[down_i]}'")
    if scenario in ("graceful", "rolling-restart") and not any("shutdown" in ln for ln in lines):
        problems.append(f"log: no {VICTIM} line names the failing check [-]shutdown; lines: {lines}")
    if not res.alive_at_end:
        problems.append(f"vigil exited during the scenario (exit {res.lb.proc.returncode})")
    return problems


def run_vigil_scenario(netns, workdir, scenario, monitor=None, lb=None, **experiment):
    """`monitor`: vigil's health monitor (None: testing.harness.netns.VIGIL_HEALTH_MONITOR);
    `lb`: another load balancer than VigilLB(monitor); `experiment`: more of Experiment's
    arguments (master_args, kubectl_watch)."""
    kubectl = find_kubectl()
    if kubectl is None:
        warnings.warn("kubectl is not installed: the system test runs without its kubectl client")
    lb = lb or VigilLB(monitor=monitor)
    exp = Experiment(netns, workdir, [lb], kubectl=kubectl, **experiment)
    try:
        res = exp.run(scenario)[lb.key]
    finally:
        exp.stop_all()
    report = res.report_lines()
    timeline = ", ".join(f"{t:+.1f}s {st.get('status', st)}{'' if st.get('in_rotation', True) else '(out)'}"
                         + (f" [{st['reason']}]" if st.get("reason") else "")
                         for t, st in res.state_timeline() if st)
    report.append(f"{scenario}/{lb.key}: {VICTIM} as vigil saw it: {timeline}")
    report.append(f"{scenario}/{lb.key}: load average {res.load_at(res.fault):.1f} at the fault, "
                  f"{res.max_load():.1f} at most")
    report += [f"  log: {ln}" for ln in res.lb.log_text().splitlines()
               if re.search(rf" member {VICTIM}[ :]", ln) or "fail-open" in ln.lower()]
    print("\n".join(report))
    (workdir / "summary.txt").write_text("\n".join(report) + "\n")
    problems = client_problems(res) + vigil_status_problems(res, scenario)
    assert not problems, (f"{scenario}: {len(problems)} problems:\n  - " + "\n  - ".join(problems)
                          + "\n\n" + "\n".join(report))
