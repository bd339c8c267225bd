#include "config/bind_index.h"

#include <algorithm>

namespace vigil::config {
namespace {

bool wildcard(const BindAddress& b) {
  return b.address.empty() || b.address == "::" || b.address == "0.0.0.0";
}

}  // namespace

std::optional<size_t> BindIndex::find(const BindAddress& bind) const {
  if (bind.port == 0) return std::nullopt;
  const auto port = ports_.find(bind.port);
  if (port == ports_.end()) return std::nullopt;
  std::optional<size_t> first;
  const auto earlier = [&first](size_t n) { first = first ? std::min(*first, n) : n; };
  if (wildcard(bind)) {
    // It may take any address of the port: the first that overlaps is the answer. Wildcards are
    // few, so the scan is rare; it stops at the first clash.
    for (const auto& [n, other] : port->second.all) {
      if (binds_overlap(other, bind)) {
        earlier(n);
        break;
      }
    }
    return first;
  }
  const auto& first_at = port->second.first_at;
  if (auto it = first_at.find(bind.address); it != first_at.end()) earlier(it->second);
  for (const auto& [n, other] : port->second.wildcards) {
    if (binds_overlap(other, bind)) {
      earlier(n);
      break;
    }
  }
  return first;
}

std::optional<size_t> BindIndex::add(const BindAddress& bind) {
  const std::optional<size_t> first = find(bind);
  const size_t number = count_++;
  if (bind.port == 0) return first;
  Port& port = ports_[bind.port];
  if (wildcard(bind)) {
    port.wildcards.emplace_back(number, bind);
  } else {
    port.first_at.emplace(bind.address, number);
  }
  port.all.emplace_back(number, bind);
  return first;
}

}  // namespace vigil::config
