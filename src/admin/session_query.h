// What the admin API asks the daemon about established sessions (GET /v1/sessions, POST
// /v1/sessions/kill) gets back (Daemon::list_sessions). Plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vigil::admin {

struct SessionRow {
  std::string id;  // "worker-session", unique while the session lives
  std::string listener;
  std::string pool;
  std::string member;
  std::string client;          // "10.0.0.5:51234"
  std::string member_address;  // "10.0.0.11:6443"
  double age_seconds = 0;
  uint64_t bytes_in = 0;   // client -> member
  uint64_t bytes_out = 0;  // member -> client
};

struct SessionTable {
  std::vector<SessionRow> rows;  // at most the limit asked for, oldest first
  size_t total = 0;              // matching, listed or not
};

}  // namespace vigil::admin
