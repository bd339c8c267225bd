// Binding: the sockets bound for one listener, one per worker, on their way to the workers
// (Listeners binds them, rebind.cc retries a port that was taken). Control thread only.
#pragma once

#include <string>
#include <vector>

#include "base/string_map.h"
#include "net/fd.h"

namespace vigil::daemon {

struct Binding {
  std::string listener_id;
  std::vector<net::Fd> fds;  // one per worker
  std::string bound;
  std::string error;  // not bound: the port is taken (start-up only); rebind.cc retries

  // One apply's bindings by listener id: a start binds thousands of listeners.
  static StringMap<Binding*> by_listener(std::vector<Binding>& bindings) {
    StringMap<Binding*> out;
    out.reserve(bindings.size());
    for (auto& b : bindings) out.emplace(b.listener_id, &b);
    return out;
  }
};

}  // namespace vigil::daemon
