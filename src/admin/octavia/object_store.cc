#include "admin/octavia/object_store.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "admin/octavia/member_changes.h"
#include "admin/octavia/random_id.h"
#include "admin/octavia/start_plan.h"
#include "admin/octavia/state_journal.h"
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
    // The same object has the same id: most are, and their ids need no comparing.
    while (was < before.size() && !after.shares(i, before, was) && before[was].id != after[i].id) {
      ++was;
    }
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
  const auto failed = [&](const std::string& file, const std::string& problem) {
    return fail(
        fmt::format("cannot load the objects created through the API from {}: {}. Fix "
                    "the file or move it away (vigil then starts without those objects)",
                    file, problem));
  };
  // A process killed between creating its temporary and renaming it left the temporary behind.
  if (const size_t stale = remove_stale_temporaries(state_file); stale > 0) {
    log::info("{}: removed {} temporary files left by processes that died while writing",
              state_file, stale);
  }
  StartFiles files{.state_file = state_file, .journal_path = StateJournal::path_for(state_file)};
  struct stat st {};
  files.state_exists = !(::stat(state_file.c_str(), &st) != 0 && errno == ENOENT);
  if (files.state_exists) {
    auto text = read_file(state_file);
    if (!text) {
      return fail(
          fmt::format("cannot load the objects created through the API: {}", text.error().message));
    }
    auto state = state_from_json(*text, &store.journal_id_);
    if (!state) return failed(state_file, state.error().message);
    store.state_ = std::move(*state);
    store.snapshot_bytes_ = text->size();
    files.state_journal = store.journal_id_;
  }
  const std::string next_path = StateJournal::next_path_for(files.journal_path);
  using Read = std::pair<const std::string*, StateJournal::Contents*>;
  for (auto [path, contents] :
       {Read{&files.journal_path, &files.journal}, Read{&next_path, &files.next}}) {
    auto read = StateJournal::read(*path);
    if (!read) {
      return fail(
          fmt::format("cannot load the objects created through the API: {}", read.error().message));
    }
    *contents = std::move(*read);
  }
  const StartPlan plan = plan_start(files);
  if (plan.action == StartAction::kRefuse) {
    return fail(fmt::format("cannot load the objects created through the API: {}", plan.message));
  }
  if (!plan.message.empty()) log::warn("{}", plan.message);
  const bool replay_next = plan.action == StartAction::kReplayNext;
  const bool replay = replay_next || plan.action == StartAction::kReplayJournal;
  const StateJournal::Contents& journal = replay_next ? files.next : files.journal;
  // A `.next` left by a start that died before its state file was renamed in is no journal.
  if (files.next.exists && !replay_next) ::unlink(next_path.c_str());
  if (replay) {
    const std::string& path = replay_next ? next_path : files.journal_path;
    for (size_t i = 0; i < journal.records.size(); ++i) {
      if (auto applied = apply_record(journal.records[i], store.state_); !applied) {
        return fail(fmt::format(
            "cannot load the objects created through the API from {}: record {}: {}. Fix the "
            "line; or keep a copy of the journal and empty it (`: > {}`) to start with what the "
            "state file alone holds",
            path, i + 1, applied.error().message, path));
      }
    }
    if (journal.torn) {
      log::warn("{}: its last line was cut short (a write never answered); it is left out", path);
    }
  }
  store.state_.loadbalancers.remember();
  store.journal_ = std::make_unique<StateJournal>();
  // A state file that names no journal (there is none yet, or it was written before journals) is
  // written whole at the first write, with one. A journal that cannot be opened is not fatal
  // here (it was not before journals existed): the next write writes the whole state file, and
  // says so if that fails too.
  if (store.journal_id_.empty()) return store;
  store.journal_holds_writes_ = replay && !journal.records.empty();
  Result<void> opened;
  if (replay) {
    opened = store.journal_->resume(replay_next ? next_path : files.journal_path, journal.good,
                                    files.journal_path);
  } else {
    opened = store.journal_->prepare(files.journal_path, store.journal_id_);
    if (opened) opened = store.journal_->install();
  }
  if (!opened) log::warn("{}; the next API write saves the whole state", opened.error().message);
  return store;
}

