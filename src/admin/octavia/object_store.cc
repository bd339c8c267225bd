#include "admin/octavia/object_store.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>

#include "admin/octavia/store_json.h"
#include "base/file.h"
#include "base/log.h"

namespace vigil::admin {

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
  next.member_overrides = state_.member_overrides;
  return save(std::move(next));
}

Result<void> ObjectStore::save(ApiState next) {
  if (!state_file_.empty()) {
    if (auto written = write_file_atomic(state_file_, state_to_json(next)); !written) {
      return fail(fmt::format("cannot save the API objects: {}", written.error().message));
    }
  }
  state_ = std::move(next);
  return {};
}

Result<void> ObjectStore::set_override(std::string_view member_id,
                                       std::optional<model::AdminOverride> o) {
  ApiState next = state_;
  if (o) {
    next.member_overrides.insert_or_assign(std::string(member_id), std::move(*o));
  } else if (auto it = next.member_overrides.find(member_id); it != next.member_overrides.end()) {
    next.member_overrides.erase(it);
  } else {
    return {};  // nothing to save
  }
  return save(std::move(next));
}

Result<void> ObjectStore::drop_overrides(const std::vector<std::string>& member_ids) {
  ApiState next = state_;
  for (const std::string& id : member_ids) next.member_overrides.erase(id);
  return save(std::move(next));
}

std::vector<model::Config> ObjectStore::configs_of(const ApiState& state) {
  std::vector<model::Config> out;
  out.reserve(state.loadbalancers.size());
  for (const ApiLoadBalancer& lb : state.loadbalancers) out.push_back(config_of(lb));
  return out;
}

}  // namespace vigil::admin
