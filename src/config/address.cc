#include "config/address.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace vigil::config {
namespace {

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::ranges::all_of(text, [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// A host name label: letters, digits, '-' and '_' (seen in internal DNS), 1-63 characters.
bool valid_label(std::string_view label) {
  if (label.empty() || label.size() > 63) return false;
  if (label.front() == '-' || label.back() == '-') return false;
  return std::ranges::all_of(label, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
}

bool valid_host_name(std::string_view name) {
  if (name.ends_with('.')) name.remove_suffix(1);
  if (name.empty() || name.size() > 253) return false;
  std::string_view last;
  while (true) {
    const size_t dot = name.find('.');
    last = name.substr(0, dot);
    if (!valid_label(last)) return false;
    if (dot == std::string_view::npos) break;
    name.remove_prefix(dot + 1);
  }
  // "192.0.2.300" is a mistyped address, not a name: top-level domains are never all digits.
  return !all_digits(last);
}

}  // namespace

bool valid_name(std::string_view name) { return name_problem(name).empty(); }

std::string name_from_file(const std::string& file_name, std::string_view fallback) {
  std::string stem = file_name.substr(file_name.rfind('/') + 1);
  if (const size_t dot = stem.rfind('.'); dot != std::string::npos && dot > 0) stem.resize(dot);
  for (char& c : stem) {
    if (!valid_name(std::string_view(&c, 1))) c = '-';
  }
  if (stem.size() > kMaxNameLength) stem.resize(kMaxNameLength);
  return stem.empty() ? std::string(fallback) : stem;
}

std::string name_problem(std::string_view name) {
  if (name.empty()) return "must not be empty";
  if (name.size() > kMaxNameLength) {
    return "is " + std::to_string(name.size()) + " characters long; the limit is 64";
  }
  for (char c : name) {
    if (!name_char(c)) {
      const std::string shown = std::isprint(static_cast<unsigned char>(c))
                                    ? "'" + std::string(1, c) + "'"
                                    : "a control character";
      return "contains " + shown + "; use only letters, digits, '.', '_' and '-'";
    }
  }
  return "";
}

bool is_ipv4_literal(std::string_view text) {
  in_addr out{};
  return inet_pton(AF_INET, std::string(text).c_str(), &out) == 1;
}

bool is_ipv6_literal(std::string_view text) {
  in6_addr out{};
  return inet_pton(AF_INET6, std::string(text).c_str(), &out) == 1;
}

bool is_loopback(std::string_view address) {
  if (is_ipv4_literal(address)) return address.starts_with("127.");
  if (is_ipv6_literal(address)) {
    in6_addr a{};
    inet_pton(AF_INET6, std::string(address).c_str(), &a);
    return IN6_IS_ADDR_LOOPBACK(&a);
  }
  return address == "localhost";
}

Result<BindAddress> parse_bind(std::string_view text) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    return fail(quoted + " has no port; write [address]:port, like :6443 or 127.0.0.1:6443");
  }
  std::string_view address = text.substr(0, colon);
  const std::string_view port = text.substr(colon + 1);
  if (!all_digits(port) || port.size() > 5 || std::stoi(std::string(port)) > 65535) {
    return fail(quoted + ": the port must be a number from 0 to 65535");
  }
  BindAddress out{.address = "", .port = static_cast<uint16_t>(std::stoi(std::string(port)))};
  if (address.starts_with('[') && address.ends_with(']')) {
    address = address.substr(1, address.size() - 2);
    if (!is_ipv6_literal(address)) return fail(quoted + ": not an IPv6 address in brackets");
  } else if (address.find(':') != std::string_view::npos) {
    return fail(quoted + ": write an IPv6 address in brackets, like [::1]:6443");
  } else if (address == "*") {
    address = "";
  } else if (!address.empty() && !is_ipv4_literal(address)) {
    return fail(quoted + ": the address must be an IP address (IPv4, or IPv6 in brackets)");
  }
  out.address = std::string(address);
  return out;
}

Result<BindAddress> parse_redirect_from(std::string_view text) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  auto at = parse_bind(text);
  if (!at) return at;
  if (at->address.empty() || at->address == "0.0.0.0" || at->address == "::") {
    return fail(quoted + ": name the one address clients connect to (the VIP), like " +
                "192.0.2.10:6443 or [2001:db8::10]:6443, not every address");
  }
  if (at->port == 0) {
    return fail(quoted + ": the port must be the one clients connect to (1 to 65535), not 0");
  }
  return at;
}

bool binds_overlap(const BindAddress& a, const BindAddress& b) {
  if (a.port == 0 || a.port != b.port) return false;
  if (a.address == b.address || a.address.empty() || b.address.empty()) return true;
  // "::" is dual-stack by default, so it also takes every IPv4 address.
  if (a.address == "::" || b.address == "::") return true;
  if (a.address == "0.0.0.0") return is_ipv4_literal(b.address);
  if (b.address == "0.0.0.0") return is_ipv4_literal(a.address);
  return false;
}

Result<std::string> parse_host(std::string_view text) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  if (text.empty()) return fail("must not be empty");
  if (std::ranges::any_of(text,
                          [](char c) { return std::isspace(static_cast<unsigned char>(c)); })) {
    return fail(quoted + " contains a space");
  }
  if (text.starts_with('[') && text.ends_with(']') &&
      is_ipv6_literal(text.substr(1, text.size() - 2))) {
    return std::string(text.substr(1, text.size() - 2));
  }
  if (is_ipv4_literal(text) || is_ipv6_literal(text) || valid_host_name(text)) {
    return std::string(text);
  }
  if (text.find(':') != std::string_view::npos) {
    return fail(quoted + " is not an IP address or host name (the port goes in its own key)");
  }
  return fail(quoted + " is not an IP address or host name");
}

}  // namespace vigil::config
