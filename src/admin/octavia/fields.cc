#include "admin/octavia/fields.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "admin/octavia/names.h"
#include "admin/octavia/random_id.h"
#include "model/config.h"
#include "model/expected_codes.h"
#include "net/cidr.h"

namespace vigil::admin {
namespace {

constexpr int64_t kMaxTimeoutMs = 24LL * 24 * 3600 * 1000;  // Octavia's MAX_TIMEOUT: 24 days
constexpr int64_t kMaxConnections = 10'000'000;             // vigil's listener cap
constexpr int64_t kMaxCheckSeconds = 24 * 3600;

// name, description (where Octavia has one), project_id, tags and admin_state_up.
void read_common(FieldReader& r, ApiCommon& out, Mode mode, bool has_description) {
  if (r.is_null("name")) out.name.clear();
  if (auto v = r.string("name")) out.name = *v;
  if (has_description) {
    if (r.is_null("description")) out.description.clear();
    if (auto v = r.string("description")) out.description = *v;
  }
  if (mode == Mode::kCreate) {
    if (auto v = r.string("project_id", 36)) out.project_id = *v;
  }
  if (r.is_null("tags")) out.tags.clear();
  if (auto v = r.strings("tags")) out.tags = *v;
  if (r.is_null("admin_state_up") && mode == Mode::kUpdate) out.admin_state_up = true;
  if (auto v = r.boolean("admin_state_up")) out.admin_state_up = *v;
}

std::optional<std::string> ip_field(FieldReader& r, std::string_view key) {
  auto v = r.string(key, 64);
  if (v && !is_ip_address(*v)) {
    r.invalid(key, "Value should be IPv4 or IPv6 format");
    return std::nullopt;
  }
  return v;
}

// "vigil is a TCP load balancer: protocol HTTP is not supported" for anything but TCP.
void tcp_only(FieldReader& r, std::string& out, Mode mode) {
  if (mode == Mode::kCreate) r.require("protocol");
  if (auto v = r.string("protocol")) {
    if (*v != kOctaviaTcp) {
      r.fail(400, fmt::format("vigil is a TCP load balancer: protocol {} is not supported", *v));
    }
    out = *v;
  }
}

// TCP, PROXY or PROXYV2; anything else is refused as tcp_only() refuses it.
void pool_protocol(FieldReader& r, std::string& out, Mode mode) {
  if (mode == Mode::kCreate) r.require("protocol");
  if (auto v = r.string("protocol")) {
    if (!model::value_in<model::ProxyProtocol>(kOctaviaPoolProtocols, *v)) {
      r.fail(400, fmt::format("vigil is a TCP load balancer: pool protocol {} is not supported "
                              "(TCP, PROXY and PROXYV2 are)",
                              *v));
    }
    out = *v;
  }
}

void tls_fields_unsupported(FieldReader& r, std::string_view what) {
  const std::string why = fmt::format("vigil passes TLS through to the {} untouched", what);
  for (std::string_view key :
       {"tls_enabled", "tls_container_ref", "ca_tls_container_ref", "crl_container_ref",
        "tls_ciphers", "tls_versions", "alpn_protocols", "default_tls_container_ref",
        "sni_container_refs", "client_ca_tls_container_ref", "client_crl_container_ref"}) {
    r.unsupported(key, why);
  }
}

std::optional<int64_t> timeout_ms(FieldReader& r, std::string_view key) {
  return r.integer(key, 0, kMaxTimeoutMs);
}

// Octavia's pattern: "200", "200,202", "200-204".
bool valid_expected_codes(std::string_view s) {
  auto digits3 = [&](size_t at) {
    return at + 3 <= s.size() && std::isdigit(static_cast<unsigned char>(s[at])) &&
           std::isdigit(static_cast<unsigned char>(s[at + 1])) &&
           std::isdigit(static_cast<unsigned char>(s[at + 2]));
  };
  if (!digits3(0)) return false;
  if (s.size() == 7 && s[3] == '-' && digits3(4)) return model::ExpectedCodes::parse(s).has_value();
  size_t i = 3;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    if (i >= s.size() || s[i] != ',') return false;
    ++i;
    while (i < s.size() && s[i] == ' ') ++i;
    if (!digits3(i)) return false;
    i += 3;
  }
  return model::ExpectedCodes::parse(s).has_value();
}

// Printable ASCII starting with '/': the path goes into the check's request line.
bool valid_url_path(std::string_view s) {
  if (s.empty() || s.front() != '/') return false;
  for (char c : s) {
    if (c <= ' ' || c > '~') return false;
  }
  return true;
}

// Octavia's DOMAIN_NAME_REGEX: dot-separated labels of letters, digits, '-' and '_', 1..63
// characters each, not starting or ending with '-'; 253 characters at most.
bool valid_domain_name(std::string_view s) {
  if (!s.empty() && s.back() == '.') s.remove_suffix(1);
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t dot = std::min(s.find('.', start), s.size());
    const std::string_view label = s.substr(start, dot - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
      return false;
    }
    for (char c : label) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
    }
    start = dot + 1;
  }
  return true;
}

