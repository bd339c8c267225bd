#include "etcd/wire.h"

#include <fmt/format.h>

#include <boost/beast/core/detail/base64.hpp>
#include <boost/json.hpp>
#include <charconv>
#include <optional>

namespace vigil::etcd {

namespace json = boost::json;
namespace b64 = boost::beast::detail::base64;

std::string base64_encode(std::string_view bytes) {
  std::string out(b64::encoded_size(bytes.size()), '\0');
  out.resize(b64::encode(out.data(), bytes.data(), bytes.size()));
  return out;
}

Result<std::string> base64_decode(std::string_view text) {
  // Beast's decoder stops at the first character outside the alphabet; the gateway writes
  // padded standard base64, so anything but up to two '=' after that point is garbage.
  if (text.size() % 4 != 0) return fail("bad base64 (length not a multiple of 4)");
  std::string out(b64::decoded_size(text.size()), '\0');
  const auto [written, read] = b64::decode(out.data(), text.data(), text.size());
  const std::string_view rest = text.substr(read);
  if (rest.size() > 2 || rest.find_first_not_of('=') != std::string_view::npos) {
    return fail("bad base64");
  }
  out.resize(written);
  return out;
}

std::string prefix_range_end(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xff) end.pop_back();
  if (end.empty()) return std::string(1, '\0');
  end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
  return end;
}

std::string range_request(std::string_view prefix) {
  return json::serialize(json::object{{"key", base64_encode(prefix)},
                                      {"range_end", base64_encode(prefix_range_end(prefix))}});
}

std::string txn_request(const std::vector<Compare>& compares, const std::vector<Op>& success) {
  json::array compare;
  for (const Compare& c : compares) {
    compare.push_back(json::object{{"target", "MOD"},
                                   {"result", "EQUAL"},
                                   {"key", base64_encode(c.key)},
                                   {"mod_revision", std::to_string(c.mod_revision)}});
  }
  json::array ops;
  for (const Op& op : success) {
    if (op.kind == Op::Kind::kPut) {
      ops.push_back(
          json::object{{"request_put", json::object{{"key", base64_encode(op.key)},
                                                    {"value", base64_encode(op.value)}}}});
    } else if (op.kind == Op::Kind::kDelete) {
      ops.push_back(
          json::object{{"request_delete_range", json::object{{"key", base64_encode(op.key)}}}});
    } else {
      ops.push_back(
          json::object{{"request_delete_range",
                        json::object{{"key", base64_encode(op.key)},
                                     {"range_end", base64_encode(prefix_range_end(op.key))}}}});
    }
  }
  return json::serialize(
      json::object{{"compare", std::move(compare)}, {"success", std::move(ops)}});
}

std::string watch_request(std::string_view prefix, int64_t start_revision) {
  return json::serialize(json::object{
      {"create_request", json::object{{"key", base64_encode(prefix)},
                                      {"range_end", base64_encode(prefix_range_end(prefix))},
                                      {"start_revision", std::to_string(start_revision)},
                                      {"fragment", true}}}});
}

namespace {

Result<json::object> parse_object(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) return fail("not JSON: " + ec.message());
  if (!v.is_object()) return fail("not a JSON object");
  return std::move(v.as_object());
}

// An int64 field: a JSON string of digits as the gateway writes them (a plain number is taken
// too); absent is 0, as protobuf's JSON mapping leaves out zero values. Every one the client reads
// is a revision or a version, never negative: a negative one would make a compaction at -5 look
// like no compaction.
Result<int64_t> int64_field(const json::object& o, std::string_view name) {
  const json::value* v = o.if_contains(name);
  if (v == nullptr) return 0;
  std::optional<int64_t> n;
  if (v->is_int64()) n = v->as_int64();
  if (v->is_uint64() && v->as_uint64() <= INT64_MAX) n = static_cast<int64_t>(v->as_uint64());
  if (v->is_string()) {
    const json::string& s = v->as_string();
    int64_t parsed = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), parsed);
    if (ec == std::errc() && end == s.data() + s.size() && !s.empty()) n = parsed;
  }
  if (!n) return fail(fmt::format("{} is not an int64: {}", name, json::serialize(*v)));
  if (*n < 0) return fail(fmt::format("{} is negative: {}", name, *n));
  return *n;
}

Result<std::string> bytes_field(const json::object& o, std::string_view name) {
  const json::value* v = o.if_contains(name);
  if (v == nullptr) return std::string();
  if (!v->is_string()) return fail(fmt::format("{} is not a string", name));
  auto bytes = base64_decode(v->as_string());
  if (!bytes) return fail(fmt::format("{}: {}", name, bytes.error().message));
  return bytes;
}

Result<bool> bool_field(const json::object& o, std::string_view name) {
  const json::value* v = o.if_contains(name);
  if (v == nullptr) return false;
  if (!v->is_bool()) return fail(fmt::format("{} is not a boolean", name));
  return v->as_bool();
}

Result<int64_t> header_revision(const json::object& o) {
  const json::value* h = o.if_contains("header");
  if (h == nullptr || !h->is_object()) return fail("no header");
  return int64_field(h->as_object(), "revision");
}

