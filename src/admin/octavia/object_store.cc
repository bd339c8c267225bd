#include "admin/octavia/object_store.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>

#include "admin/octavia/store_json.h"
#include "base/file.h"
#include "base/log.h"

namespace vigil::admin {

void for_each_pair(const LoadBalancers& before, const LoadBalancers& after,
                   const std::function<void(std::optional<size_t>, size_t)>& visit) {
  // A write adds a load balancer at the end, removes one, or changes one in place: both lists
  // keep their order, so one walk pairs each with the one of the same id before.
  size_t from = 0;
  for (size_t i = 0; i < after.size(); ++i) {
    size_t was = from;
    while (was < before.size() && before[was].id != after[i].id) ++was;
    if (was < before.size()) {
      visit(was, i);
      from = was + 1;
    } else {
      visit(std::nullopt, i);
    }
  }
}

Result<ObjectStore> ObjectStore::load(const std::string& state_file) {
  ObjectStore store;
  store.state_file_ = state_file;
  if (state_file.empty()) {
    log::warn(
        "admin.state_file is not set: objects created through the Octavia API live in "
        "memory only and will not survive a restart");
    return store;
  }
  // A process killed between creating its temporary and renaming it left the temporary behind.
  if (const size_t stale = remove_stale_temporaries(state_file); stale > 0) {
    log::info("{}: removed {} temporary files left by processes that died while writing",
              state_file, stale);
  }
  struct stat st {};
  if (::stat(state_file.c_str(), &st) != 0 && errno == ENOENT) return store;
  auto text = read_file(state_file);
  if (!text) {
    return fail(
        fmt::format("cannot load the objects created through the API: {}", text.error().message));
  }
  auto state = state_from_json(*text);
  if (!state) {
    return fail(
        fmt::format("cannot load the objects created through the API from {}: {}. Fix "
                    "the file or move it away (vigil then starts without those objects)",
                    state_file, state.error().message));
  }
  store.state_ = std::move(*state);
  return store;
}

Result<void> ObjectStore::commit(ApiState next) {
  Text text = text_of(next.loadbalancers, state_.member_overrides);
  return save(&next.loadbalancers, state_.member_overrides, std::move(text));
}

ObjectStore::Text ObjectStore::text_of(const LoadBalancers& lbs,
                                       const ApiState::Overrides& overrides) {
  if (state_file_.empty()) return {};
  const LoadBalancers& old = state_.loadbalancers;
  const bool cached = lb_json_.size() == old.size();
  Text out;
  out.lb_json.reserve(lbs.size());
  for_each_pair(old, lbs, [&](std::optional<size_t> was, size_t i) {
    if (cached && was && lbs.shares(i, old, *was)) {
      out.lb_json.push_back(std::move(lb_json_[*was]));  // save() puts them back, or drops them
    } else {
      out.lb_json.push_back(lb_to_json(lbs[i]));
    }
  });
  out.file = state_to_json(out.lb_json, overrides);
  return out;
}

Result<void> ObjectStore::save(LoadBalancers* lbs, ApiState::Overrides overrides, Text text) {
  if (!state_file_.empty()) {
    if (auto written = write_file_atomic(state_file_, text.file); !written) {
      lb_json_.clear();  // text_of() took some: the next write makes them all anew
      return fail(fmt::format("cannot save the API objects: {}", written.error().message));
    }
  }
  if (lbs != nullptr) state_.loadbalancers = std::move(*lbs);
  state_.member_overrides = std::move(overrides);
  lb_json_ = std::move(text.lb_json);
  return {};
}

Result<void> ObjectStore::set_override(std::string_view member_id,
                                       std::optional<model::AdminOverride> o) {
  ApiState::Overrides next = state_.member_overrides;
  if (o) {
    next.insert_or_assign(std::string(member_id), std::move(*o));
  } else if (auto it = next.find(member_id); it != next.end()) {
    next.erase(it);
  } else {
    return {};  // nothing to save
  }
  Text text = text_of(state_.loadbalancers, next);
  return save(nullptr, std::move(next), std::move(text));
}

Result<void> ObjectStore::drop_overrides(const std::vector<std::string>& member_ids) {
  ApiState::Overrides next = state_.member_overrides;
  for (const std::string& id : member_ids) next.erase(id);
  Text text = text_of(state_.loadbalancers, next);
  return save(nullptr, std::move(next), std::move(text));
}

ApiChange ObjectStore::change_between(const ApiState& from, const ApiState& to) {
  ApiChange out;
  std::vector<bool> kept(from.loadbalancers.size(), false);
  for_each_pair(from.loadbalancers, to.loadbalancers, [&](std::optional<size_t> was, size_t i) {
    if (was) kept[*was] = true;
    if (!was || !to.loadbalancers.shares(i, from.loadbalancers, *was)) {
      out.changed.push_back(config_of(to.loadbalancers[i]));
    }
  });
  for (size_t i = 0; i < kept.size(); ++i) {
    if (!kept[i]) out.removed.push_back(from.loadbalancers[i].id);
  }
  return out;
}

std::vector<model::Config> ObjectStore::configs_of(const ApiState& state) {
  std::vector<model::Config> out;
  out.reserve(state.loadbalancers.size());
  for (const ApiLoadBalancer& lb : state.loadbalancers) out.push_back(config_of(lb));
  return out;
}

}  // namespace vigil::admin
