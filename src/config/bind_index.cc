#include "config/bind_index.h"

#include <algorithm>

namespace vigil::config {
namespace {

bool wildcard(const BindAddress& b) {
  return b.address.empty() || b.address == "::" || b.address == "0.0.0.0";
}

}  // namespace

std::optional<size_t> BindIndex::add(const BindAddress& bind) {
  const size_t number = count_++;
  if (bind.port == 0) return std::nullopt;
  Port& port = ports_[bind.port];
  std::optional<size_t> first;
  const auto earlier = [&first](size_t n) { first = first ? std::min(*first, n) : n; };
  if (wildcard(bind)) {
    // It may take any address of the port: the first that overlaps is the answer. Wildcards are
    // few, so the scan is rare; it stops at the first clash.
    for (const auto& [n, other] : port.all) {
      if (binds_overlap(other, bind)) {
        earlier(n);
        break;
      }
    }
    port.wildcards.emplace_back(number, bind);
  } else {
    if (auto it = port.first_at.find(bind.address); it != port.first_at.end()) earlier(it->second);
    for (const auto& [n, other] : port.wildcards) {
      if (binds_overlap(other, bind)) {
        earlier(n);
        break;
      }
    }
    port.first_at.emplace(bind.address, number);
  }
  port.all.emplace_back(number, bind);
  return first;
}

}  // namespace vigil::config
