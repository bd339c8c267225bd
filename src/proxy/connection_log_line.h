// The connection log's line for one record, in text (like HAProxy's tcplog) and as the fields of
// a JSON event, e.g.
//   connection listener api client 10.0.0.5:51234 member masters/master-01 10.0.0.11:6443
//   connect 2ms duration 1503ms bytes_in 517 bytes_out 4096 end client_close
// Pure; any thread (the control thread writes them).
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <string>

#include "proxy/connection_log.h"

namespace vigil::proxy {

// The member a record names (by BackendStats::serial), as the control thread knows it.
struct MemberName {
  std::string pool;
  std::string member;
  std::string address;  // "10.0.0.11:6443"
};

struct ConnectionLine {
  std::string text;
  boost::json::object fields;
};

// `member`: null when the record names none (no member reached) or one no longer known.
// `accepted_at`: the wall-clock time of r.accepted. `fields`: false leaves them empty (a text
// log does not need them, and they are most of the cost).
ConnectionLine connection_line(const ConnectionRecord& r, const MemberName* member,
                               std::chrono::system_clock::time_point accepted_at,
                               bool fields = true);

}  // namespace vigil::proxy
