// Netmask: a dotted netmask (255.255.255.0) or its IPv6 form (ffff:ffff:ffff:ffff::), as
// Octavia's persistence_granularity and LVS's take it, read as a prefix length. Pure; any thread.
#pragma once

#include <string_view>

#include "base/error.h"

namespace vigil::net {

struct Netmask {
  bool v6 = false;
  int prefix = 32;  // leading one bits
  bool operator==(const Netmask&) const = default;
};

// Refuses what is not an address, and a mask whose ones are not contiguous (255.0.255.0): a
// network is a prefix.
Result<Netmask> parse_netmask(std::string_view text);

}  // namespace vigil::net
