#include "cli/status_doc.h"

#include <fmt/format.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "base/utc_time.h"

namespace vigil::cli {

namespace json = boost::json;

Result<json::object> parse_status(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(json::string_view(text.data(), text.size()), ec);
  if (ec) return fail("vigil answered something that is not JSON: " + ec.message());
  if (!v.is_object() || !v.as_object().contains("pools")) {
    return fail("vigil's answer to /v1/status has no \"pools\": is this a vigil admin API?");
  }
  return std::move(v.as_object());
}

std::vector<const json::object*> load_balancer_docs(const json::object& doc) {
  std::vector<const json::object*> out;
  if (const json::value* all = doc.if_contains("loadbalancers"); all && all->is_array()) {
    for (const json::value& lb : all->as_array()) {
      if (lb.is_object()) out.push_back(&lb.as_object());
    }
  }
  if (out.empty()) out.push_back(&doc);
  return out;
}

std::string str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return "";
  if (v->is_string()) return std::string(v->as_string());
  if (v->is_bool()) return v->as_bool() ? "true" : "false";
  return json::serialize(*v);
}

int64_t num(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) return 0;
  if (v->is_int64()) return v->as_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->as_uint64());
  if (v->is_double()) return static_cast<int64_t>(v->as_double());
  return 0;
}

bool flag(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_bool() && v->as_bool();
}

const json::array& list(const json::object& o, std::string_view key) {
  static const json::array kEmpty;
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_array() ? v->as_array() : kEmpty;
}

const json::object* child(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->as_object() : nullptr;
}

std::string host_port(std::string_view host, int64_t port) {
  if (host.find(':') != std::string_view::npos) return fmt::format("[{}]:{}", host, port);
  return fmt::format("{}:{}", host, port);
}

namespace {

void pretty(const json::value& v, int depth, std::string& out) {
  const std::string pad(static_cast<size_t>(depth + 1) * 2, ' ');
  const std::string close_pad(static_cast<size_t>(depth) * 2, ' ');
  if (v.is_object() && !v.as_object().empty()) {
    out += "{\n";
    bool first = true;
    for (const auto& kv : v.as_object()) {
      if (!first) out += ",\n";
      first = false;
      out += pad + json::serialize(json::value(kv.key())) + ": ";
      pretty(kv.value(), depth + 1, out);
    }
    out += "\n" + close_pad + "}";
  } else if (v.is_array() && !v.as_array().empty()) {
    out += "[\n";
    bool first = true;
    for (const json::value& item : v.as_array()) {
      if (!first) out += ",\n";
      first = false;
      out += pad;
      pretty(item, depth + 1, out);
    }
    out += "\n" + close_pad + "]";
  } else {
    out += json::serialize(v);
  }
}

}  // namespace

std::string pretty_json(const json::value& v) {
  std::string out;
  pretty(v, 0, out);
  return out + "\n";
}

std::optional<int64_t> unix_seconds(std::string_view text) { return parse_utc_seconds(text); }

}  // namespace vigil::cli
