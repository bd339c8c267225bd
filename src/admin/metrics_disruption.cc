// The per-member disruption families of /metrics: what a member's faults cost its clients
// (model/disruption.h), counted by the data plane from the start of the process.
#include "admin/metrics_writer.h"

namespace vigil::admin::metrics {

void disruption_families(Writer& w, const Lbs& lbs, const std::vector<std::string>& labels) {
  struct Counter {
    std::string_view name, help;
    uint64_t model::DisruptionCounts::*field;
  };
  static constexpr Counter kCounters[] = {
      {"vigil_member_sessions_closed_total",
       "Sessions with the member's answers that vigil closed (marked down, maintenance, silent) "
       "so that their clients reconnect elsewhere.",
       &model::DisruptionCounts::sessions_closed},
      {"vigil_member_retries_total",
       "Connects moved to another member after one to this member failed.",
       &model::DisruptionCounts::retries},
      {"vigil_member_hedges_total",
       "Second connects to another member because one to this member was slower than "
       "hedge_after.",
       &model::DisruptionCounts::hedges},
      {"vigil_member_replays_total",
       "First flights sent again to another member after this member failed them.",
       &model::DisruptionCounts::replays},
      {"vigil_member_failed_sessions_total",
       "Client sessions that ended without a byte from any member after this member failed "
       "them.",
       &model::DisruptionCounts::failed_sessions},
  };
  for (const Counter& c : kCounters) {
    w.family(c.name, "counter", c.help);
    size_t i = 0;
    for (const model::LoadBalancerView& lb : lbs) {
      for (const model::PoolView& p : lb.pools) {
        for (const model::MemberView& m : p.members) {
          w.sample(c.name, labels[i++], "", m.disruption.*c.field);
        }
      }
    }
  }
}

}  // namespace vigil::admin::metrics
