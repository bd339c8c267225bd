// Syntax of the names and addresses a config holds: object names, bind addresses ("[addr]:port"),
// member addresses (IP literal or host name). Pure functions; no name resolution here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/error.h"

namespace vigil::config {

// Names of load balancers, listeners, pools and members go into ids and URLs:
// 1-64 characters of [A-Za-z0-9._-].
inline constexpr size_t kMaxNameLength = 64;
bool valid_name(std::string_view name);
// Why `name` is not valid, for an error message; empty when it is.
std::string name_problem(std::string_view name);
// A load balancer's name from its config file's: "/etc/vigil/vigil.yaml" -> "vigil", with what
// a name cannot hold replaced by '-'; `fallback` when nothing is left.
std::string name_from_file(const std::string& file_name, std::string_view fallback);

struct BindAddress {
  std::string address;  // an IP literal without brackets; empty: every address
  uint16_t port = 0;    // 0: the kernel picks
};

// "[addr]:port": ":6443" or "*:6443" (every address), "127.0.0.1:6443", "[::1]:6443".
Result<BindAddress> parse_bind(std::string_view text);

// Whether two binds cannot both succeed: same port (not 0) and the same address, or one of
// them every address of the other's family.
bool binds_overlap(const BindAddress& a, const BindAddress& b);

// A listener's redirect_from: "192.0.2.10:6443", "[2001:db8::10]:6443". One address (not every
// one, nor the unspecified address) and a port other than 0: what an nftables rule matches.
Result<BindAddress> parse_redirect_from(std::string_view text);

bool is_ipv4_literal(std::string_view text);
bool is_ipv6_literal(std::string_view text);  // without brackets
bool is_loopback(std::string_view address);   // 127.0.0.0/8, ::1 (empty: every address, no)

// A member address: an IP literal or a DNS host name. Returns the address to store (brackets
// of an IPv6 literal removed) or why it is not one.
Result<std::string> parse_host(std::string_view text);

}  // namespace vigil::config
