#include "model/admin_override.h"

#include <fmt/format.h>

namespace vigil::model {

std::optional<AdminOverride> next_override(const std::optional<AdminOverride>& current,
                                           std::optional<AdminState> state,
                                           std::optional<int> weight, WallTime now,
                                           std::string by) {
  AdminOverride next = current.value_or(AdminOverride{});
  if (state == AdminState::kReady) next = AdminOverride{};
  if (state) next.state = *state;
  if (weight) next.weight = *weight;
  if (next.state == AdminState::kReady && !next.weight) return std::nullopt;
  next.set_at = now;
  next.by = std::move(by);
  return next;
}

std::string describe(const AdminOverride& o) {
  std::string out;
  if (o.state != AdminState::kReady) out = std::string(to_string(o.state));
  if (o.weight) out += fmt::format("{}weight {}", out.empty() ? "" : ", ", *o.weight);
  return out.empty() ? "ready" : out;
}

}  // namespace vigil::model