Result<void> ObjectStore::commit(ApiState next) {
  // The load balancers the write made or changed, and those it removed.
  std::vector<size_t> made;
  std::vector<std::optional<size_t>> made_from;  // each of `made`'s index in the state, if any
  std::vector<std::string> removed;
  std::vector<bool> kept(state_.loadbalancers.size(), false);
  for_each_pair(state_.loadbalancers, next.loadbalancers, [&](std::optional<size_t> was, size_t i) {
    if (was) kept[*was] = true;
    if (!was || !next.loadbalancers.shares(i, state_.loadbalancers, *was)) {
      made.push_back(i);
      made_from.push_back(was);
    }
  });
  for (size_t i = 0; i < kept.size(); ++i) {
    if (!kept[i]) removed.push_back(state_.loadbalancers[i].id);
  }
  // A load balancer whose members alone changed is journaled as those members; its text (`put`
  // stays empty for it) is made when the state file is next written whole.
  std::vector<std::string> put(made.size());
  std::vector<std::string> put_lbs;
  std::vector<std::string> members;
  if (!state_file_.empty()) {
    for (size_t k = 0; k < made.size(); ++k) {
      const ApiLoadBalancer& after = next.loadbalancers[made[k]];
      if (made_from[k]) {
        if (auto change = members_only_change(state_.loadbalancers[*made_from[k]], after)) {
          for (const PoolMembersChange& c : *change) {
            members.push_back(members_change_to_json(after.id, c));
          }
          continue;
        }
      }
      put[k] = lb_to_json(after);
      put_lbs.push_back(put[k]);  // a copy: `put` keeps its text for the cache
    }
  }
  const std::string record =
      state_file_.empty() ? "" : record_to_json(put_lbs, removed, nullptr, nullptr, members);
  if (auto saved = persist(record, next.loadbalancers, made, put, state_.member_overrides);
      !saved) {
    return saved;
  }
  state_.loadbalancers = std::move(next.loadbalancers);
  state_.loadbalancers.remember();
  return {};
}

Result<void> ObjectStore::follow(ApiState next) {
  auto saved = commit(next);
  if (saved) return saved;
  state_.loadbalancers = std::move(next.loadbalancers);
  state_.loadbalancers.remember();
  lb_json_.clear();
  whole_due_ = !state_file_.empty();
  return saved;
}

std::vector<std::string> ObjectStore::json_of(const LoadBalancers& lbs,
                                              const std::vector<size_t>& made,
                                              std::vector<std::string>& put, bool whole) {
  const LoadBalancers& old = state_.loadbalancers;
  const bool cached = lb_json_.size() == old.size();
  std::vector<std::string> out(lbs.size());
  for (size_t k = 0; k < made.size(); ++k) out[made[k]] = std::move(put[k]);
  size_t next_made = 0;
  for_each_pair(old, lbs, [&](std::optional<size_t> was, size_t i) {
    if (next_made < made.size() && made[next_made] == i) {
      ++next_made;
    } else if (cached && was && lbs.shares(i, old, *was)) {
      out[i] = std::move(lb_json_[*was]);
    } else {
      out[i] = lb_to_json(lbs[i]);
    }
  });
  lb_json_.clear();  // taken from: persist() sets it again
  if (whole) {
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i].empty()) out[i] = lb_to_json(lbs[i]);
    }
  }
  return out;
}

