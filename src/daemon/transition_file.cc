#include "daemon/transition_file.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <cerrno>
#include <filesystem>

#include "base/file.h"
#include "base/log.h"

namespace vigil::daemon {
namespace {

namespace json = boost::json;

constexpr int kFormat = 1;
// A ring of 100 lines of a few hundred bytes each is tens of KB; a file far larger is not ours.
constexpr size_t kMaxBytes = size_t{4} << 20;

int64_t ns_of(model::WallTime t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

model::WallTime wall_of(int64_t ns) {
  return model::WallTime(
      std::chrono::duration_cast<model::WallTime::duration>(std::chrono::nanoseconds(ns)));
}

Result<std::string> string_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || !v->is_string()) return fail(fmt::format("\"{}\" is not a string", key));
  return std::string(v->as_string());
}

Result<model::Transition> transition_of(const json::value& item) {
  if (!item.is_object()) return fail("an entry is not an object");
  const json::object& o = item.as_object();
  const json::value* at = o.if_contains("at_ns");
  if (at == nullptr || !at->is_int64() || at->as_int64() <= 0) {
    return fail("\"at_ns\" is not a time");
  }
  model::Transition t{.at = wall_of(at->as_int64())};
  for (auto [key, field] : {std::pair{"pool_id", &t.pool_id}, std::pair{"pool", &t.pool},
                            std::pair{"member", &t.member}, std::pair{"message", &t.message}}) {
    auto text = string_at(o, key);
    if (!text) return std::unexpected(text.error());
    *field = std::move(*text);
  }
  return t;
}

}  // namespace

std::string transitions_path(const std::string& state_file) {
  return state_file.empty() ? std::string{} : state_file + ".transitions";
}

std::string encode_transitions(const std::deque<model::Transition>& ring) {
  json::array out;
  for (const model::Transition& t : ring) {
    out.push_back(json::object{{"at_ns", ns_of(t.at)},
                               {"pool_id", t.pool_id},
                               {"pool", t.pool},
                               {"member", t.member},
                               {"message", t.message}});
  }
  return json::serialize(json::object{{"format", kFormat}, {"transitions", std::move(out)}}) + "\n";
}

Result<std::vector<model::Transition>> decode_transitions(std::string_view text, size_t max) {
  boost::system::error_code ec;
  const json::value v = json::parse(text, ec);
  if (ec) return fail("not JSON: " + ec.message());
  const json::object* top = v.if_object();
  const json::value* format = top ? top->if_contains("format") : nullptr;
  if (format == nullptr || !format->is_int64() || format->as_int64() != kFormat) {
    return fail(fmt::format("not a transitions file of format {}", kFormat));
  }
  const json::value* list = top->if_contains("transitions");
  if (list == nullptr || !list->is_array()) return fail("\"transitions\" is not a list");
  const json::array& items = list->as_array();
  std::vector<model::Transition> out;
  const size_t skip = items.size() > max ? items.size() - max : 0;
  for (size_t i = skip; i < items.size(); ++i) {
    auto t = transition_of(items[i]);
    if (!t) return fail(fmt::format("entry {}: {}", i, t.error().message));
    out.push_back(std::move(*t));
  }
  return out;
}

std::vector<model::Transition> load_transitions(const std::string& path, size_t max) {
  if (path.empty()) return {};
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec) return {};  // the first start
  auto text = read_file(path, kMaxBytes);
  auto decoded = text ? decode_transitions(*text, max) : std::unexpected(text.error());
  if (!decoded) {
    log::warn("recent transitions: {} cannot be read ({}); the page starts without them", path,
              decoded.error().message);
    return {};
  }
  return std::move(*decoded);
}

TransitionFile::TransitionFile(std::string path, const Clock& clock, TimerSource& timers, Read read)
    : path_(std::move(path)),
      clock_(clock),
      read_(std::move(read)),
      timer_(timers.create_timer([this] { write(); })) {}

void TransitionFile::changed() {
  dirty_ = true;
  if (held_ || timer_->armed()) return;
  timer_->arm(std::max(clock_.now(), last_write_ + kWriteEvery));
}

void TransitionFile::flush() {
  timer_->cancel();
  write();
}

void TransitionFile::hold() {
  held_ = true;
  timer_->cancel();
}

void TransitionFile::release() {
  held_ = false;
  if (dirty_) changed();
}

void TransitionFile::write() {
  if (held_ || !dirty_ || path_.empty()) return;
  dirty_ = false;
  last_write_ = clock_.now();
  if (auto written = write_file_atomic(path_, encode_transitions(read_())); !written) {
    // Tried again with the next change, not in a loop: a full disk is not the page's to fix.
    log::warn("recent transitions: {}", written.error().message);
  }
}

}  // namespace vigil::daemon
