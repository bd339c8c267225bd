#include "config/haproxy/convert.h"

#include <array>
#include <cctype>

#include "base/ascii.h"
#include "base/duration.h"

namespace vigil::config {
namespace {

bool plain_safe(std::string_view text) {
  static constexpr std::array<std::string_view, 11> kSpecial = {
      "true", "false", "yes", "no", "on", "off", "null", "y", "n", "~", "nan"};
  if (text.empty()) return false;
  const unsigned char first = static_cast<unsigned char>(text.front());
  if (!std::isalnum(first) && first != '/') return false;
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && c != '.' && c != '_' && c != '/' && c != '-') return false;
  }
  const std::string low = lowercase(text);
  for (std::string_view s : kSpecial) {
    if (low == s) return false;
  }
  return true;
}

// A YAML scalar that reads back as exactly `text` (UTF-8: the tokenizer refuses other words).
std::string scalar(std::string_view text) {
  if (plain_safe(text)) return std::string(text);
  static constexpr char kHex[] = "0123456789abcdef";
  const auto at = [&](size_t i) {
    return i < text.size() ? static_cast<unsigned char>(text[i]) : 0;
  };
  std::string out = "\"";
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char u = at(i);
    if (u == '"' || u == '\\') {
      out += '\\';
      out += static_cast<char>(u);
    } else if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else if (u == 0xC2 && at(i + 1) >= 0x80 && at(i + 1) <= 0x9F) {
      // U+0080..U+009F: YAML does not allow them written out, only escaped.
      out += "\\x";
      out += kHex[at(i + 1) >> 4];
      out += kHex[at(i + 1) & 15];
      ++i;
    } else if (u == 0xE2 && at(i + 1) == 0x80 && (at(i + 2) == 0xA8 || at(i + 2) == 0xA9)) {
      out += at(i + 2) == 0xA8 ? "\\u2028" : "\\u2029";  // line breaks to YAML: folded if raw
      i += 2;
    } else if (u == 0xEF && at(i + 1) == 0xBF && (at(i + 2) == 0xBE || at(i + 2) == 0xBF)) {
      out += at(i + 2) == 0xBE ? "\\uFFFE" : "\\uFFFF";  // not characters to YAML
      i += 2;
    } else {
      out += static_cast<char>(u);
    }
  }
  return out + "\"";
}

std::string quoted(std::string_view text) {
  return plain_safe(text) ? "\"" + std::string(text) + "\"" : scalar(text);
}

std::string bind_text(const model::Listener& l) {
  const std::string port = std::to_string(l.port);
  if (l.bind_address.empty()) return ":" + port;
  if (l.bind_address.find(':') != std::string::npos) return "[" + l.bind_address + "]:" + port;
  return l.bind_address + ":" + port;
}

std::string duration(Duration d) { return format_duration(d); }
std::string boolean(bool b) { return b ? "true" : "false"; }

