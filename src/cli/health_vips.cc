#include "cli/health_vips.h"

#include <boost/asio/ip/address.hpp>
#include <set>

#include "cli/status_doc.h"

namespace vigil::cli {

std::optional<VipsFormat> parse_vips_format(std::string_view name) {
  if (name == "keepalived") return VipsFormat::kKeepalived;
  if (name == "bird") return VipsFormat::kBird;
  return std::nullopt;
}

VipSet served_vips(const boost::json::object& status, VipsFormat format) {
  std::set<std::string> addresses;
  VipSet out;
  for (const boost::json::object* lb_doc : load_balancer_docs(status)) {
    const boost::json::object* lb = child(*lb_doc, "loadbalancer");
    if (lb == nullptr || !str(*lb, "source_file").empty()) continue;
    const std::string vip = str(*lb, "vip_address");
    if (vip.empty()) continue;
    boost::system::error_code ec;
    const boost::asio::ip::address ip = boost::asio::ip::make_address(vip, ec);
    if (ec) {
      out.skipped.push_back("load balancer " + str(*lb, "id") + ": vip_address \"" + vip +
                            "\" is not an IP address; left out");
      continue;
    }
    if (ip.is_unspecified() || ip.is_loopback()) continue;
    if (format == VipsFormat::kBird && ip.is_v6()) {
      out.skipped.push_back("load balancer " + str(*lb, "id") + ": vip_address " + vip +
                            " is IPv6, and the BIRD file is for an IPv4 static protocol; left out");
      continue;
    }
    addresses.insert(ip.to_string());
  }
  out.addresses.assign(addresses.begin(), addresses.end());
  return out;
}

std::string vips_file_text(const std::vector<std::string>& addresses, VipsFormat format) {
  std::string text =
      "# Written by `vigil health --vips-file`: the addresses of the load balancers created "
      "through vigil's API. Do not edit.\n";
  for (const std::string& a : addresses) {
    const std::string net = a + (a.find(':') == std::string::npos ? "/32" : "/128");
    text += format == VipsFormat::kBird ? "route " + net + " via \"lo\";\n" : net + "\n";
  }
  return text;
}

VipsStep next_vips_step(const VipsState& state, const std::optional<std::string>& text,
                        bool reloading) {
  VipsStep step{.state = state};
  if (text && text != state.written) {
    step.write = *text;
    step.state.written = *text;
    step.state.reload_due = true;
  }
  // One reload at a time: one that started before this write has read the file too early, so
  // the flag stays and another runs after it.
  if (step.state.reload_due && !reloading) {
    step.reload = true;
    step.state.reload_due = false;
  }
  return step;
}

}  // namespace vigil::cli
