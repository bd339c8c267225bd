#include "health/http_check.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace vigil::health {
namespace {

constexpr size_t kMaxTokenFile = 64 * 1024;
constexpr size_t kMaxFailedChecks = 64;

std::string_view trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

bool has_control(std::string_view s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
    if (!ok || c == '\0') return false;
  }
  return true;
}

// Cuts `s` to at most `max` bytes, backing off so a UTF-8 sequence is not split.
std::string cut(std::string s, size_t max) {
  if (s.size() <= max) return s;
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  s.resize(n);
  return s;
}

template <typename F>
void for_each_line(std::string_view body, F&& f) {
  while (!body.empty()) {
    const size_t nl = body.find('\n');
    if (!f(trim(body.substr(0, nl)))) return;
    if (nl == std::string_view::npos) return;
    body.remove_prefix(nl + 1);
  }
}

}  // namespace

std::string request_target(std::string_view path) {
  if (path.empty()) return "/";
  if (path == "/readyz" || path == "/livez" || path == "/healthz") {
    return std::string(path) + "?verbose";
  }
  return std::string(path);
}

std::string host_header(const model::HealthMonitor& monitor, std::string_view address,
                        uint16_t port, bool tls) {
  if (!monitor.host.empty()) return monitor.host;
  const bool ipv6 = address.find(':') != std::string_view::npos && !address.starts_with('[');
  std::string host = ipv6 ? fmt::format("[{}]", address) : std::string(address);
  if (port != (tls ? 443 : 80)) host += fmt::format(":{}", port);
  return host;
}

Result<std::string> build_request(std::string_view method, std::string_view target,
                                  std::string_view host, std::string_view bearer_token,
                                  bool keep_alive) {
  if (!is_token(method)) return fail(fmt::format("invalid HTTP method \"{}\"", method));
  if (target.empty() || has_control(target) || target.find(' ') != std::string_view::npos) {
    return fail(fmt::format("invalid HTTP path \"{}\"", target));
  }
  if (has_control(host)) return fail("invalid Host header: control character");
  if (has_control(bearer_token)) return fail("invalid bearer token: control character");
  std::string out =
      fmt::format("{} {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: vigil-health\r\nAccept: */*\r\n{}",
                  method, target, host, keep_alive ? "" : "Connection: close\r\n");
  if (!bearer_token.empty()) out += fmt::format("Authorization: Bearer {}\r\n", bearer_token);
  out += "\r\n";
  return out;
}

Result<std::string> read_bearer_token(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(fmt::format("bearer_token_file {}: {}", file, std::strerror(errno)));
  std::string data(kMaxTokenFile + 1, '\0');
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  data.resize(static_cast<size_t>(in.gcount()));
  if (in.bad()) return fail(fmt::format("bearer_token_file {}: read error", file));
  if (data.size() > kMaxTokenFile) return fail(fmt::format("bearer_token_file {}: too big", file));
  const std::string_view token = trim(data);
  if (token.empty()) return fail(fmt::format("bearer_token_file {} is empty", file));
  return std::string(token);
}

model::CheckResult http_result(int code, std::string_view body,
                               const model::ExpectedCodes& expected) {
  model::CheckResult r;
  r.http_code = code;
  if (expected.contains(code)) {
    r.outcome = model::Outcome::kOk;
    return r;
  }
  r.outcome = model::Outcome::kBadStatus;
  r.detail = first_line(body);
  r.failed_checks = failed_checks(body);
  return r;
}

std::vector<std::string> failed_checks(std::string_view body) {
  std::vector<std::string> out;
  for_each_line(body, [&](std::string_view line) {
    if (line.starts_with("[-]")) out.push_back(first_line(line));
    return out.size() < kMaxFailedChecks;
  });
  return out;
}

std::string first_line(std::string_view body, size_t max) {
  std::string out;
  for_each_line(body, [&](std::string_view line) {
    if (line.empty()) return true;
    out.assign(line);
    return false;
  });
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return cut(std::move(out), max);
}

}  // namespace vigil::health
