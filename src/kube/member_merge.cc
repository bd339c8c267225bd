#include "kube/member_merge.h"

#include <fmt/format.h>

#include <algorithm>

#include "net/address.h"

namespace vigil::kube {
namespace {

// The same address and port, however each is written ("fd00::0:11" is "fd00::11"); a file
// member given by host name matches only its own text.
bool same_place(const model::Member& m, const Endpoint& e) {
  if (m.port != e.port) return false;
  auto a = net::SocketAddress::from_ip(m.address, m.port);
  auto b = net::SocketAddress::from_ip(e.address, e.port);
  return a && b ? *a == *b : m.address == e.address;
}

}  // namespace

std::string member_name(const Endpoint& e) {
  return e.address.find(':') != std::string::npos ? fmt::format("[{}]:{}", e.address, e.port)
                                                  : fmt::format("{}:{}", e.address, e.port);
}

model::Pool with_api_members(const model::Pool& file_pool, const std::vector<Endpoint>& endpoints,
                             bool stale) {
  model::Pool out = file_pool;
  out.members.clear();
  const model::SourceLocation where =
      file_pool.members_from ? file_pool.members_from->where : file_pool.where;
  for (const Endpoint& e : endpoints) {
    const model::Member* known = nullptr;
    for (const model::Member& m : file_pool.members) {
      if (!m.backup && same_place(m, e)) {
        known = &m;
        break;
      }
    }
    if (known != nullptr) {
      out.members.push_back(*known);
    } else {
      out.members.push_back(model::Member{
          .name = member_name(e), .address = e.address, .port = e.port, .where = where});
    }
  }
  for (const model::Member& m : file_pool.members) {
    const bool listed =
        std::ranges::any_of(endpoints, [&](const Endpoint& e) { return same_place(m, e); });
    if (stale && !m.backup && !listed) out.members.push_back(m);
  }
  for (const model::Member& m : file_pool.members) {
    if (m.backup) out.members.push_back(m);
  }
  return out;
}

}  // namespace vigil::kube
