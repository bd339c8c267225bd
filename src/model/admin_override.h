// An operator's runtime override of one member (vigil member drain, PUT .../members/M/admin,
// openstack loadbalancer member set): the state and weight it imposes over the config file's,
// when and by whom. Plain values and pure functions; any thread.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "model/spelling.h"

namespace vigil::model {

using WallTime = std::chrono::system_clock::time_point;

// kReady is no state override: back to what the file and the checks say. kDrain: no new
// connections, established sessions continue (DRAINING). kMaint: out of rotation and its sessions
// closed, still checked (OFFLINE).
enum class AdminState { kReady, kDrain, kMaint };

inline constexpr Spelling<AdminState> kAdminStateNames[] = {
    {AdminState::kReady, "ready"},
    {AdminState::kDrain, "drain"},
    {AdminState::kMaint, "maint"},
};
template <>
constexpr std::span<const Spelling<AdminState>> spellings<AdminState>() {
  return kAdminStateNames;
}
constexpr std::string_view to_string(AdminState s) { return name_in(spellings<AdminState>(), s); }

// Octavia's member weight range; 0 drains.
inline constexpr int kMaxMemberWeight = 256;

struct AdminOverride {
  AdminState state = AdminState::kReady;  // kReady with a weight: a weight override alone
  std::optional<int> weight;              // replaces the config's weight; 0..kMaxMemberWeight
  WallTime set_at{};
  std::string by;  // who set it: "API", "CLI", "Octavia API"

  bool operator==(const AdminOverride&) const = default;
};

// What a request makes of the member's current override: `ready` clears the state and the
// weight; `drain`/`maint` set the state and keep the weight; a weight replaces the weight (after
// `ready` clears, so `ready` with a weight leaves that weight alone). None: nothing is left.
std::optional<AdminOverride> next_override(const std::optional<AdminOverride>& current,
                                           std::optional<AdminState> state,
                                           std::optional<int> weight, WallTime now, std::string by);

// "drain", "maint, weight 3", "weight 0": the override in a few words.
std::string describe(const AdminOverride& o);

}  // namespace vigil::model
