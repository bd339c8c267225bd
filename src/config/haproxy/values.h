// The value syntaxes of haproxy.cfg that vigil reads: durations, integers, bind and server
// addresses, proxy and server names. Internal to config/ (the haproxy.cfg importer). Pure
// functions; errors say what is wrong with the text, the caller adds the line.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/error.h"

namespace vigil::config::haproxy {

// HAProxy's time format: an unsigned integer with an optional unit, us, ms, s, m, h or d. A bare
// number is milliseconds ("5000" = 5s). One number only: "1m30s" and "1.5s" are errors, as they
// are for HAProxy.
Result<Duration> parse_duration(std::string_view text);

// A decimal integer from `low` to `high`.
Result<long long> parse_integer(std::string_view text, long long low, long long high);

struct BindTarget {
  std::string address;  // an IP literal: "0.0.0.0" for `*` or nothing, "::" for `::`
  uint16_t port = 0;
};

// `bind`'s first argument: one or more comma-separated "[addr]:port", like "*:6443",
// ":6443", "0.0.0.0:6443", ":::6443", "[::]:6443", "ipv4@10.0.0.5:6443". As in HAProxy, `*` and
// an empty address mean every IPv4 address. Port ranges, UNIX sockets and host names are errors.
Result<std::vector<BindTarget>> parse_bind_targets(std::string_view text);

struct ServerTarget {
  std::string host;              // an IP literal or a host name (kept as a name)
  std::optional<uint16_t> port;  // none: the server line gives no port
};

// `server`'s address: "10.0.0.1:6443", "master-01.example.com:6443", "10.0.0.1", "[fd00::1]:6443",
// "fd00::1:6443" (the last colon separates the port, as in HAProxy), "ipv6@fd00::1".
Result<ServerTarget> parse_server_target(std::string_view text);

// Gives HAProxy names vigil names ([A-Za-z0-9._-], at most 64 characters): other characters
// (Octavia's "pool:listener" has a ':') become '_', long names are cut, and a name already in
// `taken` gets "-2", "-3"... The result is added to `taken`.
std::string vigil_name(std::string_view haproxy_name, std::set<std::string>& taken);

}  // namespace vigil::config::haproxy
