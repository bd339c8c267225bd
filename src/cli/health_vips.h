// What `vigil health --vips-file` writes: the addresses of the load balancers created through
// vigil's API, in a form keepalived or BIRD includes, decided from a /v1/status document; and
// when to write it and run the reload command. Pure (the shell in health.cc writes and runs);
// any thread.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vigil::cli {

enum class VipsFormat {
  kKeepalived,  // "192.0.2.10/32" lines, in a vrrp_instance's virtual_ipaddress_excluded block
  kBird,        // `route 192.0.2.10/32 via "lo";` lines, inside a static protocol
};
std::optional<VipsFormat> parse_vips_format(std::string_view name);  // "keepalived", "bird"

// `vigil health --vips-file FILE [--vips-format F] [--vips-reload CMD]`.
struct VipsOptions {
  std::string file;  // empty: no VIP file is kept
  VipsFormat format = VipsFormat::kKeepalived;
  std::string reload;  // run by /bin/sh -c after each write; empty: none
};

struct VipSet {
  std::vector<std::string> addresses;  // canonical text, sorted, each once
  std::vector<std::string> skipped;    // why an address was left out, one line each
  bool operator==(const VipSet&) const = default;
};

// The vip_address of every load balancer created through the API. Left out: the config file's
// load balancer (its address is in keepalived.conf or BIRD's config already), an unset or
// wildcard address (nothing to move), a loopback one (the API's default, 127.0.0.1: every host
// has it), and, in `skipped`, text that is not an IP address and, for BIRD, IPv6 (the static
// protocol of deploy/bird/vigil-node.conf is IPv4, and one IPv6 route would make BIRD refuse
// the whole file).
VipSet served_vips(const boost::json::object& status, VipsFormat format);

// The whole file: a comment line, then one line per address, /32 or /128.
std::string vips_file_text(const std::vector<std::string>& addresses, VipsFormat format);

struct VipsState {
  std::optional<std::string> written;  // the file's text as last written or found
  bool reload_due = false;             // the last reload failed, or has not run since a write
  bool operator==(const VipsState&) const = default;
};

struct VipsStep {
  VipsState state;
  std::optional<std::string> write;  // the new text to rename into place
  bool reload = false;               // run the reload command now
  bool operator==(const VipsStep&) const = default;
};

// `text`: the file vigil's answer asks for; none when vigil did not answer, which keeps the file:
// a dead vigil's address moves by the track file, and one failed poll must not drop every VIP.
// `reloading`: a reload command still runs (its end decides whether another is due).
VipsStep next_vips_step(const VipsState& state, const std::optional<std::string>& text,
                        bool reloading);

}  // namespace vigil::cli
