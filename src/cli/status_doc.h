// Reading the /v1/status document: parsing with a clear error, and accessors that give "", 0 or
// an empty array for a missing key, so that a slightly older or newer daemon still prints.
// Pure; any thread.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace vigil::cli {

Result<boost::json::object> parse_status(std::string_view text);

// The documents of each load balancer in /v1/status ("loadbalancers": the config file's first,
// then those created through the API); a daemon from before several load balancers has only the
// top-level one.
std::vector<const boost::json::object*> load_balancer_docs(const boost::json::object& doc);

std::string str(const boost::json::object& o, std::string_view key);  // numbers as text too
int64_t num(const boost::json::object& o, std::string_view key);
bool flag(const boost::json::object& o, std::string_view key);
const boost::json::array& list(const boost::json::object& o, std::string_view key);
// The object under `key`, or nullptr when it is missing or null.
const boost::json::object* child(const boost::json::object& o, std::string_view key);

// "10.0.0.1:6443", "[fd00::1]:6443".
std::string host_port(std::string_view host, int64_t port);
// Seconds since the epoch of "2024-05-01T12:00:00Z"; none for any other form.
std::optional<int64_t> unix_seconds(std::string_view iso8601_utc);
// Two-space indented JSON, for people reading `--json` output.
std::string pretty_json(const boost::json::value& v);

}  // namespace vigil::cli