Result<void> ObjectStore::persist(std::string_view record, const LoadBalancers& lbs,
                                  const std::vector<size_t>& made, std::vector<std::string>& put,
                                  const ApiState::Overrides& overrides) {
  if (state_file_.empty()) return {};
  const uint64_t limit = std::max(snapshot_bytes_, kMinJournalBytes);
  // Someone removed the state file or the journal under the running process (a clean-up of
  // /var/lib/vigil): the next start would refuse, or miss these writes. Written whole, both are
  // back, and nothing is owed.
  if (!whole_due_ && journal_ && !journal_->broken() &&
      (journal_->gone() || ::access(state_file_.c_str(), F_OK) != 0)) {
    log::warn("{} or its journal was removed or replaced while vigil ran: writing it whole",
              state_file_);
    whole_due_ = true;
  }
  if (journal_ && !journal_->broken() && !whole_due_ && journal_->size() + record.size() <= limit) {
    if (auto appended = journal_->append(record); !appended) {
      return fail(fmt::format("cannot save the API objects: {}", appended.error().message));
    }
    journal_holds_writes_ = true;
    // The cache follows the state when it did: the load balancers shared keep their text.
    if (lb_json_.size() == state_.loadbalancers.size()) lb_json_ = json_of(lbs, made, put, false);
    return {};
  }
  // The journal is as large as the state file (or cannot be written): the whole state goes to a
  // state file with a new journal, and the journal starts over for it.
  return write_whole(json_of(lbs, made, put, true), overrides);
}

Result<bool> ObjectStore::fold() {
  if (state_file_.empty() || !journal_holds_writes_) return false;
  std::vector<size_t> none;
  std::vector<std::string> put;
  if (auto written =
          write_whole(json_of(state_.loadbalancers, none, put, true), state_.member_overrides);
      !written) {
    return fail(written.error().message);
  }
  return true;
}

Result<void> ObjectStore::write_whole(std::vector<std::string> all,
                                      const ApiState::Overrides& overrides) {
  const std::string journal = StateJournal::path_for(state_file_);
  if (!journal_) journal_ = std::make_unique<StateJournal>();
  // The new journal exists before the state file that names it (state_journal.h); without one,
  // the state file names none and holds everything alone.
  std::string id = random_uuid();
  const auto prepared = journal_->prepare(journal, id);
  if (!prepared) {
    log::warn("{}; the state file is written whole at every API write until it works",
              prepared.error().message);
    id.clear();
  }
  const std::string text = state_to_json(all, overrides, id, state_.quotas);
  if (auto written = write_file_atomic(state_file_, text); !written) {
    journal_->abandon();
    return fail(fmt::format("cannot save the API objects: {}", written.error().message));
  }
  journal_id_ = std::move(id);
  snapshot_bytes_ = text.size();
  whole_due_ = false;
  journal_holds_writes_ = false;
  lb_json_ = std::move(all);
  if (!prepared) {
    // The old journal's writes are in the state file now, which names no journal: left there,
    // they would look owed at the next start.
    journal_ = std::make_unique<StateJournal>();
    if (::unlink(journal.c_str()) == 0) sync_directory_of(journal);
    return {};
  }
  if (auto installed = journal_->install(); !installed) {
    log::warn("{}; the next API write saves the whole state again", installed.error().message);
  }
  return {};
}

Result<void> ObjectStore::set_overrides(ApiState::Overrides next) {
  const std::string record = state_file_.empty() ? "" : record_to_json({}, {}, &next);
  std::vector<std::string> none;
  if (auto saved = persist(record, state_.loadbalancers, {}, none, next); !saved) return saved;
  state_.member_overrides = std::move(next);
  return {};
}

Result<void> ObjectStore::set_quota(std::string_view project_id, std::optional<ApiQuota> quota) {
  ApiState::Quotas next = state_.quotas;
  if (quota) {
    next.insert_or_assign(std::string(project_id), std::move(*quota));
  } else {
    next.erase(std::string(project_id));
  }
  const std::string record = state_file_.empty() ? "" : record_to_json({}, {}, nullptr, &next);
  // In the state before it is saved, since a whole state file written instead of the record
  // takes its quotas from there; put back when the save fails.
  ApiState::Quotas was = std::exchange(state_.quotas, std::move(next));
  std::vector<std::string> none;
  if (auto saved = persist(record, state_.loadbalancers, {}, none, state_.member_overrides);
      !saved) {
    state_.quotas = std::move(was);
    return saved;
  }
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
  return set_overrides(std::move(next));
}

Result<void> ObjectStore::drop_overrides(const std::vector<std::string>& member_ids) {
  ApiState::Overrides next = state_.member_overrides;
  for (const std::string& id : member_ids) next.erase(id);
  return set_overrides(std::move(next));
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
