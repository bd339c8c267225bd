#include "admin/override_json.h"

#include <fmt/format.h>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <ctime>

#include "admin/text.h"
#include "base/utc_time.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

constexpr size_t kMaxBy = 64;
constexpr auto kStateNames = model::name_list<model::AdminState>(", ", " or ");

std::optional<model::WallTime> parse_utc(std::string_view text) {
  const std::optional<int64_t> seconds = parse_utc_seconds(text);
  if (!seconds) return std::nullopt;
  return std::chrono::system_clock::from_time_t(static_cast<std::time_t>(*seconds));
}

Result<model::AdminState> state_of(const json::value& v) {
  const auto* s = v.if_string();
  auto state = s ? model::parse<model::AdminState>(std::string_view(*s)) : std::nullopt;
  if (!state) {
    return fail(fmt::format("state must be {} (got {})", kStateNames.view(), json::serialize(v)));
  }
  return *state;
}

Result<int> weight_of(const json::value& v) {
  if (!v.is_int64() || v.as_int64() < 0 || v.as_int64() > model::kMaxMemberWeight) {
    return fail(fmt::format("weight must be a whole number from 0 to {} (got {})",
                            model::kMaxMemberWeight, json::serialize(v)));
  }
  return static_cast<int>(v.as_int64());
}

Result<std::string> by_of(const json::value& v) {
  const auto* s = v.if_string();
  if (s == nullptr || s->empty() || s->size() > kMaxBy) {
    return fail(fmt::format("by must be a string of 1 to {} characters", kMaxBy));
  }
  for (char c : *s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return fail("by must be printable");
  }
  return std::string(*s);
}

}  // namespace

json::value override_json(const std::optional<model::AdminOverride>& o) {
  if (!o) return nullptr;
  return json::object{{"state", model::to_string(o->state)},
                      {"weight", o->weight ? json::value(*o->weight) : json::value()},
                      {"set_at", is_set(o->set_at) ? json::value(iso8601_utc(o->set_at)) : nullptr},
                      {"by", o->by}};
}

Result<model::AdminOverride> override_from_json(const json::value& v) {
  if (!v.is_object()) return fail("expected an object {\"state\", \"weight\", \"set_at\", \"by\"}");
  const json::object& o = v.as_object();
  model::AdminOverride out;
  if (const auto* s = o.if_contains("state")) {
    auto state = state_of(*s);
    if (!state) return std::unexpected(state.error());
    out.state = *state;
  }
  if (const auto* w = o.if_contains("weight"); w && !w->is_null()) {
    auto weight = weight_of(*w);
    if (!weight) return std::unexpected(weight.error());
    out.weight = *weight;
  }
  if (const auto* t = o.if_contains("set_at"); t && !t->is_null()) {
    auto at = t->is_string() ? parse_utc(std::string_view(t->as_string())) : std::nullopt;
    if (!at) return fail("set_at must be a time like \"2024-05-01T12:00:00Z\"");
    out.set_at = *at;
  }
  if (const auto* b = o.if_contains("by")) {
    if (!b->is_string()) return fail("by must be a string");
    out.by = std::string(b->as_string());
  }
  return out;
}

Result<OverrideRequest> parse_override_request(std::string_view body) {
  boost::system::error_code ec;
  const json::value v = json::parse(body, ec);
  if (ec) return fail(fmt::format("the body is not valid JSON ({})", ec.message()));
  if (!v.is_object()) {
    return fail("the body must be a JSON object such as {\"state\": \"drain\"} or {\"weight\": 0}");
  }
  OverrideRequest out;
  for (const auto& [key, value] : v.as_object()) {
    if (key == "state") {
      auto state = state_of(value);
      if (!state) return std::unexpected(state.error());
      out.state = *state;
    } else if (key == "weight") {
      auto weight = weight_of(value);
      if (!weight) return std::unexpected(weight.error());
      out.weight = *weight;
    } else if (key == "by") {
      auto by = by_of(value);
      if (!by) return std::unexpected(by.error());
      out.by = *by;
    } else {
      return fail(fmt::format("unknown field \"{}\": the body takes state, weight and by",
                              std::string_view(key)));
    }
  }
  if (!out.state && !out.weight) {
    return fail(fmt::format("give state ({}) or weight (0 to {}) or both", kStateNames.view(),
                            model::kMaxMemberWeight));
  }
  return out;
}

std::string credited_by(std::string_view claimed, std::string_view peer_user) {
  if (peer_user.empty()) return std::string(claimed);
  std::string_view label = claimed;
  std::string_view user;
  if (label.ends_with(')')) {
    if (const size_t open = label.rfind(" ("); open != std::string_view::npos) {
      user = label.substr(open + 2, label.size() - open - 3);
      label = label.substr(0, open);
    }
  }
  // root may claim anyone, and the packaged token file has most CLI calls made through sudo: the
  // kernel's root is what counts, the claim (SUDO_USER) says on whose behalf.
  std::string who(peer_user);
  if (peer_user == "root" && !user.empty() && user != "root") who += fmt::format(", for {}", user);
  if (label.empty()) return who;
  return fmt::format("{} ({})", label, who);
}

}  // namespace vigil::admin
