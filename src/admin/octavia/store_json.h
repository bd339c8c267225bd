// The state file's format: {"version": 1, "journal": "<uuid>", "loadbalancers": [...],
// "member_overrides": {...}, "quotas": {...}}, each load balancer with its listeners and pools,
// each pool with its members and health monitor, under Octavia's field names; member_overrides
// (absent when there are none) by member id, quotas (likewise) by project id. `journal` (absent:
// none) names the journal that goes with it (state_journal.h), whose records are one JSON object a
// line:
//   {"put": [load balancer, ...], "delete": ["id", ...], "members": [{"loadbalancer_id": id,
//   "pool_id": id, "put": [member, ...], "delete": ["id", ...]}, ...], "member_overrides": {...},
//   "quotas": {...}}
// (each key absent when the write did not change it). Loading runs every object through the API's
// own validation (fields.h), so a state file never holds what the API would refuse. Pure; any
// thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "admin/octavia/member_changes.h"
#include "admin/octavia/objects.h"
#include "base/error.h"

namespace vigil::admin {

inline constexpr int kStateVersion = 1;

std::string state_to_json(const ApiState& state);

// One load balancer as state_to_json() writes it, and the whole file from its load balancers'
// (in order; ObjectStore keeps them, so that a write serializes only what it changed):
// state_to_json(s) == state_to_json(each lb_to_json(s.loadbalancers[i]), s.member_overrides).
std::string lb_to_json(const ApiLoadBalancer& lb);
std::string state_to_json(std::span<const std::string> lbs, const ApiState::Overrides& overrides,
                          std::string_view journal = {}, const ApiState::Quotas& quotas = {});

// One journal record, with its newline: the load balancers made or changed (their lb_to_json()),
// the ids of those removed, and the overrides and the quotas (all of them) when the write changed
// them.
// `members` are the load balancers of which a write changed members only, each as
// members_change_to_json() gives it (member_changes.h).
std::string record_to_json(std::span<const std::string> put, std::span<const std::string> removed,
                           const ApiState::Overrides* overrides,
                           const ApiState::Quotas* quotas = nullptr,
                           std::span<const std::string> members = {});
std::string members_change_to_json(std::string_view lb_id, const PoolMembersChange& change);
// Carries out one record (a line without its newline) on `state`: a load balancer put replaces
// the one of its id, in its place, or comes last; a members change is carried out on its pool
// (apply_members_change()). The error says what is wrong with the record.
Result<void> apply_record(std::string_view record, ApiState& state);

// One load balancer from lb_to_json()'s or lb_shell_to_json()'s text, validated as a state file's
// are (what etcd holds under its key: etcd_layout.h). The error names the field:
// "loadbalancer.pools[0]: ...".
Result<ApiLoadBalancer> lb_from_json(std::string_view text);

// What etcd holds of a load balancer whose members have keys of their own (etcd_layout.h): it
// without its pools' members, marked so ({"members_apart": true, ...}) that a vigil which reads
// members only inside the load balancer refuses it rather than take its pools for empty ones.
std::string lb_shell_to_json(const ApiLoadBalancer& lb);

// One member, as in a pool's "members", and back with the same checks.
std::string member_to_json(const ApiMember& m);
Result<ApiMember> member_from_json(std::string_view text);

// The error names the object and field: "loadbalancers[0].pools[1].members[2]: Invalid input
// for field/attribute protocol_port. Value: '70000'. Value should be lower or equal to 65535".
// `journal`, when given, is set to the id of the file's journal (empty when it names none).
Result<ApiState> state_from_json(std::string_view text, std::string* journal = nullptr);

}  // namespace vigil::admin
