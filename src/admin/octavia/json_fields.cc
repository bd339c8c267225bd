#include "admin/octavia/json_fields.h"

#include <fmt/format.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <charconv>
#include <cmath>

namespace vigil::admin {

namespace json = boost::json;

std::string wsme_argument(std::string_view wrapper) {
  // The names of the body arguments of Octavia's controllers' post() and put().
  if (wrapper == "loadbalancer") return "load_balancer";
  if (wrapper == "healthmonitor") return "health_monitor_";
  return std::string(wrapper) + "_";
}

ApiResult<json::object> request_object(std::string_view body, std::string_view wrapper) {
  boost::system::error_code ec;
  json::value doc = json::parse(body, ec);
  if (ec) return api_error(400, "Request is not in valid JSON format");
  const std::string shape =
      fmt::format("the request body must be a JSON object {{\"{}\": {{...}}}}", wrapper);
  if (!doc.is_object()) return api_error(400, "Invalid input: " + shape);
  json::object& top = doc.as_object();
  std::vector<std::string> unknown;
  for (const auto& kv : top) {
    if (kv.key() != wrapper) unknown.emplace_back(kv.key());
  }
  if (!unknown.empty()) return api_error(400, unknown_attributes(wsme_argument(wrapper), unknown));
  const json::value* inner = top.if_contains(wrapper);
  if (inner == nullptr || !inner->is_object()) return api_error(400, "Invalid input: " + shape);
  return inner->as_object();
}

std::string unknown_attributes(std::string_view argument, const std::vector<std::string>& keys) {
  std::string list;
  for (const std::string& k : keys) list += (list.empty() ? "" : ", ") + k;
  return fmt::format("Unknown attribute{} for argument {}: {}", keys.size() > 1 ? "s" : "",
                     argument, list);
}

FieldReader::FieldReader(const json::object& object, std::string argument)
    : object_(object), argument_(std::move(argument)) {}

const json::value* FieldReader::get(std::string_view key) {
  known_.emplace(key);
  if (error_) return nullptr;
  return object_.if_contains(key);
}

const json::object* FieldReader::object(std::string_view key) {
  const json::value* v = get(key);
  if (v == nullptr || v->is_null()) return nullptr;
  if (!v->is_object()) {
    invalid(key, "Value should be an object");
    return nullptr;
  }
  return &v->as_object();
}

std::string FieldReader::shown(std::string_view key) const {
  const json::value* v = object_.if_contains(key);
  if (v == nullptr || v->is_null()) return "None";
  if (v->is_string()) return std::string(v->as_string());
  return json::serialize(*v);
}

bool FieldReader::has(std::string_view key) {
  known_.emplace(key);
  return object_.contains(key);
}

bool FieldReader::is_null(std::string_view key) {
  known_.emplace(key);
  const json::value* v = object_.if_contains(key);
  return v != nullptr && v->is_null();
}

void FieldReader::fail(int status, std::string message) {
  if (!error_) error_ = ApiError{status, std::move(message)};
}

void FieldReader::invalid(std::string_view key, std::string_view reason) {
  fail(400, fmt::format("Invalid input for field/attribute {}. Value: '{}'. {}", key, shown(key),
                        reason));
}

std::optional<std::string> FieldReader::string(std::string_view key, size_t max_length) {
  const json::value* v = get(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_string()) {
    invalid(key, "Value should be string");
    return std::nullopt;
  }
  std::string s(v->as_string());
  if (s.size() > max_length) {
    invalid(key,
            fmt::format("Value should have a maximum character requirement of {}", max_length));
    return std::nullopt;
  }
  return s;
}

std::optional<int64_t> FieldReader::integer(std::string_view key, int64_t min, int64_t max) {
  const json::value* v = get(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  int64_t n = 0;
  if (v->is_int64()) {
    n = v->as_int64();
  } else if (v->is_uint64() && v->as_uint64() <= static_cast<uint64_t>(INT64_MAX)) {
    n = static_cast<int64_t>(v->as_uint64());
  } else if (v->is_uint64()) {
    n = INT64_MAX;  // out of every range below
  } else if (v->is_string() && !v->as_string().empty()) {
    // WSME converts "10" as Octavia's clients send it (the CLI's --connection-limit does).
    const std::string_view text = v->as_string();
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec == std::errc::result_out_of_range) {
      n = text.starts_with('-') ? INT64_MIN : INT64_MAX;
    } else if (ec != std::errc() || end != text.data() + text.size()) {
      invalid(key, "Expected an integer");
      return std::nullopt;
    }
  } else {
    invalid(key, "Expected an integer");
    return std::nullopt;
  }
  if (n < min) {
    invalid(key, fmt::format("Value should be greater or equal to {}", min));
    return std::nullopt;
  }
  if (n > max) {
    invalid(key, fmt::format("Value should be lower or equal to {}", max));
    return std::nullopt;
  }
  return n;
}

std::optional<bool> FieldReader::boolean(std::string_view key) {
  const json::value* v = get(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_bool()) {
    invalid(key, "Expected true or false");
    return std::nullopt;
  }
  return v->as_bool();
}

std::optional<double> FieldReader::number(std::string_view key) {
  const json::value* v = get(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (v->is_double() && std::isfinite(v->as_double())) return v->as_double();
  if (v->is_int64()) return static_cast<double>(v->as_int64());
  if (v->is_uint64()) return static_cast<double>(v->as_uint64());
  invalid(key, "Expected a number");
  return std::nullopt;
}

std::optional<std::vector<std::string>> FieldReader::strings(std::string_view key) {
  const json::value* v = get(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_array()) {
    invalid(key, "Expected a list of strings");
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (const json::value& item : v->as_array()) {
    if (!item.is_string() || item.as_string().size() > 255) {
      invalid(key, "Expected a list of strings of at most 255 characters");
      return std::nullopt;
    }
    out.emplace_back(item.as_string());
  }
  return out;
}

std::optional<std::string> FieldReader::one_of(std::string_view key,
                                               std::initializer_list<std::string_view> allowed) {
  return one_of(key, std::span<const std::string_view>(allowed.begin(), allowed.size()));
}

std::optional<std::string> FieldReader::one_of(std::string_view key,
                                               std::span<const std::string_view> allowed) {
  auto s = string(key);
  if (!s) return std::nullopt;
  for (std::string_view a : allowed) {
    if (*s == a) return s;
  }
  std::string list;
  for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  invalid(key, "Value should be one of: " + list);
  return std::nullopt;
}

void FieldReader::require(std::string_view key) {
  const json::value* v = get(key);
  if (error_) return;
  if (v == nullptr || v->is_null()) invalid(key, "Mandatory field missing.");
}

void FieldReader::unsupported(std::string_view key, std::string_view why) {
  const json::value* v = get(key);
  if (v == nullptr || v->is_null()) return;
  const bool empty =
      (v->is_bool() && !v->as_bool()) || (v->is_string() && v->as_string().empty()) ||
      (v->is_array() && v->as_array().empty()) || (v->is_object() && v->as_object().empty());
  if (!empty) fail(400, fmt::format("{} is not supported by vigil: {}", key, why));
}

void FieldReader::ignore(std::string_view key) { known_.emplace(key); }

std::optional<ApiError> FieldReader::finish() {
  if (error_) return error_;
  std::vector<std::string> unknown;
  for (const auto& kv : object_) {
    if (!known_.contains(std::string_view(kv.key()))) unknown.emplace_back(kv.key());
  }
  if (!unknown.empty()) return ApiError{400, unknown_attributes(argument_, unknown)};
  return std::nullopt;
}

}  // namespace vigil::admin
