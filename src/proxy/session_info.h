// SessionInfo: what a worker tells about one of its established sessions when the control
// thread asks (GET /v1/sessions). Built on the worker's thread, then handed over whole; plain
// values, any thread once handed over.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "proxy/stats.h"

namespace vigil::proxy {

struct SessionInfo {
  uint64_t id = 0;  // unique within its worker
  std::string listener;
  // The member's counters, which identify it (as in close_member_sessions()); shared so that
  // the pointer cannot be reused by a new member before the control thread has read it.
  std::shared_ptr<const BackendStats> member;
  std::string client;          // "10.0.0.5:51234"
  std::string member_address;  // "10.0.0.11:6443"
  Duration age{};
  uint64_t bytes_in = 0;   // client -> member
  uint64_t bytes_out = 0;  // member -> client
};

struct SessionListing {
  int worker = 0;
  std::vector<SessionInfo> sessions;  // at most the limit asked for
  size_t total = 0;                   // matching, listed or not
};

}  // namespace vigil::proxy