// Octavia's CidrType: an IPv4 or IPv6 network, or an address alone, kept with its host bits
// cleared and its length shown ("10.1.2.3/8" is stored as "10.0.0.0/8"); a repeat is kept once,
// as Octavia's table holds one row per network. Null or [] lets every client in.
void read_allowed_cidrs(FieldReader& r, ApiListener& out) {
  constexpr std::string_view kKey = "allowed_cidrs";
  if (r.is_null(kKey)) out.allowed_cidrs.clear();
  auto list = r.strings(kKey);
  if (!list) return;
  if (list->size() > model::kMaxAllowedCidrs) {
    r.fail(400, fmt::format("Invalid input for field/attribute {}. {} networks; vigil takes at "
                            "most {} on a listener",
                            kKey, list->size(), model::kMaxAllowedCidrs));
    return;
  }
  std::vector<std::string> cidrs;
  for (const std::string& text : *list) {
    auto cidr = net::Cidr::parse(text);
    if (!cidr) {
      r.fail(400, fmt::format("Invalid input for field/attribute {}. Value: '{}'. Value should "
                              "be IPv4 or IPv6 CIDR format",
                              kKey, text));
      return;
    }
    std::string normal = cidr->to_string();
    if (std::find(cidrs.begin(), cidrs.end(), normal) == cidrs.end()) {
      cidrs.push_back(std::move(normal));
    }
  }
  out.allowed_cidrs = std::move(cidrs);
}

bool http_type(std::string_view type) {
  const std::optional<model::MonitorType> t = octavia_monitor_type(type);
  return t && model::uses_http(*t);
}

// The HTTP fields: refused on TCP and TLS-HELLO monitors, defaulted on HTTP and HTTPS ones.
void read_http_fields(FieldReader& r, ApiHealthMonitor& out, Mode mode) {
  const bool http = http_type(out.type);
  for (std::string_view key : {"http_method", "url_path", "expected_codes"}) {
    if (!http && r.has(key) && !r.is_null(key)) {
      r.fail(400,
             fmt::format("{} is not a valid option for health monitors of type {}", key, out.type));
    }
  }
  if (!http) return;
  if (r.is_null("http_method") || (mode == Mode::kCreate && out.http_method.empty())) {
    out.http_method = "GET";
  }
  if (auto v = r.one_of("http_method", {"GET", "HEAD", "POST", "PUT", "DELETE", "TRACE", "OPTIONS",
                                        "PATCH", "CONNECT"})) {
    out.http_method = *v;
  }
  if (r.is_null("url_path") || (mode == Mode::kCreate && out.url_path.empty())) out.url_path = "/";
  if (auto v = r.string("url_path")) {
    if (!valid_url_path(*v)) {
      r.invalid("url_path", "Value should be a URL path starting with '/', without spaces");
    } else {
      out.url_path = *v;
    }
  }
  if (r.is_null("expected_codes") || (mode == Mode::kCreate && out.expected_codes.empty())) {
    out.expected_codes = "200";
  }
  if (auto v = r.string("expected_codes")) {
    if (!valid_expected_codes(*v)) {
      r.invalid("expected_codes", "Value should match \"200\", \"200,202\" or \"200-204\"");
    } else {
      out.expected_codes = *v;
    }
  }
}

}  // namespace

