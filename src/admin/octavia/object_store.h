// ObjectStore: the Octavia objects created through the admin API (load balancers, listeners,
// pools, members, health monitors), kept in memory and in `admin.state_file`, and their
// conversion into the model::Config the daemon runs. Control thread only.
//
// Writes go through a copy: the admin API copies state() (the load balancers are shared until
// changed: objects.h), changes the copy (ops.h), asks the daemon to apply what changed
// (change_between()), and only then commit()s it, which appends what changed to the journal
// (state_journal.h) and syncs it, or now and then writes the whole state file (temporary file,
// fsync, rename, fsync of the directory), before anything is answered. A failed apply or write
// leaves the store as it was.
//
// Names. Octavia names are free text: empty, repeated, anything. The converted configs therefore
// name every object by its id (as Octavia's own amphora haproxy.cfg does), so that
// model::Listener::pool, which refers to a pool by name, always resolves, and log lines and
// config checks see unique names. The names people gave are put back by the admin API's views
// (views.h), which build API objects from this store.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admin/api_change.h"
#include "admin/octavia/objects.h"
#include "admin/octavia/state_journal.h"
#include "base/error.h"
#include "model/config.h"

namespace vigil::admin {

class ObjectStore {
 public:
  // An empty store that lives in memory only (no state file): objects do not survive a restart.
  ObjectStore() = default;

  // Loads `state_file`. A missing file is an empty store (the first start); an unreadable or
  // corrupt one is an error naming the file and the problem, and vigil must not start, lest the
  // next write replace the objects it could not read. An empty path is ObjectStore(), with a
  // warning in the log that API objects will not survive a restart.
  static Result<ObjectStore> load(const std::string& state_file);

  const std::string& state_file() const { return state_file_; }
  const ApiState& state() const { return state_; }

  // Saves `next` (what changed, as a line appended to the journal; now and then the whole state
  // file), then makes it the state. On a write error the state is unchanged and the error names
  // the file. The member overrides stay as they are: they change
  // only through set_override() and drop_overrides() (a write's copy of the state was taken
  // before the daemon applied it, which may have dropped some).
  Result<void> commit(ApiState next);

  // As commit(), but `next` becomes the state even when it cannot be saved (the error says why):
  // for a store whose truth is elsewhere (etcd: shared_store.h), whose cache must hold what the
  // daemon runs. After such an error the next save writes the whole state file.
  Result<void> follow(ApiState next);

  // Sets (or, with none, removes) the override of the member `member_id` and saves the state,
  // as commit() does.
  Result<void> set_override(std::string_view member_id, std::optional<model::AdminOverride> o);

  // Sets (or, with none, removes) the quotas of a project and saves the state, as commit() does.
  Result<void> set_quota(std::string_view project_id, std::optional<ApiQuota> quota);

  // Removes the overrides of these members (gone from every config) and saves the state.
  Result<void> drop_overrides(const std::vector<std::string>& member_ids);

  // Writes the whole state file anew when the journal holds writes, and starts the journal over:
  // then the state file alone holds every object, as a vigil from before the journal reads it.
  // True when it wrote; the error names the file (the state and the journal stay as they were).
  // At a stop (daemon/serve.cc), by the only process writing the files.
  Result<bool> fold();

  // One model::Config per load balancer of the state, in creation order (origin kApi, ids filled
  // in, names = ids; see above).
  std::vector<model::Config> configs() const { return configs_of(state_); }
  static std::vector<model::Config> configs_of(const ApiState& state);
  // What turns the load balancers of `from` into those of `to`, where `to` is a copy of `from`
  // that a write changed (or the other way round, to undo it): the configs of those of `to` that
  // `from` lacks or holds otherwise (LoadBalancers::shares), the ids of those `to` lacks.
  static ApiChange change_between(const ApiState& from, const ApiState& to);

 private:
  // A journal grows to the state file's size before the state file is written anew, and to this
  // at least, so that a small state is not written whole at every other write.
  static constexpr uint64_t kMinJournalBytes = 1 << 20;

  // Saves a write: `record` appended to the journal, or, when the journal is full (or cannot be
  // written), the whole state (`lbs`, `overrides`) to a state file with a new journal. `made`
  // are the indices of `lbs` the write made or changed, `put` their text (taken).
  Result<void> persist(std::string_view record, const LoadBalancers& lbs,
                       const std::vector<size_t>& made, std::vector<std::string>& put,
                       const ApiState::Overrides& overrides);
  // The text of each of `lbs` (lb_to_json()): `put` for those `made`, moved out of lb_json_ for
  // those state_ shares, made anew for the others. Empties lb_json_. An empty text (one of `put`
  // for a load balancer journaled as members, or cached so) is left empty for the cache unless
  // the text is for a `whole` state file, which makes it.
  std::vector<std::string> json_of(const LoadBalancers& lbs, const std::vector<size_t>& made,
                                   std::vector<std::string>& put, bool whole);
  Result<void> set_overrides(ApiState::Overrides next);
  // Writes `all` (lb_to_json() of each load balancer, taken) and `overrides` as a new state file
  // with a new journal id, and starts the journal over.
  Result<void> write_whole(std::vector<std::string> all, const ApiState::Overrides& overrides);

  std::string state_file_;
  ApiState state_;
  std::string journal_id_;                 // the state file's "journal"; empty: none (yet)
  uint64_t snapshot_bytes_ = 0;            // the state file's size
  std::unique_ptr<StateJournal> journal_;  // null without a state file
  bool journal_holds_writes_ = false;      // writes since the state file was written whole
  bool whole_due_ = false;                 // the files lack a change follow() made: write whole
  // lb_to_json() of each of state_.loadbalancers when its size is theirs; empty when unknown
  // (at start, after a failed write): the next state file written makes it anew. One text is
  // empty when its load balancer was journaled as members (its text is made when needed).
  std::vector<std::string> lb_json_;
};

// Calls visit(j, i) for each load balancer after[i], with j its index in `before` (the one with
// its id), or none when it is new. Each of `before` is paired at most once. Linear when the
// order of those in both is the same (as ops.h keeps it; otherwise still right, only slower).
void for_each_pair(const LoadBalancers& before, const LoadBalancers& after,
                   const std::function<void(std::optional<size_t>, size_t)>& visit);

// The config of one load balancer. Listeners bind vip_address:protocol_port; a listener without
// a default pool has `pool` empty. Disabled objects (admin_state_up false): a load balancer or
// listener is left out of `listeners` (its port is not bound), a pool's members are disabled,
// a monitor is left out (members NO_MONITOR). kShow keeps the disabled listeners and monitors,
// for the views (views.cc), which show them OFFLINE and disabled; kShowShell is kShow without the
// pools' members, whose configs the views make one by one (member_config_of()) for those they
// show.
// A pool tag: when no member is usable, refuse connections (as an amphora does) instead of
// failing open (model::Pool::fail_open).
inline constexpr std::string_view kFailClosedTag = "vigil:fail_closed";

enum class Purpose { kRun, kShow, kShowShell };
model::Config config_of(const ApiLoadBalancer& lb, Purpose purpose = Purpose::kRun);
model::Member member_config_of(const ApiMember& m, const ApiPool& pool);

}  // namespace vigil::admin
