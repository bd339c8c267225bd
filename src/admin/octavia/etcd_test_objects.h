// Objects for the tests of etcd's layout and of following it (etcd_layout_test.cc,
// etcd_follow_test.cc): ids that read as what they are, a member numbered `i` whose created_at
// keeps the order it was made in, a load balancer with one pool of `members` members.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "admin/octavia/objects.h"

namespace vigil::admin::etcd_test {

inline constexpr std::string_view kPrefix = "/vigil/";
inline const std::string kA = "aaaaaaaa-0000-4000-8000-000000000001";
inline const std::string kB = "bbbbbbbb-0000-4000-8000-000000000002";
inline const std::string kPool = "cccccccc-0000-4000-8000-000000000003";

inline std::string member_id(int i) { return fmt::format("dddddddd-0000-4000-8000-{:012}", i); }

inline ApiMember member(int i, std::string name = "") {
  ApiMember m;
  m.id = member_id(i);
  m.name = std::move(name);
  m.address = "10.0.0.1";
  m.protocol_port = 1000 + i;
  m.created_at = m.updated_at = fmt::format("2026-12-05T09:00:00.{:06}", i);
  return m;
}

inline ApiLoadBalancer lb(const std::string& id, const std::string& name, int members = 0) {
  ApiLoadBalancer out;
  out.id = id;
  out.name = name;
  out.vip_address = "127.0.0.1";
  out.created_at = out.updated_at = "2026-12-05T09:00:00.000001";
  ApiPool pool;
  pool.id = kPool;
  for (int i = 0; i < members; ++i) pool.members.push_back(member(i));
  out.pools.push_back(pool);
  return out;
}

}  // namespace vigil::admin::etcd_test
