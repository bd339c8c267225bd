#include "config/haproxy/values.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "config/address.h"

namespace vigil::config::haproxy {
namespace {

bool all_digits(std::string_view text) {
  return !text.empty() && std::ranges::all_of(text, [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text.substr(0, 80)) {
    out += std::iscntrl(static_cast<unsigned char>(c)) ? '?' : c;
  }
  if (text.size() > 80) out += "...";
  return out + "\"";
}

// Address prefixes of HAProxy's str2sa_range() that name a TCP socket, and those that do not.
constexpr std::string_view kTcpPrefixes[] = {"ipv4@", "ipv6@", "tcp@", "tcp4@", "tcp6@"};

Result<std::string_view> strip_prefix(std::string_view text) {
  for (std::string_view p : kTcpPrefixes) {
    if (text.starts_with(p)) return text.substr(p.size());
  }
  const size_t at = text.find('@');
  if (text.starts_with('/') ||
      (at != std::string_view::npos && at < 12 &&
       text.substr(0, at).find_first_of(":./[") == std::string_view::npos)) {
    return fail(quoted(text) +
                " is not a TCP address: vigil proxies TCP only (no UNIX sockets, UDP, QUIC or "
                "inherited file descriptors)");
  }
  return text;
}

Result<uint16_t> parse_port(std::string_view port, std::string_view whole, bool allow_zero) {
  if (port.starts_with('+') || port.starts_with('-')) {
    return fail(quoted(whole) +
                ": port offsets (relative to the client's destination port) are not supported; "
                "write the port");
  }
  if (port.find('-') != std::string_view::npos) {
    return fail(quoted(whole) + ": port ranges are not supported; write one port per bind");
  }
  auto n = parse_integer(port, allow_zero ? 0 : 1, 65535);
  if (!n) return fail(quoted(whole) + ": the port " + n.error().message);
  return static_cast<uint16_t>(*n);
}

}  // namespace

Result<Duration> parse_duration(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) {
    return fail("invalid time " + quoted(text) +
                ": expected a number with an optional unit (us, ms, s, m, h, d), like 5s or 5000");
  }
  if (digits > 12) return fail("invalid time " + quoted(text) + ": too large");
  long long value = 0;
  std::from_chars(text.data(), text.data() + digits, value);
  const std::string_view unit = text.substr(digits);
  using namespace std::chrono;
  Duration size;
  if (unit.empty() || unit == "ms") {
    size = milliseconds(1);
  } else if (unit == "us") {
    size = microseconds(1);
  } else if (unit == "s") {
    size = seconds(1);
  } else if (unit == "m") {
    size = minutes(1);
  } else if (unit == "h") {
    size = hours(1);
  } else if (unit == "d") {
    size = hours(24);
  } else {
    return fail("invalid time " + quoted(text) +
                ": the unit must be us, ms, s, m, h or d (none means ms), and only one number "
                "may be given");
  }
  // HAProxy's own limit, about 24.8 days (2^31 - 1 ms); checked before multiplying so that 12
  // digits of days cannot overflow, and it keeps every later sum far from overflow too.
  constexpr Duration kMax = milliseconds(2147483647);
  if (Duration::rep(value) > kMax.count() / size.count()) {
    return fail("invalid time " + quoted(text) + ": larger than HAProxy's limit of 24.8 days");
  }
  const Duration d = value * size;
  if (d > kMax) {
    return fail("invalid time " + quoted(text) + ": larger than HAProxy's limit of 24.8 days");
  }
  return d;
}

Result<long long> parse_integer(std::string_view text, long long low, long long high) {
  const std::string range = "must be an integer from " + std::to_string(low) + " to " +
                            std::to_string(high) + ", not " + quoted(text);
  const bool negative = text.starts_with('-');
  if (!all_digits(negative ? text.substr(1) : text)) return fail(range);
  long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < low || value > high) {
    return fail(range);
  }
  return value;
}

Result<std::vector<BindTarget>> parse_bind_targets(std::string_view text) {
  std::vector<BindTarget> out;
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    auto stripped = strip_prefix(item);
    if (!stripped) return std::unexpected(stripped.error());
    item = *stripped;
    std::string_view address;
    std::string_view port;
    if (item.starts_with('[')) {
      const size_t close = item.find(']');
      if (close == std::string_view::npos || close + 1 >= item.size() || item[close + 1] != ':') {
        return fail(quoted(item) + ": write an IPv6 bind as [address]:port or :::port");
      }
      address = item.substr(1, close - 1);
      port = item.substr(close + 2);
    } else {
      const size_t colon = item.rfind(':');
      if (colon == std::string_view::npos) {
        return fail(quoted(item) + " has no port; write [address]:port, like *:6443");
      }
      address = item.substr(0, colon);
      port = item.substr(colon + 1);
    }
    auto number = parse_port(port, item, /*allow_zero=*/true);
    if (!number) return std::unexpected(number.error());
    BindTarget target{.address = std::string(address), .port = *number};
    if (address.empty() || address == "*") {
      target.address = "0.0.0.0";
    } else if (!is_ipv4_literal(address) && !is_ipv6_literal(address)) {
      return fail(quoted(item) +
                  ": the address must be an IP address (vigil does not resolve host names for "
                  "binds)");
    }
    out.push_back(std::move(target));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

Result<ServerTarget> parse_server_target(std::string_view text) {
  auto stripped = strip_prefix(text);
  if (!stripped) return std::unexpected(stripped.error());
  const std::string_view item = *stripped;
  std::string_view host = item;
  std::optional<std::string_view> port;
  if (item.starts_with('[')) {
    const size_t close = item.find(']');
    if (close == std::string_view::npos) return fail(quoted(text) + ": missing ']'");
    host = item.substr(1, close - 1);
    const std::string_view after = item.substr(close + 1);
    if (!after.empty()) {
      if (!after.starts_with(':')) return fail(quoted(text) + ": expected :port after ']'");
      port = after.substr(1);
    }
  } else if (const size_t colon = item.rfind(':'); colon != std::string_view::npos) {
    const size_t colons = static_cast<size_t>(std::ranges::count(item, ':'));
    const std::string_view before = item.substr(0, colon);
    // "fd00::1" alone is an IPv6 address without a port; "fd00::1:6443" has one.
    if (colons == 1 || is_ipv6_literal(before) || !is_ipv6_literal(item)) {
      host = before;
      port = item.substr(colon + 1);
    }
  }
  if (host.empty() || host == "*" || host == "0.0.0.0" || host == "::") {
    return fail(quoted(text) +
                ": a server needs its own address (HAProxy's transparent forwarding to the "
                "client's destination is not supported)");
  }
  auto parsed = parse_host(host);
  if (!parsed) return fail("server address " + parsed.error().message);
  ServerTarget out{.host = *parsed, .port = std::nullopt};
  if (port && !port->empty()) {
    auto number = parse_port(*port, text, /*allow_zero=*/false);
    if (!number) return std::unexpected(number.error());
    out.port = *number;
  }
  return out;
}

std::string vigil_name(std::string_view haproxy_name, std::set<std::string>& taken) {
  std::string base;
  for (char c : haproxy_name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    base += ok ? c : '_';
  }
  if (base.empty()) base = "unnamed";
  if (base.size() > kMaxNameLength) base.resize(kMaxNameLength);
  std::string name = base;
  for (int n = 2; taken.contains(name); ++n) {
    const std::string suffix = "-" + std::to_string(n);
    name = base.substr(0, kMaxNameLength - suffix.size()) + suffix;
  }
  taken.insert(name);
  return name;
}

}  // namespace vigil::config::haproxy
