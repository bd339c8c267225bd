// CidrTable: a set of IPv4 and IPv6 networks asked "is this address in one of them?" once per
// accepted connection (a listener's allowed_cidrs). Built once per configuration, then read
// only: a value type, any thread; contains() allocates nothing and costs one binary search per
// distinct prefix length, however long the list.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "net/address.h"
#include "net/cidr.h"

namespace vigil::net {

class CidrTable {
 public:
  CidrTable() = default;
  explicit CidrTable(std::span<const Cidr> networks);

  // Whether `address` is in one of the networks. IPv4 networks contain the IPv4-mapped IPv6
  // addresses of their hosts too (a dual-stack listener sees IPv4 clients as ::ffff:a.b.c.d).
  bool contains(const SocketAddress& address) const;
  bool empty() const { return v4_.empty() && v6_.empty(); }

  bool operator==(const CidrTable&) const = default;

 private:
  using Key = std::pair<uint64_t, uint64_t>;  // an address's 128 bits, IPv4 in the low 32
  // The networks of one prefix length, masked, sorted and without repeats.
  struct Level {
    int prefix = 0;
    Key mask;
    std::vector<Key> networks;
    bool operator==(const Level&) const = default;
  };
  static bool in(std::span<const Level> levels, Key address);

  std::vector<Level> v4_;  // by prefix length, longest first
  std::vector<Level> v6_;
};

}  // namespace vigil::net