Result<KeyValue> parse_kv(const json::value& v) {
  if (!v.is_object()) return fail("a kv is not an object");
  const json::object& o = v.as_object();
  KeyValue kv;
  auto key = bytes_field(o, "key");
  auto value = bytes_field(o, "value");
  auto created = int64_field(o, "create_revision");
  auto modified = int64_field(o, "mod_revision");
  auto version = int64_field(o, "version");
  for (const auto* r : {&key, &value}) {
    if (!*r) return fail(r->error().message);
  }
  for (const auto* r : {&created, &modified, &version}) {
    if (!*r) return fail(r->error().message);
  }
  return KeyValue{std::move(*key), std::move(*value), *created, *modified, *version};
}

// A JSON array field, absent as empty (protobuf's JSON mapping leaves out empty lists).
Result<const json::array*> array_field(const json::object& o, std::string_view name) {
  static const json::array kEmpty;
  const json::value* v = o.if_contains(name);
  if (v == nullptr) return &kEmpty;
  if (!v->is_array()) return fail(fmt::format("{} is not an array", name));
  return &v->as_array();
}

Result<Event> parse_event(const json::value& v) {
  if (!v.is_object()) return fail("an event is not an object");
  const json::object& o = v.as_object();
  Event event{Event::Kind::kPut, {}};
  if (const json::value* type = o.if_contains("type")) {
    if (*type == "DELETE" || *type == 1) {
      event.kind = Event::Kind::kDelete;
    } else if (!(*type == "PUT" || *type == 0)) {
      return fail("an event's type is neither PUT nor DELETE: " + json::serialize(*type));
    }
  }
  const json::value* kv = o.if_contains("kv");
  if (kv == nullptr) return fail("an event without kv");
  auto parsed = parse_kv(*kv);
  if (!parsed) return fail(parsed.error().message);
  event.kv = std::move(*parsed);
  return event;
}

}  // namespace

Result<RangeResult> parse_range(std::string_view body) {
  auto o = parse_object(body);
  if (!o) return fail(o.error().message);
  RangeResult result;
  auto revision = header_revision(*o);
  if (!revision) return fail(revision.error().message);
  result.revision = *revision;
  auto kvs = array_field(*o, "kvs");
  if (!kvs) return fail(kvs.error().message);
  for (const json::value& v : **kvs) {
    auto kv = parse_kv(v);
    if (!kv) return fail(kv.error().message);
    result.kvs.push_back(std::move(*kv));
  }
  return result;
}

Result<TxnResult> parse_txn(std::string_view body) {
  auto o = parse_object(body);
  if (!o) return fail(o.error().message);
  auto revision = header_revision(*o);
  if (!revision) return fail(revision.error().message);
  auto succeeded = bool_field(*o, "succeeded");
  if (!succeeded) return fail(succeeded.error().message);
  return TxnResult{*succeeded, *revision};
}

std::string error_message(std::string_view body) {
  auto o = parse_object(body);
  if (o) {
    for (const char* name : {"message", "error"}) {
      const json::value* v = o->if_contains(name);
      if (v != nullptr && v->is_string() && !v->as_string().empty()) {
        return std::string(v->as_string());
      }
      if (v != nullptr && v->is_object()) {  // the watch stream's {"error": {...}}
        return error_message(json::serialize(*v));
      }
    }
  }
  constexpr size_t kShown = 200;
  std::string shown(body.substr(0, kShown));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return body.size() > kShown ? shown + "..." : shown;
}

Result<WatchMessage> parse_watch_message(std::string_view text) {
  auto o = parse_object(text);
  if (!o) return fail(o.error().message);
  WatchMessage message;
  if (o->contains("error")) {
    message.kind = WatchMessage::Kind::kEnd;
    message.end.error = "etcd ended the watch: " + error_message(text);
    return message;
  }
  const json::value* r = o->if_contains("result");
  if (r == nullptr || !r->is_object()) return fail("a watch message without result");
  const json::object& result = r->as_object();
  auto revision = header_revision(result);
  auto created = bool_field(result, "created");
  auto canceled = bool_field(result, "canceled");
  auto compacted = int64_field(result, "compact_revision");
  auto events = array_field(result, "events");
  auto fragment = bool_field(result, "fragment");
  if (!revision) return fail(revision.error().message);
  if (!created) return fail(created.error().message);
  if (!canceled) return fail(canceled.error().message);
  if (!compacted) return fail(compacted.error().message);
  if (!events) return fail(events.error().message);
  if (!fragment) return fail(fragment.error().message);
  if (*compacted > 0 || *canceled) {
    message.kind = WatchMessage::Kind::kEnd;
    message.end.compact_revision = *compacted;
    if (*compacted == 0) {
      const json::value* reason = result.if_contains("cancel_reason");
      message.end.error = "etcd canceled the watch";
      if (reason != nullptr && reason->is_string() && !reason->as_string().empty()) {
        message.end.error += ": " + std::string(reason->as_string());
      }
    }
    return message;
  }
  message.kind = *created ? WatchMessage::Kind::kCreated : WatchMessage::Kind::kEvents;
  message.batch.revision = *revision;
  message.fragment = *fragment;
  for (const json::value& v : **events) {
    auto event = parse_event(v);
    if (!event) return fail(event.error().message);
    message.batch.events.push_back(std::move(*event));
  }
  return message;
}

bool LineSplitter::feed(std::string_view bytes, std::vector<std::string>& lines) {
  while (!bytes.empty()) {
    const size_t newline = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, newline);
    if (partial_.size() + piece.size() > limit_) return false;
    partial_.append(piece);
    if (newline == std::string_view::npos) break;
    bytes.remove_prefix(newline + 1);
    if (partial_.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(partial_);
    partial_.clear();
  }
  return true;
}

}  // namespace vigil::etcd
