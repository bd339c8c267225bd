// The per-member disruption families of /metrics: what a member's faults cost its clients
// (model/disruption.h), counted by the data plane from the start of the process.
#include "admin/metrics_writer.h"

namespace vigil::admin::metrics {
namespace {

template <auto Field>
void count(Writer& w, std::string_view name, const model::MemberView& m, const std::string& l,
           model::WallTime) {
  w.sample(name, l, "", m.disruption.*Field);
}

using D = model::DisruptionCounts;

constexpr Family<model::MemberView> kFamilies[] = {
    {"vigil_member_sessions_closed_total", "counter",
     "Sessions with the member's answers that vigil closed (marked down, maintenance, silent) so "
     "that their clients reconnect elsewhere.",
     &count<&D::sessions_closed>},
    {"vigil_member_retries_total", "counter",
     "Connects moved to another member after one to this member failed.", &count<&D::retries>},
    {"vigil_member_hedges_total", "counter",
     "Second connects to another member because one to this member was slower than hedge_after.",
     &count<&D::hedges>},
    {"vigil_member_replays_total", "counter",
     "First flights sent again to another member after this member failed them.",
     &count<&D::replays>},
    {"vigil_member_failed_sessions_total", "counter",
     "Client sessions that ended without a byte from any member after this member failed them.",
     &count<&D::failed_sessions>},
};

}  // namespace

std::span<const Family<model::MemberView>> disruption_families() { return kFamilies; }

}  // namespace vigil::admin::metrics