std::optional<ApiError> cidrs_fit_vip(const ApiListener& l, std::string_view vip_address) {
  auto vip = net::Cidr::parse(vip_address);
  if (!vip) return std::nullopt;  // no VIP to compare with: the listener binds every address
  for (const std::string& text : l.allowed_cidrs) {
    auto cidr = net::Cidr::parse(text);
    if (cidr && cidr->v6() != vip->v6()) {
      return ApiError{400, fmt::format("Validation failure: CIDR {} IP version incompatible with "
                                       "VIP {} IP version.",
                                       text, vip_address)};
    }
  }
  return std::nullopt;
}

bool is_ip_address(std::string_view text) {
  const std::string s(text);
  unsigned char buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

void read_loadbalancer(FieldReader& r, ApiLoadBalancer& out, Mode mode) {
  read_common(r, out, mode, true);
  r.unsupported("vip_qos_policy_id", "vigil has no QoS policies");
  if (mode == Mode::kUpdate) return;
  if (auto v = r.string("tenant_id", 36); v && out.project_id.empty()) out.project_id = *v;
  if (auto v = ip_field(r, "vip_address")) out.vip_address = *v;
  if (auto v = r.string("vip_subnet_id")) out.vip_subnet_id = *v;
  if (auto v = r.string("vip_network_id")) out.vip_network_id = *v;
  // `topology` is how the provider driver (also of before vigil_topology) spells it.
  if (auto v = r.one_of("topology", kOctaviaTopologies)) out.topology = *v;
  if (auto v = r.one_of("vigil_topology", kOctaviaTopologies)) out.topology = *v;
  r.unsupported("vip_port_id", "vigil binds vip_address on this host; it has no ports");
  r.unsupported("additional_vips", "a vigil load balancer has one VIP");
  r.unsupported("vip_sg_ids", "vigil has no security groups");
  r.unsupported("flavor_id", "vigil has no flavors");
  r.unsupported("availability_zone", "vigil has no availability zones");
  r.unsupported("listeners", "create listeners with their own requests");
  r.unsupported("pools", "create pools with their own requests");
}

void read_listener(FieldReader& r, ApiListener& out, Mode mode) {
  read_common(r, out, mode, true);
  if (mode == Mode::kCreate) {
    tcp_only(r, out.protocol, mode);
    r.require("protocol_port");
    if (auto v = r.integer("protocol_port", 1, 65535)) out.protocol_port = static_cast<int>(*v);
  }
  if (r.is_null("connection_limit")) out.connection_limit = -1;
  if (auto v = r.integer("connection_limit", -1, kMaxConnections)) {
    if (*v == 0) {
      r.invalid("connection_limit", "Value should be -1 (unlimited) or greater or equal to 1");
    } else {
      out.connection_limit = static_cast<int>(*v);
    }
  }
  struct Timeout {
    std::string_view key;
    std::optional<int64_t>& field;
  };
  for (const Timeout& t : {Timeout{"timeout_client_data", out.timeout_client_data},
                           Timeout{"timeout_member_connect", out.timeout_member_connect},
                           Timeout{"timeout_member_data", out.timeout_member_data},
                           Timeout{"timeout_tcp_inspect", out.timeout_tcp_inspect}}) {
    if (r.is_null(t.key)) t.field.reset();
    if (auto v = timeout_ms(r, t.key)) t.field = *v;
  }
  tls_fields_unsupported(r, "members");
  r.unsupported("default_pool", "create the pool with its own request");
  r.unsupported("l7policies", "vigil is a TCP load balancer; it has no L7 policies");
  r.unsupported("insert_headers", "vigil is a TCP load balancer; it does not see HTTP headers");
  read_allowed_cidrs(r, out);
  r.unsupported("hsts_include_subdomains", "vigil does not terminate TLS");
  r.unsupported("hsts_max_age", "vigil does not terminate TLS");
  r.unsupported("hsts_preload", "vigil does not terminate TLS");
  if (auto v = r.string("client_authentication"); v && *v != "NONE") {
    r.fail(400, "client_authentication is not supported by vigil: it does not terminate TLS");
  }
}

void read_pool(FieldReader& r, ApiPool& out, Mode mode) {
  read_common(r, out, mode, true);
  if (mode == Mode::kCreate) {
    pool_protocol(r, out.protocol, mode);
    r.require("lb_algorithm");
    r.unsupported("healthmonitor", "create the health monitor with its own request");
    r.unsupported("members", "create members with their own requests");
  }
  if (auto v = r.one_of("lb_algorithm", model::names_of<model::Algorithm>(kOctaviaAlgorithms))) {
    out.lb_algorithm = *v;
  }
  read_session_persistence(r, out);
  tls_fields_unsupported(r, "members");
}

void read_member(FieldReader& r, ApiMember& out, Mode mode) {
  read_common(r, out, mode, false);
  if (mode == Mode::kCreate) {
    r.require("address");
    if (auto v = ip_field(r, "address")) out.address = *v;
    r.require("protocol_port");
    if (auto v = r.integer("protocol_port", 1, 65535)) out.protocol_port = static_cast<int>(*v);
    if (auto v = r.string("subnet_id")) {
      if (!is_uuid(*v)) {
        r.invalid("subnet_id", "Value should be UUID format");
      } else {
        out.subnet_id = *v;
      }
    }
    r.unsupported("request_sriov", "vigil has no SR-IOV ports");
  }
  if (r.is_null("weight")) out.weight = 1;
  if (auto v = r.integer("weight", 0, 256)) out.weight = static_cast<int>(*v);
  if (r.is_null("backup")) out.backup = false;
  if (auto v = r.boolean("backup")) out.backup = *v;
  if (r.is_null("monitor_address")) out.monitor_address.clear();
  if (auto v = ip_field(r, "monitor_address")) out.monitor_address = *v;
  if (r.is_null("monitor_port")) out.monitor_port = 0;
  if (auto v = r.integer("monitor_port", 1, 65535)) out.monitor_port = static_cast<int>(*v);
}

void read_healthmonitor(FieldReader& r, ApiHealthMonitor& out, Mode mode) {
  read_common(r, out, mode, false);
  if (mode == Mode::kCreate) {
    r.require("type");
    if (auto v = r.one_of("type", kOctaviaAllMonitorTypes)) {
      if (octavia_monitor_type(*v)) {
        out.type = *v;
      } else {
        r.fail(400, fmt::format("vigil does not run {} health monitors: use TCP, TLS-HELLO, HTTP "
                                "or HTTPS",
                                *v));
      }
    }
    for (std::string_view key : {"delay", "timeout", "max_retries"}) r.require(key);
  } else {
    for (std::string_view key : {"delay", "timeout", "max_retries"}) {
      if (r.is_null(key)) r.fail(400, fmt::format("None is not a valid option for {}", key));
    }
  }
  if (!r.ok()) return;
  // Octavia accepts 0; vigil does not check in a busy loop nor give up at once.
  if (auto v = r.integer("delay", 1, kMaxCheckSeconds)) out.delay = static_cast<int>(*v);
  if (auto v = r.integer("timeout", 1, kMaxCheckSeconds)) out.timeout = static_cast<int>(*v);
  if (auto v = r.integer("max_retries", 1, 10)) out.max_retries = static_cast<int>(*v);
  if (r.is_null("max_retries_down")) out.max_retries_down = 3;
  if (auto v = r.integer("max_retries_down", 1, 10)) out.max_retries_down = static_cast<int>(*v);
  read_http_fields(r, out, mode);
  if (r.is_null("http_version")) out.http_version.reset();
  if (auto v = r.number("http_version")) {
    if (*v != 1.0 && *v != 1.1) {
      r.invalid("http_version", "Value should be one of: 1.0, 1.1");
    } else {
      out.http_version = *v;
    }
  }
  if (r.is_null("domain_name")) out.domain_name.clear();
  if (auto v = r.string("domain_name")) {
    if (!valid_domain_name(*v)) {
      r.invalid("domain_name", "Value should be a domain name");
    } else {
      out.domain_name = *v;
    }
  }
  if (!r.ok() || out.domain_name.empty()) return;
  if (!out.http_version) {
    r.fail(400,
           "Validation failure: 'http_version' must be specified when 'domain_name' is "
           "provided.");
  } else if (*out.http_version < 1.1) {
    r.fail(400,
           "http_version 1.0 is not a valid option for health monitors HTTP 1.1 domain name "
           "health check");
  }
}

}  // namespace vigil::admin
