// BindIndex: which earlier bind a new one clashes with (binds_overlap), found without comparing
// it to every bind before it. A host with ten thousand load balancers has ten thousand listeners,
// often on one port at as many addresses; checking them pairwise was a hundred million string
// compares at every start and on every API write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/string_map.h"
#include "config/address.h"

namespace vigil::config {

class BindIndex {
 public:
  // Records `bind` as the next one (number `size()` before the call) and returns the number of
  // the first earlier bind that overlaps it, if any. Port 0 never clashes: the kernel picks.
  std::optional<size_t> add(const BindAddress& bind);
  // The number of the first bind recorded that overlaps `bind`, if any; records nothing.
  std::optional<size_t> find(const BindAddress& bind) const;
  size_t size() const { return count_; }

 private:
  struct Port {
    StringMap<size_t> first_at;                       // a specific address -> the first bind on it
    std::vector<std::pair<size_t, BindAddress>> all;  // in order; scanned for a wildcard bind
    std::vector<std::pair<size_t, BindAddress>> wildcards;  // "", "::", "0.0.0.0"
  };
  std::unordered_map<uint16_t, Port> ports_;
  size_t count_ = 0;
};

}  // namespace vigil::config
