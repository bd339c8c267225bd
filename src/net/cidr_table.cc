#include "net/cidr_table.h"

#include <algorithm>
#include <map>

namespace vigil::net {
namespace {

using Key = std::pair<uint64_t, uint64_t>;

uint64_t be64(const uint8_t* b, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | b[i];
  return v;
}

Key key_of(std::string_view ip) {
  const auto* b = reinterpret_cast<const uint8_t*>(ip.data());
  if (ip.size() == 4) return {0, be64(b, 4)};
  return {be64(b, 8), be64(b + 8, 8)};
}

// The mask of a prefix of `prefix` bits, out of `width` (32 or 128), in Key's layout.
Key mask_of(int prefix, int width) {
  const auto ones = [](int bits) -> uint64_t {  // the top `bits` of 64
    return bits <= 0 ? 0 : bits >= 64 ? ~uint64_t{0} : ~uint64_t{0} << (64 - bits);
  };
  if (width == 32) return {0, ones(prefix) >> 32};
  return {ones(prefix), ones(prefix - 64)};
}

Key masked(Key k, Key mask) { return {k.first & mask.first, k.second & mask.second}; }

}  // namespace

CidrTable::CidrTable(std::span<const Cidr> networks) {
  std::map<int, std::vector<Key>, std::greater<>> v4, v6;
  for (const Cidr& c : networks) {
    const std::string_view bytes(reinterpret_cast<const char*>(c.network().data()),
                                 c.v6() ? 16 : 4);
    (c.v6() ? v6 : v4)[c.prefix()].push_back(key_of(bytes));
  }
  const auto levels = [](auto& by_prefix, int width, std::vector<Level>& out) {
    for (auto& [prefix, keys] : by_prefix) {
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      out.push_back({.prefix = prefix, .mask = mask_of(prefix, width), .networks = keys});
    }
  };
  levels(v4, 32, v4_);
  levels(v6, 128, v6_);
}

bool CidrTable::in(std::span<const Level> levels, Key address) {
  for (const Level& l : levels) {
    if (std::binary_search(l.networks.begin(), l.networks.end(), masked(address, l.mask))) {
      return true;
    }
  }
  return false;
}

bool CidrTable::contains(const SocketAddress& address) const {
  const std::string_view ip = address.ip_bytes();
  if (ip.size() == 16 && in(v6_, key_of(ip))) return true;
  const std::string_view v4 = unmapped(ip);
  return v4.size() == 4 && in(v4_, key_of(v4));
}

}  // namespace vigil::net