class Writer {
 public:
  // A `key: value` line at `indent` spaces; `first` starts a list item ("- key: value").
  void line(int indent, std::string_view key, const std::string& value, bool first = false) {
    out_ += std::string(static_cast<size_t>(indent), ' ');
    if (first) out_ += "- ";
    out_ += std::string(key) + ":";
    if (!value.empty()) out_ += " " + value;
    out_ += "\n";
  }
  void raw(const std::string& text) { out_ += text; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

void write_admin(Writer& w, const model::Admin& a) {
  const model::Admin d;
  if (a.listen == d.listen && a.token_file == d.token_file && a.state_file == d.state_file) return;
  w.line(0, "admin", "");
  if (a.listen != d.listen) w.line(2, "listen", scalar(a.listen));
  if (!a.token_file.empty()) w.line(2, "token_file", scalar(a.token_file));
  if (!a.state_file.empty()) w.line(2, "state_file", scalar(a.state_file));
}

void write_listener(Writer& w, const model::Listener& l) {
  const model::Listener d;
  w.line(2, "name", scalar(l.name), true);
  w.line(4, "bind", quoted(bind_text(l)));
  w.line(4, "pool", scalar(l.pool));
  if (l.max_connections != d.max_connections) {
    w.line(4, "max_connections", std::to_string(l.max_connections));
  }
  if (l.idle_timeout != d.idle_timeout) w.line(4, "idle_timeout", duration(l.idle_timeout));
  if (l.member_idle_timeout != d.member_idle_timeout) {
    w.line(4, "member_idle_timeout", duration(l.member_idle_timeout));
  }
  if (l.freebind) w.line(4, "freebind", "true");
  if (l.log_connections) w.line(4, "log_connections", "true");
  if (l.dead_peer_timeout != d.dead_peer_timeout) {
    w.line(4, "dead_peer_timeout", duration(l.dead_peer_timeout));
  }
  if (l.accept_proxy) w.line(4, "accept_proxy", "true");
  if (!l.trusted_sources.empty()) {
    std::string list;
    for (const std::string& s : l.trusted_sources) list += (list.empty() ? "" : ", ") + quoted(s);
    w.line(4, "trusted_sources", "[" + list + "]");
  }
  if (l.proxy_header_timeout != d.proxy_header_timeout) {
    w.line(4, "proxy_header_timeout", duration(l.proxy_header_timeout));
  }
  if (!l.allowed_cidrs.empty()) {
    std::string list;
    for (const std::string& s : l.allowed_cidrs) list += (list.empty() ? "" : ", ") + quoted(s);
    w.line(4, "allowed_cidrs", "[" + list + "]");
  }
}

void write_monitor(Writer& w, const model::HealthMonitor& m) {
  const bool http = model::uses_http(m.type);
  const bool tls = model::uses_tls(m.type);
  w.line(4, "health_monitor", "");
  w.line(6, "type", std::string(model::to_string(m.type)));
  if (http) {
    w.line(6, "path", scalar(m.path));
    w.line(6, "http_method", scalar(m.http_method));
    if (!m.host.empty()) w.line(6, "host", scalar(m.host));
    w.line(6, "expected_codes", quoted(m.expected_codes.to_string()));
  }
  w.line(6, "interval", duration(m.interval));
  w.line(6, "fast_interval", duration(m.fast_interval));
  w.line(6, "timeout", duration(m.timeout));
  w.line(6, "healthy_threshold", std::to_string(m.healthy_threshold));
  w.line(6, "unhealthy_threshold", std::to_string(m.unhealthy_threshold));
  if (tls) {
    w.line(6, "tls", "");
    w.line(8, "verify", boolean(m.tls.verify));
    if (!m.tls.ca_file.empty()) w.line(8, "ca_file", scalar(m.tls.ca_file));
    if (!m.tls.server_name.empty()) w.line(8, "server_name", scalar(m.tls.server_name));
    if (!m.tls.client_cert.empty()) w.line(8, "client_cert", scalar(m.tls.client_cert));
    if (!m.tls.client_key.empty()) w.line(8, "client_key", scalar(m.tls.client_key));
  }
  if (http && !m.bearer_token_file.empty()) {
    w.line(6, "bearer_token_file", scalar(m.bearer_token_file));
  }
  if (m.send_proxy) w.line(6, "send_proxy", "true");
}

std::string member_text(const model::Member& m) {
  std::string out = "{name: " + scalar(m.name) + ", address: " + scalar(m.address) +
                    ", port: " + std::to_string(m.port);
  if (m.weight != 1) out += ", weight: " + std::to_string(m.weight);
  if (m.backup) out += ", backup: true";
  if (!m.enabled) out += ", enabled: false";
  if (!m.monitor_address.empty()) out += ", monitor_address: " + scalar(m.monitor_address);
  if (m.monitor_port != 0) out += ", monitor_port: " + std::to_string(m.monitor_port);
  if (m.proxy_protocol) {
    out += ", proxy_protocol: " + std::string(model::to_string(*m.proxy_protocol));
  }
  return out + "}";
}

void write_pool(Writer& w, const model::Pool& p) {
  const model::Pool d;
  w.line(2, "name", scalar(p.name), true);
  if (p.algorithm != d.algorithm)
    w.line(4, "algorithm", std::string(model::to_string(p.algorithm)));
  if (p.connect_timeout != d.connect_timeout) {
    w.line(4, "connect_timeout", duration(p.connect_timeout));
  }
  if (p.retries != d.retries) w.line(4, "retries", std::to_string(p.retries));
  if (p.fail_open != d.fail_open) w.line(4, "fail_open", boolean(p.fail_open));
  if (p.hedge_after != d.hedge_after) w.line(4, "hedge_after", duration(p.hedge_after));
  if (p.slow_start != d.slow_start) w.line(4, "slow_start", duration(p.slow_start));
  if (p.first_byte_timeout != d.first_byte_timeout) {
    w.line(4, "first_byte_timeout", duration(p.first_byte_timeout));
  }
  if (p.replay != d.replay) w.line(4, "replay", std::string(model::to_string(p.replay)));
  if (p.proxy_protocol != d.proxy_protocol) {
    w.line(4, "proxy_protocol", std::string(model::to_string(p.proxy_protocol)));
  }
  if (p.shutdown_sessions_on_down != d.shutdown_sessions_on_down) {
    w.line(4, "shutdown_sessions_on_down", boolean(p.shutdown_sessions_on_down));
  }
  if (p.dead_peer_timeout != d.dead_peer_timeout) {
    w.line(4, "dead_peer_timeout", duration(p.dead_peer_timeout));
  }
  if (p.session_persistence != d.session_persistence) {
    const model::SessionPersistence& sp = p.session_persistence;
    w.line(4, "session_persistence", "");
    w.line(6, "type", std::string(model::to_string(sp.type)));
    w.line(6, "timeout", duration(sp.timeout));
    if (!sp.granularity.empty()) w.line(6, "granularity", scalar(sp.granularity));
  }
  if (p.health_monitor) write_monitor(w, *p.health_monitor);
  if (p.members.empty()) {
    w.line(4, "members", "[]");
    return;
  }
  w.line(4, "members", "");
  for (const model::Member& m : p.members) w.raw("      - " + member_text(m) + "\n");
}

}  // namespace

std::string to_yaml(const model::Process& process, const model::Config& config) {
  Writer w;
  w.line(0, "name", scalar(config.name));
  if (process.workers != 0) w.line(0, "workers", std::to_string(process.workers));
  write_admin(w, process.admin);
  if (!config.listeners.empty()) {
    w.line(0, "listeners", "");
    for (const model::Listener& l : config.listeners) write_listener(w, l);
  }
  if (!config.pools.empty()) {
    w.line(0, "pools", "");
    for (const model::Pool& p : config.pools) write_pool(w, p);
  }
  return w.take();
}

std::string convert_report(const LoadResult& result) {
  std::string source = result.config ? result.config->source_file : "";
  if (source.empty() && !result.diagnostics.empty()) source = result.diagnostics[0].where.file;
  std::string out = "# vigil config converted by `vigil convert` from " + source + "\n";
  if (!result.config) {
    out += "# It could not be converted:\n";
    for (const Diagnostic& d : result.diagnostics) out += "#   " + d.to_string() + "\n";
    return out;
  }
  std::vector<const Diagnostic*> warnings;
  for (const Diagnostic& d : result.diagnostics) {
    if (!d.is_error()) warnings.push_back(&d);
  }
  if (warnings.empty()) {
    out += "# Everything was carried over.\n";
  } else {
    out += "# Not carried over, or changed on the way (" + std::to_string(warnings.size()) + "):\n";
    for (const Diagnostic* d : warnings) out += "#   " + d->to_string() + "\n";
  }
  return out + "\n" + to_yaml(*result.process, *result.config);
}

}  // namespace vigil::config
