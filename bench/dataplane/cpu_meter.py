"""CPU over one measurement of bench/dataplane/run.py, three ways:

  lb       the load balancer's processes (utime + stime of every thread, /proc/PID/stat);
  machine  every CPU's busy time (/proc/stat): what the measurement cost the whole machine,
           kernel threads and softirqs included, but also whatever else runs, so it means
           something only on an otherwise idle machine;
  parts    the participants only: the client (this script's reaped children, getrusage), the
           backend's processes and the LB's. Less than "machine" by the kernel work no process
           is charged for (ksoftirqd, other kernel threads), but unmoved by other work on the
           machine, so it is the figure to compare when the machine is busy.

Python 3 standard library only.
"""

import resource

from bench.benchlib import machine_cpu, process_cpu


def _children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class CpuMeter:
    """meter = CpuMeter(lb_pids, backend_pids); run the client (and wait for it); meter.stop()
    returns {"lb": s or None, "machine": s, "parts": s}."""

    def __init__(self, lb_pids, backend_pids):
        self.lb_pids, self.backend_pids = lb_pids, backend_pids
        self.lb0 = process_cpu(lb_pids, skip_gone=False) if lb_pids else None
        self.backend0 = process_cpu(backend_pids)
        self.client0 = _children_cpu()
        self.machine0 = machine_cpu()

    def stop(self):
        machine = machine_cpu() - self.machine0
        lb = process_cpu(self.lb_pids, skip_gone=False) - self.lb0 if self.lb_pids else None
        parts = (lb or 0.0) + process_cpu(self.backend_pids) - self.backend0 + _children_cpu() - self.client0
        return {"lb": lb, "machine": machine, "parts": parts}
