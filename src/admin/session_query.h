// What the admin API asks the daemon about established sessions (GET /v1/sessions, POST
// /v1/sessions/kill) and what it gets back. The daemon gathers the answer from its workers
// asynchronously: `done` runs later, on the control thread. Plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"

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

// Lists the sessions to the members named by id (every session when none are given), at most
// `limit`; the error (a worker that did not answer in time) is for a 503.
using ListSessionsFn =
    std::function<void(std::optional<std::vector<std::string>> member_ids, size_t limit,
                       std::function<void(Result<SessionTable>)> done)>;
// Closes the sessions to the members named by id; `done` gets how many were closed.
using KillSessionsFn = std::function<void(std::vector<std::string> member_ids,
                                          std::function<void(Result<size_t>)> done)>;

}  // namespace vigil::admin
