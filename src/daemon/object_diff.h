// Which pools or listeners an apply brings and which it removes, by id: shared by Pools (pools)
// and ControlPlane (listeners), which adopt them the same way. Pure; any thread.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "base/string_map.h"
#include "daemon/runtime.h"
#include "model/config.h"

namespace vigil::daemon {

// The ids of the objects (`objects`: &Config::pools or &Config::listeners) the load balancers
// given anew bring.
template <typename Object>
StringSet given_ids(std::span<model::Config* const> given,
                    std::vector<Object> model::Config::*objects) {
  StringSet out;
  for (const model::Config* lb : given) {
    for (const Object& o : lb->*objects) out.insert(o.id);
  }
  return out;
}

// The running objects an apply removes: on a reload, any that `given` lacks; on an API write, only
// those of the load balancers it replaces, so that the others are not even looked at.
template <typename Running, typename Object>
std::vector<std::string> leaving(const Running& running, bool reload,
                                 const std::vector<const LoadBalancerRuntime*>& replaced,
                                 const StringSet& given,
                                 std::vector<Object> model::Config::*objects) {
  std::vector<std::string> out;
  if (reload) {
    for (const auto& [id, object] : running) {
      if (!given.contains(id)) out.push_back(id);
    }
    return out;
  }
  for (const LoadBalancerRuntime* lb : replaced) {
    for (const Object& o : lb->config.*objects) {
      if (!given.contains(o.id)) out.push_back(o.id);
    }
  }
  return out;
}

}  // namespace vigil::daemon
